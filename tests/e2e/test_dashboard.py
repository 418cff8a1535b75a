"""The merchant dashboard over HTTP on the local stack (docs/dashboard.md): the demo owner of
stack.json signs in with its TOTP, wrong passwords and codes are refused, the home page shows what
GET /v1/balance answers, in test and live mode, sign-out leaves a copied cookie worthless, and
each account's user sees its own balance only."""

from __future__ import annotations

import uuid

import pytest
import requests
from ulid import ULID

from devstack.dashboard_demo import fresh_totp_code
from devstack.launcher import RunningStack
from tests.e2e.dashboard_client import DashboardUser, balances_shown, new_user
from tests.e2e.test_charges import Merchant, wallet

pytestmark = pytest.mark.e2e


def api_balances(stack: RunningStack, key: str) -> list[dict[str, str]]:
    url = stack.state["regions"]["mz"]["gateway"] + "/v1/balance"
    answer = requests.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert answer.status_code == 200
    return [{k: item[k] for k in ("currency", "available", "held")} for item in answer.json()["balances"]]


def test_the_demo_owner_signs_in_with_its_totp_and_sees_the_balance_the_api_answers(stack: RunningStack) -> None:
    demo = stack.state["demo"]["mz"]
    paid = requests.post(  # something in the demo account's test balance
        stack.state["regions"]["mz"]["gateway"] + "/charges",
        json={
            "payment_id": str(ULID()),
            "money": {"amount": "40.00", "currency": "MZN"},
            "source": wallet("+258840000000"),
            "country": "MZ",
        },
        headers={"Authorization": f"Bearer {demo['test_key']}", "Idempotency-Key": str(uuid.uuid4())},
        timeout=30,
    )
    assert paid.json()["status"] == "succeeded", paid.text
    user = DashboardUser(stack)
    answer = user.sign_in(demo["dashboard"]["owner"])
    assert (answer.status_code, answer.headers["Location"]) == (303, "/")
    before = api_balances(stack, demo["test_key"])
    home = user.call("GET", "/")
    after = api_balances(stack, demo["test_key"])
    assert home.status_code == 200 and 'data-mode="test"' in home.text
    assert before == after and balances_shown(home) == after and any(b["currency"] == "MZN" for b in after)
    assert home.headers["Content-Language"] == "pt" and "Saldo" in home.text
    switched = user.post("/mode", {"mode": "live"}, "/")
    assert (switched.status_code, switched.headers["Location"]) == (303, "/")
    live = user.call("GET", "/")
    assert 'data-mode="live"' in live.text and balances_shown(live) == api_balances(stack, demo["live_key"])


def test_a_wrong_password_and_a_wrong_code_are_refused(stack: RunningStack) -> None:
    owner = new_user(
        stack, stack.state["demo"]["mz"]["account_id"], f"dev-{uuid.uuid4().hex[:8]}@example.co.mz", "developer"
    )
    user = DashboardUser(stack, lang="en")
    refused = user.sign_in({**owner, "password": owner["password"] + "!"})
    assert refused.status_code == 401 and 'data-code="sign_in_failed"' in refused.text
    assert "The e-mail or password is not right." in refused.text
    right = fresh_totp_code(owner["totp_secret"])
    refused = user.sign_in(owner, code=f"{(int(right) + 1) % 1_000_000:06d}")
    assert refused.status_code == 401 and 'data-code="invalid_code"' in refused.text
    assert user.call("GET", "/").headers["Location"] == "/sign-in"


def test_after_sign_out_the_old_cookie_gets_the_sign_in_page(stack: RunningStack) -> None:
    member = new_user(
        stack, stack.state["demo"]["mz"]["account_id"], f"fin-{uuid.uuid4().hex[:8]}@example.co.mz", "finance"
    )
    user = DashboardUser(stack)
    assert user.sign_in(member).status_code == 303
    copied = dict(user.cookies)
    home = user.call("GET", "/")
    assert home.status_code == 200
    out = user.post("/sign-out", {}, "/")
    assert (out.status_code, out.headers["Location"]) == (303, "/sign-in")
    thief = DashboardUser(stack)
    thief.cookies = copied
    again = thief.call("GET", "/")
    assert (again.status_code, again.headers["Location"]) == (303, "/sign-in")
    posted = thief.call("POST", "/mode", {"mode": "live", "csrf_token": "x"})
    assert posted.status_code == 401 and 'data-code="unauthorized"' in posted.text


def test_each_accounts_user_sees_its_own_balance_only(stack: RunningStack) -> None:
    first, second = Merchant(stack), Merchant(stack)
    assert first.charge(wallet("+258840000000"), amount="150.00").json()["status"] == "succeeded"
    assert second.charge(wallet("+258840000000"), amount="75.00").json()["status"] == "succeeded"
    for shop, amount in ((first, "150.00"), (second, "75.00")):
        member = new_user(stack, shop.account["id"], f"owner-{uuid.uuid4().hex[:8]}@example.co.mz")
        user = DashboardUser(stack)
        assert user.sign_in(member).status_code == 303
        shown = balances_shown(user.call("GET", "/"))
        assert shown == [{"currency": "MZN", "available": amount, "held": "0.00"}] == api_balances(stack, shop.test_key)
