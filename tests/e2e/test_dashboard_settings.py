"""The dashboard's home charts and settings over HTTP on the local stack (docs/dashboard.md, "Home"
and "Settings"): payments made through the API in a fresh account show on the home page as today's
and the last 30 days' volume and success rate by method, in the session's mode only, as SVG charts
with their numbers in a table; an owner's brand colour shows on the hosted checkout and the
receipt, every change audited, refused fields re-render the form with nothing stored, other roles
are refused, and the account's dashboard IP allowlist refuses other addresses, sign-in included."""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.dashboard_client import DashboardUser, csrf, new_user, volume_shown
from tests.e2e.test_charges import Merchant, card, wallet
from tests.e2e.test_checkout import checkout, open_page
from tests.polling import eventually

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def expected_figures(payments: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, str]]:
    """What the home page should show for `payments` (GET /v1/payments' items, all made today)."""
    figures: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: {"payments": 0, "succeeded": 0, "decided": 0, "volume": Decimal(0)}
    )
    for payment in payments:
        one = figures[(payment["source"]["type"], payment["money"]["currency"])]
        one["payments"] += 1
        one["volume"] += Decimal(payment["captured_amount"])
        one["succeeded"] += payment["status"] == "succeeded"
        one["decided"] += payment["status"] in ("succeeded", "failed", "expired")
    shown = {}
    for key, one in figures.items():
        decided = one["decided"]
        rate = (Decimal(100 * one["succeeded"]) / decided).quantize(Decimal("0.1"), ROUND_HALF_UP) if decided else ""
        shown[key] = {
            "payments": str(one["payments"]),
            "succeeded": str(one["succeeded"]),
            "decided": str(one["decided"]),
            "volume": str(one["volume"]),
            "rate": str(rate),
        }
    return shown


def test_the_home_charts_show_the_volume_and_success_rate_of_the_payments_made_through_the_api(
    stack: RunningStack, shop: Merchant
) -> None:
    made = [
        shop.charge(wallet("+258840000000"), amount="40.10"),
        shop.charge(wallet("+258840000000"), amount="12.35"),
        shop.charge(wallet("+258860000001", "emola")),  # insufficient funds: failed
        shop.charge(card("tok_test_visa"), amount="100.00"),
        shop.charge(card("tok_test_declined")),
    ]
    assert [m.json()["status"] for m in made] == ["succeeded", "succeeded", "failed", "succeeded", "failed"]
    listed = shop.call("GET", "/v1/payments?page_size=100", idempotency_key=None).json()["data"]
    assert {p["provider_payment_id"] for p in listed} == {m.json()["provider_payment_id"] for m in made}
    expected = expected_figures(listed)
    assert expected[("mobile_wallet", "MZN")] == {
        "payments": "3",
        "succeeded": "2",
        "decided": "3",
        "volume": "52.45",
        "rate": "66.7",
    }
    owner = new_user(stack, shop.account["id"], f"owner-{uuid.uuid4().hex[:8]}@example.co.mz")
    user = DashboardUser(stack, lang="en")
    assert user.sign_in(owner).status_code == 303
    home = user.call("GET", "/")
    assert home.status_code == 200 and home.headers["Content-Language"] == "en"
    assert volume_shown(home) == {"today": expected, "30_days": expected}
    assert "Volume and success rate" in home.text and "Mobile wallet (MZN)" in home.text
    assert re.search(r'<tr data-method="mobile_wallet".*?<td class="amount">MZN\s52\.45</td>', home.text, re.S)
    assert re.search(r'<tr data-method="mobile_wallet".*?<td class="amount">66\.7%</td>', home.text, re.S)
    for chart in ("volume-chart-today", "rate-chart-today", "volume-chart-30_days", "rate-chart-30_days"):
        svg = re.search(rf'<svg [^>]*data-chart="{chart}">(.*?)</svg>', home.text, re.S)
        assert svg is not None and f'role="img" aria-labelledby="{chart}-title {chart}-desc"' in home.text
        assert f'<title id="{chart}-title">' in svg.group(1) and f'<desc id="{chart}-desc">' in svg.group(1)
        widths = [Decimal(w) for w in re.findall(r'data-width="([^"]+)"', svg.group(1))]
        assert len(widths) == 2 and (max(widths) == Decimal("120.0") or chart.startswith("rate"))  # the largest spans
    rates = re.search(r'data-chart="rate-chart-today">(.*?)</svg>', home.text, re.S)
    assert rates is not None  # card: 1 of 2 (60.0), wallet: 2 of 3 (80.0 of 120)
    assert re.findall(r'data-width="([^"]+)"', rates.group(1)) == ["60.0", "80.0"]
    assert "<script" not in home.text and "script-src" not in home.headers["Content-Security-Policy"]

    portuguese = DashboardUser(stack)
    assert portuguese.sign_in(owner).status_code == 303
    page = portuguese.call("GET", "/")
    assert "Volume e taxa de sucesso" in page.text and "Carteira móvel (MZN)" in page.text
    assert re.search(r"52,45\sMTn", page.text) and "66,7%" in page.text
    assert volume_shown(page) == volume_shown(home)

    assert user.post("/mode", {"mode": "live"}, "/").status_code == 303
    live = user.call("GET", "/")  # the test payments are not the live mode's
    assert 'data-mode="live"' in live.text and volume_shown(live) == {"today": {}, "30_days": {}}
    assert live.text.count("No payments in this period.") == 2


def test_every_role_sees_the_charts_and_only_its_own_account_s(stack: RunningStack, shop: Merchant) -> None:
    other = Merchant(stack)
    assert other.charge(wallet("+258840000000"), amount="7.00").json()["status"] == "succeeded"
    support = new_user(stack, other.account["id"], f"sup-{uuid.uuid4().hex[:8]}@example.co.mz", "support")
    user = DashboardUser(stack)
    assert user.sign_in(support).status_code == 303
    shown = volume_shown(user.call("GET", "/"))
    row = {"payments": "1", "succeeded": "1", "decided": "1", "volume": "7.00", "rate": "100.0"}
    assert shown == {"today": {("mobile_wallet", "MZN"): row}, "30_days": {("mobile_wallet", "MZN"): row}}
    assert requests.get(user.url + "/health", timeout=30).status_code == 200


# ---------------------------------------------------------------- settings
def settings_records(stack: RunningStack, account_id: str) -> list[dict[str, Any]]:
    """The account's audit records of the settings form's posts, newest first."""
    answer = requests.get(
        stack.state["regions"]["mz"]["management"] + "/v1/audit-records",
        params={"account_id": account_id, "action": "change_settings"},
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def form_values(page: requests.Response) -> dict[str, str]:
    """The settings form's fields as the page fills them in."""
    inputs = dict(re.findall(r'<input id="([a-z_]+)" name="[a-z_]+" value="([^"]*)"', page.text))
    language = re.search(r'<option value="([a-z]+)" selected>', page.text)
    allowlist = re.search(r'<textarea id="dashboard_ip_allowlist"[^>]*>([^<]*)</textarea>', page.text, re.S)
    assert language is not None and allowlist is not None
    return {**inputs, "notification_language": language.group(1), "dashboard_ip_allowlist": allowlist.group(1)}


CARD = "gateway.raw_card_data_not_accepted"


@pytest.fixture(scope="module")
def admin(stack: RunningStack, shop: Merchant) -> DashboardUser:
    """An administrator of the shop, signed in (from its own address: the sign-in rate limits
    count per address, and these tests sign many users in)."""
    user = DashboardUser(stack, source="127.0.1.1")
    member = new_user(stack, shop.account["id"], f"adm-{uuid.uuid4().hex[:8]}@example.co.mz", "administrator")
    assert user.sign_in(member).status_code == 303
    return user


BLANK = {"brand_colour": "", "notification_language": "pt", "sender_name": "", "dashboard_ip_allowlist": ""}


def test_an_owner_sets_the_brand_colour_the_checkout_and_the_receipt_wear_it_audited(
    stack: RunningStack, shop: Merchant
) -> None:
    email = f"owner-{uuid.uuid4().hex[:8]}@example.co.mz"
    user = DashboardUser(stack)
    assert user.sign_in(new_user(stack, shop.account["id"], email)).status_code == 303
    page = user.call("GET", "/settings")
    assert (page.status_code, page.headers["Content-Language"]) == (200, "pt")
    assert 'data-page="settings"' in page.text and "Definições" in page.text and 'data-nav="settings"' in page.text
    assert form_values(page) == BLANK and "data-saved" not in page.text
    assert f'data-account="{shop.account["id"]}"' in page.text and "Dados do negócio" in page.text
    assert "<td data-name>Mercearia</td>" in page.text and "<td>mz</td>" in page.text  # as the management API
    url = checkout(shop).json()["checkout_url"]
    plain = requests.get(url, timeout=30)
    assert "data-brand-colour" not in plain.text

    wanted = {**BLANK, "brand_colour": "#8A1C12", "sender_name": "Mercearia  Tete", "notification_language": "en"}
    saved = user.post("/settings", wanted, "/settings")
    assert (saved.status_code, saved.headers["Location"]) == (303, "/settings?saved=1")
    page = user.call("GET", "/settings?saved=1")
    assert form_values(page) == {**wanted, "brand_colour": "#8a1c12", "sender_name": "Mercearia Tete"}
    assert "data-saved" in page.text and "Guardado." in page.text
    assert f'data-updated-by="user:{email}"' in page.text

    for address in (url, f"{url}?lang=en"):
        shown = requests.get(address, timeout=30)
        assert shown.status_code == 200 and 'data-brand-colour="#8a1c12"' in shown.text
        assert "button, .button { background: #8a1c12; color: #ffffff; }" in shown.text
        policy = shown.headers["Content-Security-Policy"]
        assert "unsafe-inline" not in policy and "style-src 'nonce-" in policy
    browser, _, token = open_page(url)
    paid = browser.post(f"{url}/test/succeed", data={"csrf_token": token}, timeout=30)
    assert paid.status_code == 200 and 'data-brand-colour="#8a1c12"' in paid.text
    receipt = requests.get(f"{url}/receipt", timeout=30)
    assert receipt.status_code == 200 and 'data-status="receipt"' in receipt.text
    assert 'data-brand-colour="#8a1c12"' in receipt.text and "background: #8a1c12" in receipt.text

    light = user.post("/settings", {**wanted, "brand_colour": "#ffe680"}, "/settings")
    assert light.status_code == 303  # a light colour gets dark text on its buttons
    assert "button, .button { background: #ffe680; color: #1b1f1d; }" in requests.get(url, timeout=30).text

    found = eventually(lambda: settings_records(stack, shop.account["id"]), lambda found: len(found) >= 2)
    assert len(found) == 2
    last, first = found
    assert (first["actor"]["kind"], first["actor"]["id"], first["surface"]) == ("merchant_user", email, "dashboard")
    assert first["outcome"]["status"] == 303 and first["target"] == {
        "type": "account_settings",
        "id": shop.account["id"],
    }
    assert first["before"] == {
        "brand_colour": None,
        "notification_language": "pt",
        "sender_name": None,
        "dashboard_ip_allowlist": [],
    }
    assert first["after"] == {
        **first["before"],
        "brand_colour": "#8a1c12",
        "notification_language": "en",
        "sender_name": "Mercearia Tete",
    }
    assert last["before"] == first["after"] and last["after"]["brand_colour"] == "#ffe680"


@pytest.mark.parametrize(
    ("field", "value", "code", "words"),
    [
        ("sender_name", "M" * 41, "too_long", "O nome do remetente tem no máximo 40 caracteres."),
        ("sender_name", "Loja 4111 1111 1111 1111", CARD, "Não pode escrever aqui um número de cartão"),
        ("dashboard_ip_allowlist", "4111111111111111", CARD, "Não pode escrever aqui um número de cartão"),
        ("dashboard_ip_allowlist", "10.0.0.0/8\n" * 200, "too_long", "no máximo 50 endereços"),
        ("dashboard_ip_allowlist", "10.0.0.300", "invalid_cidr", "endereços ou redes (CIDR)"),
        ("dashboard_ip_allowlist", "10.0.0.0/8", "locks_you_out", "tem de incluir o endereço que usa agora"),
        ("brand_colour", "red; } body { x", "invalid_value", "A cor escreve-se #RRGGBB"),
        ("notification_language", "fr", "invalid_value", "Escolha português ou inglês."),
    ],
)
def test_a_refused_field_re_renders_the_form_and_nothing_is_stored(
    admin: DashboardUser, field: str, value: str, code: str, words: str
) -> None:
    user = admin
    before = form_values(user.call("GET", "/settings"))
    page = user.call("GET", "/settings")
    token = csrf(page)
    refused = user.call("POST", "/settings", {**before, field: value, "csrf_token": token})
    assert (refused.status_code, refused.headers["X-Error-Code"]) == (400, CARD if code == CARD else "validation_error")
    assert f'data-field="{field}" data-field-code="{code}"' in refused.text and words in refused.text
    assert "nada foi guardado" in refused.text.lower() and refused.headers["Content-Language"] == "pt"
    assert csrf(refused) == token and 'data-form="settings"' in refused.text  # the session's token again
    if code == CARD:  # refused by the card screen before the route
        assert "4111" not in refused.text  # never shown back
    assert form_values(user.call("GET", "/settings")) == before


def test_roles_without_settings_write_are_refused_and_another_account_s_settings_are_not_reached(
    stack: RunningStack, shop: Merchant
) -> None:
    for role in ("developer", "finance", "support"):
        member = new_user(stack, shop.account["id"], f"{role}-{uuid.uuid4().hex[:8]}@example.co.mz", role)
        user = DashboardUser(stack, lang="en", source="127.0.2.1")
        assert user.sign_in(member).status_code == 303
        home = user.call("GET", "/")
        assert home.status_code == 200 and 'data-nav="settings"' not in home.text
        page = user.call("GET", "/settings")
        assert (page.status_code, page.headers["X-Error-Code"]) == (403, "forbidden")
        assert "Your role may not do this." in page.text and 'data-form="settings"' not in page.text
        token = csrf(home)
        refused = user.call("POST", "/settings", {**BLANK, "brand_colour": "#000000", "csrf_token": token})
        assert (refused.status_code, refused.headers["X-Error-Code"]) == (403, "forbidden")
        assert 'data-form="settings"' not in refused.text
    other = Merchant(stack)
    owner = DashboardUser(stack, source="127.0.2.2")
    assert (
        owner.sign_in(new_user(stack, other.account["id"], f"o-{uuid.uuid4().hex[:8]}@example.co.mz")).status_code
        == 303
    )
    assert form_values(owner.call("GET", "/settings")) == BLANK  # its own, not the shop's
    theirs = checkout(other).json()["checkout_url"]
    assert "data-brand-colour" not in requests.get(theirs, timeout=30).text


def test_the_dashboard_ip_allowlist_refuses_other_addresses_sign_in_included(stack: RunningStack) -> None:
    shop = Merchant(stack)
    owner = new_user(stack, shop.account["id"], f"owner-{uuid.uuid4().hex[:8]}@example.co.mz")
    support = new_user(stack, shop.account["id"], f"sup-{uuid.uuid4().hex[:8]}@example.co.mz", "support")
    inside = DashboardUser(stack, source="127.0.0.1")
    outside = DashboardUser(stack, lang="en", source="127.0.0.2")
    assert outside.sign_in(support).status_code == 303  # no allowlist yet: any address
    assert inside.sign_in(owner).status_code == 303
    saved = inside.post("/settings", {**BLANK, "dashboard_ip_allowlist": "127.0.0.1\n10.0.0.0/8"}, "/settings")
    assert saved.status_code == 303
    assert form_values(inside.call("GET", "/settings"))["dashboard_ip_allowlist"] == "127.0.0.1/32\n10.0.0.0/8"

    refused = outside.call("GET", "/")  # the session opened before: refused from now on
    assert (refused.status_code, refused.headers["X-Error-Code"]) == (403, "ip_not_allowed")
    assert "the account's IP allowlist leaves it out" in refused.text and "data-available=" not in refused.text
    again = DashboardUser(stack, lang="en", source="127.0.0.2")
    wrong = again.sign_in({**support, "password": support["password"] + "!"})
    assert wrong.status_code == 401  # a wrong password says no more than before
    denied = again.sign_in(support)
    assert (denied.status_code, denied.headers["X-Error-Code"]) == (403, "ip_not_allowed")
    assert "IP allowlist" in denied.text and "__Host-mzpay_dashboard" not in again.cookies
    assert inside.call("GET", "/").status_code == 200  # the listed address comes in
    from_inside = DashboardUser(stack, source="127.0.0.1")
    assert from_inside.sign_in(support).status_code == 303 and from_inside.call("GET", "/").status_code == 200

    cleared = inside.post("/settings", BLANK, "/settings")
    assert cleared.status_code == 303
    assert DashboardUser(stack, source="127.0.0.2").sign_in(support).status_code == 303
