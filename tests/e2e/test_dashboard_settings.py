"""The dashboard's home charts over HTTP on the local stack (docs/dashboard.md, "Home"): payments
made through the API in a fresh account show on the home page as today's and the last 30 days'
volume and success rate by method, in the session's mode only, as SVG charts with their numbers
in a table."""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.dashboard_client import DashboardUser, new_user, volume_shown
from tests.e2e.test_charges import Merchant, card, wallet

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
