"""Partners (mzpay.domain.partners.catalogue): the data drives real forms (every attribute complete, its
regex compiles and accepts what it should), the type filter, and the BIN lookup that never takes
a card number."""

from __future__ import annotations

import base64
import re

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.partners import catalogue as partners

ATTRIBUTE_FIELDS = {"label", "field_name", "required", "prefix", "regex", "sufix", "minsize", "maxsize"}


def test_every_attribute_is_complete_and_its_regex_compiles() -> None:
    for partner in partners.partners():
        assert partner["partner_id"].startswith("ptn_") and partner["name"]
        for kind in partner["pm_types"]:
            assert kind["type"] in partners.PM_TYPES
            names = [a["field_name"] for a in kind["attributes"]]
            assert len(names) == len(set(names)), partner["partner_id"]
            for attribute in kind["attributes"]:
                assert set(attribute) == ATTRIBUTE_FIELDS
                re.compile(attribute["regex"])
                assert 0 < attribute["minsize"] <= attribute["maxsize"]


@pytest.mark.parametrize(
    ("partner_id", "good", "bad"),
    [
        ("ptn_mpesa", "+258841234567", "+258861234567"),
        ("ptn_emola", "+258861234567", "+258841234567"),
        ("ptn_mkesh", "+258821234567", "+25882123456"),
    ],
)
def test_a_wallets_phone_rule_takes_its_own_network_only(partner_id: str, good: str, bad: str) -> None:
    (phone,) = [a for a in partners.attributes(partner_id, "mobile_wallet") or [] if a["field_name"] == "phone_number"]
    assert re.fullmatch(phone["regex"], good) and not re.fullmatch(phone["regex"], bad)


def test_the_card_form_asks_for_a_token_never_a_card_number() -> None:
    fields = [a["field_name"] for a in partners.attributes("ptn_card_schemes", "card") or []]
    assert fields == ["card_token", "last4", "exp_month", "exp_year", "brand"]


def test_the_type_filter() -> None:
    wallets = {p["partner_id"] for p in partners.partners("mobile_wallet")}
    assert wallets == {"ptn_mpesa", "ptn_emola", "ptn_mkesh"}
    assert {"ptn_bci", "ptn_millennium_bim", "ptn_standard_bank", "ptn_absa"} <= {
        p["partner_id"] for p in partners.partners("bank_account")
    }
    with pytest.raises(ServiceError) as refused:
        partners.partners("cash")
    assert (refused.value.status, refused.value.code) == (400, "validation_error")


@pytest.mark.parametrize(
    ("bin_digits", "scheme"),
    [
        ("411111", "visa"),
        ("51000012", "mastercard"),
        ("222100", "mastercard"),
        ("272099", "mastercard"),
        ("371449", "amex"),
    ],
)
def test_a_bin_finds_its_scheme(bin_digits: str, scheme: str) -> None:
    answer = partners.card_logo(bin_digits)
    assert (answer["object"], answer["scheme"], answer["card_number"]) == ("card_logo", scheme, bin_digits)
    assert base64.b64decode(answer["logo"]).startswith(b"<svg")


@pytest.mark.parametrize(("text", "status", "code"), [("601100", 404, "not_found"), ("272100", 404, "not_found")])
def test_an_unknown_bin_is_404(text: str, status: int, code: str) -> None:
    with pytest.raises(ServiceError) as refused:
        partners.card_logo(text)
    assert (refused.value.status, refused.value.code) == (status, code)


@pytest.mark.parametrize("text", ["41111", "4111111111111111", "4111-11", "abcdef", ""])
def test_anything_but_a_bin_is_refused(text: str) -> None:
    with pytest.raises(ServiceError) as refused:
        partners.card_logo(text)
    error = refused.value
    assert (error.status, error.code, [e.field for e in error.errors]) == (400, "validation_error", ["card_number"])
    assert text not in error.message or not text
