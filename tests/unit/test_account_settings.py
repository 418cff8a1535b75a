"""A merchant account's own settings (mzpay.domain.accounts.settings): what the settings form may
hold, the dashboard IP allowlist's admission, and the brand colour's text colour."""

from __future__ import annotations

import pytest

from mzpay.domain.accounts.settings import AccountSettings, SettingsForm, admits, brand, parsed
from mzpay.domain.common.errors import ServiceError


def test_a_form_becomes_settings_normalised() -> None:
    form = SettingsForm("#8A1C12", "en", "  Mercearia   Tete ", "127.0.0.1\n10.0.0.0/8, 10.0.0.0/8  2001:db8::/32")
    assert parsed(form, "127.0.0.1") == AccountSettings(
        brand_colour="#8a1c12",
        notification_language="en",
        sender_name="Mercearia Tete",
        dashboard_ip_allowlist=("127.0.0.1/32", "10.0.0.0/8", "2001:db8::/32"),
    )
    assert parsed(SettingsForm(), "192.0.2.1") == AccountSettings()


@pytest.mark.parametrize(
    ("form", "field", "code"),
    [
        (SettingsForm(brand_colour="red"), "brand_colour", "invalid_value"),
        (SettingsForm(brand_colour="#12345g"), "brand_colour", "invalid_value"),
        (SettingsForm(brand_colour="#123456; x"), "brand_colour", "invalid_value"),
        (SettingsForm(notification_language="fr"), "notification_language", "invalid_value"),
        (SettingsForm(sender_name="M" * 41), "sender_name", "too_long"),
        (SettingsForm(sender_name="<b>Loja</b>"), "sender_name", "invalid_value"),
        (SettingsForm(sender_name="Loja 4111 1111 1111 1111"), "sender_name", "card_data"),
        (SettingsForm(dashboard_ip_allowlist="4111111111111111"), "dashboard_ip_allowlist", "card_data"),
        (SettingsForm(dashboard_ip_allowlist="10.0.0.300"), "dashboard_ip_allowlist", "invalid_cidr"),
        (SettingsForm(dashboard_ip_allowlist="x" * 2001), "dashboard_ip_allowlist", "too_long"),
        (
            SettingsForm(dashboard_ip_allowlist=" ".join(f"10.0.{i}.0/24" for i in range(51))),
            "dashboard_ip_allowlist",
            "too_long",
        ),
        (SettingsForm(dashboard_ip_allowlist="10.0.0.0/8"), "dashboard_ip_allowlist", "locks_you_out"),
    ],
)
def test_a_refused_field_is_named_with_its_code(form: SettingsForm, field: str, code: str) -> None:
    with pytest.raises(ServiceError) as refused:
        parsed(form, "127.0.0.1")
    assert (refused.value.status, refused.value.code) == (400, "validation_error")
    assert [(e.field, e.code) for e in refused.value.errors] == [(field, code)]


def test_the_allowlist_admits_its_addresses_only_and_everyone_when_unset() -> None:
    listed = AccountSettings(dashboard_ip_allowlist=("127.0.0.1/32", "2001:db8::/32"))
    assert admits(listed, "127.0.0.1") and admits(listed, "2001:db8::5") and admits(listed, "::ffff:127.0.0.1")
    assert not admits(listed, "127.0.0.2") and not admits(listed, "") and not admits(listed, "garbage")
    assert admits(AccountSettings(), "198.51.100.7")


def test_the_brand_takes_the_text_colour_that_reads_on_it() -> None:
    assert brand(AccountSettings()) is None
    assert brand(AccountSettings(brand_colour="#8a1c12")) == brand(AccountSettings(brand_colour="#8A1C12"))
    dark, light = brand(AccountSettings(brand_colour="#123c69")), brand(AccountSettings(brand_colour="#ffe680"))
    assert dark is not None and (dark.colour, dark.text) == ("#123c69", "#ffffff")
    assert light is not None and (light.colour, light.text) == ("#ffe680", "#1b1f1d")
    assert brand(AccountSettings(brand_colour="red;}")) is None  # a stored value is validated again
