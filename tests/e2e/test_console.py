"""The operator console over real HTTP (requests, no browser): sign-in and its session cookie,
redirects without a session, CSRF refusals that change nothing, the payouts awaiting approval
list with approve and reject, a refused action's page, concurrent decisions, and the language
switch. The browser tests (test_console_browser.py) drive the same pages in Chromium."""

from __future__ import annotations

import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_audit import records
from tests.e2e.test_cash_deposits import confirm, finished, intent, lookup, partner
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_disputes import open_dispute, paid
from tests.e2e.test_payout_batches import closed, line, sent
from tests.e2e.test_payouts import NIB_DIGITS, bank, funded, manage, payout, set_payout_limits
from tests.e2e.test_psp_transactions import payment as psp_payment
from tests.e2e.test_psp_transactions import record, reference
from tests.e2e.test_refunds import refund
from tests.polling import eventually

pytestmark = pytest.mark.e2e
LETTERS = str.maketrans("0123456789", "ghijklmnop")  # names without digit runs (card data)

SESSION = "mzpay_console"
CSRF = "mzpay_console_csrf"


def base(stack: RunningStack) -> str:
    return f"{stack.state['regions']['mz']['management']}/console"


def csrf_of(page: requests.Response) -> str:
    found = re.findall(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found, page.text
    return found[0]


def signed_in(stack: RunningStack) -> requests.Session:
    """A browser-like client holding a fresh console session."""
    client = requests.Session()
    form = client.get(f"{base(stack)}/sign-in", timeout=30)
    assert form.status_code == 200, form.text
    answer = client.post(
        f"{base(stack)}/sign-in",
        data={"token": stack.state["operator_token"], "csrf_token": csrf_of(form)},
        allow_redirects=False,
        timeout=30,
    )
    assert (answer.status_code, answer.headers["Location"]) == (303, "/console/accounts"), answer.text
    return client


def main_of(page: requests.Response) -> dict[str, str]:
    """The attributes of the page's <main> (data-page, data-code, data-status ...)."""
    tag = re.search(r"<main([^>]*)>", page.text)
    assert tag is not None, page.text
    return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', tag.group(1)))


def operator_payout(stack: RunningStack, shop: Merchant, provider_payout_id: str) -> dict[str, Any]:
    return shop.call("GET", f"/v1/payouts/{provider_payout_id}").json()  # type: ignore[no-any-return]


def waiting_payout(stack: RunningStack, amount: str = "1500.00") -> tuple[Merchant, str]:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    made = payout(shop, wallet("+258840000000"), amount).json()
    assert made["status"] == "waiting_for_approval", made
    return shop, made["provider_payout_id"]


# ---------------------------------------------------------------- signing in
def test_every_page_without_a_session_redirects_to_sign_in(stack: RunningStack) -> None:
    for method, path in [("GET", ""), ("GET", "/accounts"), ("GET", "/payouts")]:
        answer = requests.request(method, base(stack) + path, allow_redirects=False, timeout=30)
        assert (answer.status_code, answer.headers["Location"]) == (303, "/console/sign-in"), (method, path)


def test_a_post_without_a_session_is_the_sign_in_page_with_401_and_nothing_runs(stack: RunningStack) -> None:
    answer = requests.post(f"{base(stack)}/payouts/X/approve", allow_redirects=False, timeout=30)
    assert (answer.status_code, main_of(answer)["data-page"], answer.headers["X-Error-Code"]) == (
        401,
        "sign-in",
        "unauthorized",
    )
    assert "Location" not in answer.headers


def test_sign_in_sets_a_strict_http_only_session_for_eight_hours_and_sign_out_ends_it(stack: RunningStack) -> None:
    client = requests.Session()
    form = client.get(f"{base(stack)}/sign-in", timeout=30)
    assert (form.status_code, main_of(form)["data-page"], form.headers["Content-Language"]) == (200, "sign-in", "pt")
    assert "Iniciar sessão" in form.text
    answer = client.post(
        f"{base(stack)}/sign-in",
        data={"token": stack.state["operator_token"], "csrf_token": csrf_of(form)},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 303
    cookies = answer.raw.headers.getlist("Set-Cookie")
    session = next(c for c in cookies if c.startswith(f"{SESSION}="))
    assert sorted(part.strip() for part in session.split(";")[1:]) == [
        "HttpOnly",
        "Max-Age=28800",
        "Path=/console",
        "SameSite=Strict",
    ]  # Secure everywhere but a loopback address over plain HTTP (the local stack)
    home = client.get(f"{base(stack)}/accounts", timeout=30)
    assert (home.status_code, main_of(home)["data-page"]) == (200, "accounts")
    assert 'data-operator="operator"' in home.text

    kept = {SESSION: client.cookies[SESSION], CSRF: client.cookies[CSRF]}  # a copy taken before sign-out
    out = client.post(f"{base(stack)}/sign-out", data={"csrf_token": csrf_of(home)}, allow_redirects=False, timeout=30)
    assert (out.status_code, out.headers["Location"]) == (303, "/console/sign-in?done=signed_out")
    after = client.get(f"{base(stack)}/accounts", allow_redirects=False, timeout=30)
    assert (after.status_code, after.headers["Location"]) == (303, "/console/sign-in")
    # The copy is no session either: the service ended it, not only the browser's cookie.
    reused = requests.get(f"{base(stack)}/accounts", cookies=kept, allow_redirects=False, timeout=30)
    assert (reused.status_code, reused.headers["Location"]) == (303, "/console/sign-in")
    name = f"After sign-out {uuid.uuid4().hex.translate(LETTERS)}"  # a run of digits could pass Luhn: card data
    create = requests.post(
        f"{base(stack)}/accounts",
        cookies=kept,
        data={"name": name, "csrf_token": csrf_of(home)},
        allow_redirects=False,
        timeout=30,
    )
    assert (create.status_code, main_of(create)["data-page"], create.headers["X-Error-Code"]) == (
        401,
        "sign-in",
        "unauthorized",
    )
    found = requests.get(f"{base(stack)}/accounts", params={"q": name}, cookies=signed_in(stack).cookies, timeout=30)
    assert (found.status_code, 'data-empty="accounts"' in found.text, "data-account=" in found.text) == (
        200,
        True,
        False,
    )  # nothing was created


def test_a_wrong_token_is_the_form_again_with_401(stack: RunningStack) -> None:
    client = requests.Session()
    form = client.get(f"{base(stack)}/sign-in?lang=en", timeout=30)
    answer = client.post(
        f"{base(stack)}/sign-in", data={"token": "not-the-token", "csrf_token": csrf_of(form)}, timeout=30
    )
    assert (answer.status_code, main_of(answer)["data-page"]) == (401, "sign-in")
    assert "This token does not belong to an operator." in answer.text
    assert SESSION not in client.cookies


def test_a_forged_session_cookie_is_no_session(stack: RunningStack) -> None:
    client = signed_in(stack)
    real = client.cookies[SESSION]
    forged = real.replace("v1.operator.", "v1.someone.")
    answer = requests.get(f"{base(stack)}/accounts", cookies={SESSION: forged}, allow_redirects=False, timeout=30)
    assert (answer.status_code, answer.headers["Location"]) == (303, "/console/sign-in")


def test_sign_in_without_its_csrf_cookie_is_csrf_missing(stack: RunningStack) -> None:
    form = requests.get(f"{base(stack)}/sign-in", timeout=30)
    answer = requests.post(
        f"{base(stack)}/sign-in",
        data={"token": stack.state["operator_token"], "csrf_token": csrf_of(form)},
        allow_redirects=False,
        timeout=30,
    )
    assert (answer.status_code, main_of(answer)["data-code"]) == (403, "csrf_missing")
    assert SESSION not in answer.cookies


# ---------------------------------------------------------------- CSRF on a state-changing form
def test_csrf_refusals_change_nothing(stack: RunningStack) -> None:
    shop, payout_id = waiting_payout(stack)
    client = signed_in(stack)
    listing = client.get(f"{base(stack)}/payouts", timeout=30)
    token = csrf_of(listing)
    approve = f"{base(stack)}/payouts/{payout_id}/approve"

    held = client.cookies.pop(CSRF)  # no cookie
    missing = client.post(approve, data={"csrf_token": token}, allow_redirects=False, timeout=30)
    assert (missing.status_code, main_of(missing)["data-code"]) == (403, "csrf_missing")
    assert "csrf_missing" in missing.text and "Este formulário já não é válido" in missing.text
    client.cookies.set(CSRF, held, path="/console")

    for given in ("", token[:-2] + "xx"):  # absent from the form, or not the cookie's
        invalid = client.post(approve, data={"csrf_token": given}, allow_redirects=False, timeout=30)
        assert (invalid.status_code, main_of(invalid)["data-code"]) == (403, "csrf_invalid")
    forged = "abc.def"  # cookie and field agree, but the service never issued it
    client.cookies.set(CSRF, forged, path="/console")
    invalid = client.post(approve, data={"csrf_token": forged}, allow_redirects=False, timeout=30)
    assert (invalid.status_code, main_of(invalid)["data-code"]) == (403, "csrf_invalid")

    assert operator_payout(stack, shop, payout_id)["status"] == "waiting_for_approval"
    # the refusal's page issued a fresh token: the operator carries on from it
    out = client.post(f"{base(stack)}/sign-out", data={"csrf_token": csrf_of(invalid)}, allow_redirects=False)
    assert (out.status_code, out.headers["Location"]) == (303, "/console/sign-in?done=signed_out")


# ---------------------------------------------------------------- payouts awaiting approval
def test_approve_and_reject_from_the_console(stack: RunningStack) -> None:
    shop, first = waiting_payout(stack)
    second = payout(shop, wallet("+258840000000"), "1200.00").json()["provider_payout_id"]
    client = signed_in(stack)
    listing = client.get(f"{base(stack)}/payouts", timeout=30)
    assert f'data-payout="{first}"' in listing.text and f'data-payout="{second}"' in listing.text

    approved = client.post(
        f"{base(stack)}/payouts/{first}/approve", data={"csrf_token": csrf_of(listing)}, allow_redirects=False
    )
    assert (approved.status_code, approved.headers["Location"]) == (303, "/console/payouts?done=payout_approved")
    assert operator_payout(stack, shop, first)["status"] in ("pending", "in_transit", "paid")

    shown = client.get(f"{base(stack)}/payouts?done=payout_approved", timeout=30)
    assert 'data-notice="payout_approved"' in shown.text and "O pagamento foi aprovado." in shown.text
    assert f'data-payout="{first}"' not in shown.text  # out of the approval index

    empty_reason = client.post(f"{base(stack)}/payouts/{second}/reject", data={"csrf_token": csrf_of(shown)})
    assert (empty_reason.status_code, main_of(empty_reason)["data-code"]) == (400, "invalid_request")
    assert operator_payout(stack, shop, second)["status"] == "waiting_for_approval"
    rejected = client.post(
        f"{base(stack)}/payouts/{second}/reject",
        data={"csrf_token": csrf_of(shown), "reason": "unknown recipient"},
        allow_redirects=False,
    )
    assert (rejected.status_code, rejected.headers["Location"]) == (303, "/console/payouts?done=payout_rejected")
    answer = operator_payout(stack, shop, second)
    assert (answer["status"], answer["failure_message"]) == ("rejected", "unknown recipient")
    assert f'data-payout="{second}"' not in client.get(f"{base(stack)}/payouts", timeout=30).text

    again = client.post(f"{base(stack)}/payouts/{first}/approve", data={"csrf_token": csrf_of(shown)})
    assert (again.status_code, main_of(again)["data-code"]) == (409, "invalid_state")
    assert 'href="/console/payouts"' in again.text  # back to the list


def test_concurrent_approve_and_reject_one_wins_and_the_payout_leaves_the_list(stack: RunningStack) -> None:
    shop, payout_id = waiting_payout(stack)
    client = signed_in(stack)
    token = csrf_of(client.get(f"{base(stack)}/payouts", timeout=30))
    cookies = client.cookies.get_dict()

    def decide(index: int) -> int:
        action = "approve" if index % 2 == 0 else "reject"
        answer = requests.post(
            f"{base(stack)}/payouts/{payout_id}/{action}",
            data={"csrf_token": token, "reason": "race"},
            cookies=cookies,
            allow_redirects=False,
            timeout=30,
        )
        return answer.status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = sorted(pool.map(decide, range(6)))
    assert statuses == [303] + [409] * 5
    assert operator_payout(stack, shop, payout_id)["status"] != "waiting_for_approval"
    assert f'data-payout="{payout_id}"' not in client.get(f"{base(stack)}/payouts", timeout=30).text


# ---------------------------------------------------------------- accounts and languages
def test_an_account_page_in_english_and_a_refused_suspension(stack: RunningStack) -> None:
    shop = Merchant(stack)
    client = signed_in(stack)
    found = client.get(f"{base(stack)}/accounts?q={shop.account['id']}&lang=en", allow_redirects=False)
    assert (found.status_code, found.headers["Location"]) == (303, f"/console/accounts/{shop.account['id']}")
    page = client.get(f"{base(stack)}/accounts/{shop.account['id']}", timeout=30)
    assert (page.status_code, page.headers["Content-Language"], main_of(page)["data-status"]) == (200, "en", "active")
    assert "Issue a key" in page.text

    suspended = client.post(
        f"{base(stack)}/accounts/{shop.account['id']}/suspend",
        data={"csrf_token": csrf_of(page), "reason": "fraud review"},
        allow_redirects=False,
    )
    assert suspended.headers["Location"] == f"/console/accounts/{shop.account['id']}?done=account_suspended"
    assert shop.call("GET", "/v1/balance").json()["code"] == "account_suspended"
    again = client.post(
        f"{base(stack)}/accounts/{shop.account['id']}/suspend", data={"csrf_token": csrf_of(page), "reason": "x"}
    )
    assert (again.status_code, main_of(again)["data-code"]) == (409, "invalid_state")
    unknown = client.get(f"{base(stack)}/accounts/01ARZ3NDEKTSV4RRFFQ69G5FAV", timeout=30)
    assert (unknown.status_code, main_of(unknown)["data-code"]) == (404, "not_found")


# ---------------------------------------------------------------- every page, its data and its forms
def test_a_payment_with_its_events_and_refunds_and_a_dispute_decided_from_the_console(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop, "300.00")
    refunded = refund(shop, pid, "50.00").json()
    assert refunded["money"] == {"amount": "50.00", "currency": "MZN"}, refunded
    client = signed_in(stack)

    listed = client.get(f"{base(stack)}/accounts/{shop.account['id']}/payments?mode=test", timeout=30)
    assert (listed.status_code, main_of(listed)["data-page"]) == (200, "payments")
    assert f'data-payment="{pid}"' in listed.text
    # the merchant list's filters (docs/lists.md), through the same list index
    account_payments = f"{base(stack)}/accounts/{shop.account['id']}/payments"
    succeeded = client.get(f"{account_payments}?mode=test&status=succeeded&network=mpesa&amount_gte=300", timeout=30)
    assert re.findall(r'data-payment="([0-9A-Z]+)" data-status="([a-z_]+)"', succeeded.text) == [(pid, "succeeded")]
    assert 'value="succeeded"' in succeeded.text  # the form shows what was asked
    nothing = client.get(f"{account_payments}?mode=test&status=failed", timeout=30)
    assert 'data-empty="payments"' in nothing.text and f'data-payment="{pid}"' not in nothing.text
    live = client.get(f"{account_payments}?mode=live", timeout=30)
    assert 'data-empty="payments"' in live.text
    refused = client.get(f"{account_payments}?mode=test&status=paid", timeout=30)
    assert (refused.status_code, main_of(refused)["data-code"]) == (400, "invalid_request")
    page = client.get(f"{base(stack)}/payments/{pid}", timeout=30)
    assert (page.status_code, main_of(page)["data-status"]) == (200, "succeeded")
    assert re.findall(r'data-event="([a-z_.]+)"', page.text)[0] == "payment.created"
    assert f'data-refund="{refunded["provider_refund_id"]}"' in page.text and "50,00\xa0MTn" in page.text
    found = client.get(f"{base(stack)}/payments?q={pid}", allow_redirects=False, timeout=30)
    assert found.headers["Location"] == f"/console/payments/{pid}"

    dispute_id = open_dispute(stack, shop, pid, amount={"amount": "100.00", "currency": "MZN"}).json()["dispute_id"]
    disputes = client.get(f"{base(stack)}/accounts/{shop.account['id']}/disputes?mode=test", timeout=30)
    assert f'data-dispute="{dispute_id}"' in disputes.text
    open_ones = f"{base(stack)}/accounts/{shop.account['id']}/disputes?mode=test&status=needs_response&payment={pid}"
    found_open = client.get(open_ones, timeout=30)
    assert re.findall(r'data-dispute="([0-9A-Z]+)" data-status="([a-z_]+)"', found_open.text) == [
        (dispute_id, "needs_response")
    ]
    won = client.get(f"{base(stack)}/accounts/{shop.account['id']}/disputes?mode=test&status=won", timeout=30)
    assert 'data-empty="disputes"' in won.text
    shown = client.get(f"{base(stack)}/disputes/{dispute_id}", timeout=30)
    assert (shown.status_code, main_of(shown)["data-status"]) == (200, "needs_response")
    decided = client.post(
        f"{base(stack)}/disputes/{dispute_id}/decide",
        data={"csrf_token": csrf_of(shown), "outcome": "won", "note": "Issuer ruled for the merchant"},
        allow_redirects=False,
    )
    assert decided.headers["Location"] == f"/console/disputes/{dispute_id}?done=dispute_decided"
    answer = shop.call("GET", f"/v1/disputes/{dispute_id}").json()
    assert (answer["status"], answer["decision"]["note"]) == ("won", "Issuer ruled for the merchant")
    after = client.get(f"{base(stack)}/disputes/{dispute_id}?done=dispute_decided", timeout=30)
    assert (main_of(after)["data-status"], "A disputa foi decidida." in after.text) == ("won", True)
    assert "/decide" not in after.text  # no decision form once decided

    assert client.get(f"{base(stack)}/payments/NOT-A-ULID", timeout=30).status_code == 404
    unknown = client.get(f"{base(stack)}/no-such-page", timeout=30)
    assert (unknown.status_code, unknown.headers["Content-Type"], main_of(unknown)["data-code"]) == (
        404,
        "text/html; charset=utf-8",
        "not_found",
    )
    anonymous = requests.get(f"{base(stack)}/no-such-page", allow_redirects=False, timeout=30)
    assert (anonymous.status_code, anonymous.headers["Location"]) == (303, "/console/sign-in")
    bad_mode = client.get(f"{base(stack)}/accounts/{shop.account['id']}/payments?mode=prod", timeout=30)
    assert (bad_mode.status_code, main_of(bad_mode)["data-code"]) == (400, "invalid_request")


def test_create_an_account_issue_and_revoke_a_key_and_set_limits_from_the_console(stack: RunningStack) -> None:
    client = signed_in(stack)
    form = client.get(f"{base(stack)}/accounts", timeout=30)
    created = client.post(f"{base(stack)}/accounts", data={"csrf_token": csrf_of(form), "name": "Farmácia Central"})
    assert (created.status_code, main_of(created)["data-page"]) == (201, "account-created")
    account_id = re.findall(r'href="/console/accounts/([0-9A-Z]{26})"', created.text)[0]
    assert re.search(r'data-secret="webhook_test">whsec_', created.text) is not None

    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    issued = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys", data={"csrf_token": csrf_of(page), "mode": "test"}
    )
    assert (issued.status_code, main_of(issued)["data-page"]) == (201, "key-created")
    (key,) = re.findall(r'data-secret="api_key">([^<]+)<', issued.text)
    (key_id,) = re.findall(r'data-key-id="([^"]+)"', issued.text)
    gateway = stack.state["regions"]["mz"]["gateway"]
    assert (
        requests.get(f"{gateway}/v1/balance", headers={"Authorization": f"Bearer {key}"}, timeout=30).status_code == 200
    )

    limits = client.post(
        f"{base(stack)}/accounts/{account_id}/payout-limits",
        data={
            "csrf_token": csrf_of(page),
            "mode": "test",
            "currency": "MZN",
            "approval_threshold": "10.00",
            "daily": "",
        },
        allow_redirects=False,
    )
    assert limits.headers["Location"] == f"/console/accounts/{account_id}?done=payout_limits_set"
    bad = client.post(
        f"{base(stack)}/accounts/{account_id}/limits",
        data={"csrf_token": csrf_of(page), "mode": "test", "currency": "MZN", "per_transaction": "-5"},
    )
    assert (bad.status_code, main_of(bad)["data-code"]) == (400, "invalid_amount")

    revoked = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys/revoke",
        data={"csrf_token": csrf_of(page), "key_id": key_id},
        allow_redirects=False,
    )
    assert revoked.headers["Location"] == f"/console/accounts/{account_id}?done=key_revoked"
    assert (
        requests.get(f"{gateway}/v1/balance", headers={"Authorization": f"Bearer {key}"}, timeout=30).status_code == 401
    )
    recon = client.get(f"{base(stack)}/reconciliation", timeout=30)
    assert (recon.status_code, main_of(recon)["data-page"]) == (200, "reconciliation")


def test_an_accounts_lists_and_reports_refuse_what_the_api_refuses(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    client = signed_in(stack)
    account = f"{base(stack)}/accounts/{shop.account['id']}"
    for name in ("refunds", "payouts", "payout-batches", "balance-transactions", "reports", "bill-payments"):
        page = client.get(f"{account}/{name}?mode=live", timeout=30)
        assert (page.status_code, main_of(page)["data-page"]) == (200, "account-payouts" if name == "payouts" else name)
    for name in ("disputes", "psp-transactions"):
        page = client.get(f"{account}/{name}?mode=live", timeout=30)
        assert (page.status_code, main_of(page)["data-page"], f'data-empty="{name}"' in page.text) == (200, name, True)
    not_partner = client.get(f"{account}/cash-deposits?mode=test", timeout=30)  # as GET /v1/cash-deposits answers
    assert (not_partner.status_code, main_of(not_partner)["data-code"]) == (403, "not_a_partner")
    for query, field in (
        ("refunds?mode=test&status=paid", "status"),
        ("payouts?mode=test&method=card", "method"),
        ("payout-batches?mode=test&created_gte=yesterday", "created_gte"),
        ("balance-transactions?mode=test&type=gift", "type"),
        ("refunds?mode=test&page_size=101", "page_size"),
        ("refunds?mode=test&page_token=not-a-token", "page_token"),
        ("balance-transactions?mode=test&page_token=not-a-token", "page_token"),
        ("disputes?mode=test&limit=101", "limit"),  # disputes page by `limit`, as GET /v1/disputes
        ("psp-transactions?mode=test&type=card", "type"),
        ("bill-payments?mode=test&status=paid", "status"),
    ):
        refused = client.get(f"{account}/{query}", timeout=30)
        assert (refused.status_code, main_of(refused).get("data-code")) == (400, "invalid_request"), query
        assert f"{field}:" in refused.text, refused.text

    start, end = "2026-11-01", "2026-11-02"
    asked = shop.call("POST", "/v1/reports", {"type": "payments", "interval_start": start, "interval_end": end})
    assert asked.status_code == 201, asked.text
    report_id = asked.json()["report_id"]
    written = eventually(
        lambda: shop.call("GET", f"/v1/reports/{report_id}", idempotency_key=None).json(),
        lambda report: report["status"] != "pending",
        timeout=90,
        interval=0.5,
    )
    assert written["status"] == "succeeded", written
    download = client.get(f"{account}/reports/{report_id}/download?mode=test", allow_redirects=False, timeout=30)
    assert download.status_code == 303 and "X-Amz-Signature=" in download.headers["Location"]
    assert (download.headers["Cache-Control"], download.headers["Referrer-Policy"]) == ("no-store", "no-referrer")
    for elsewhere in (
        f"{account}/reports/{report_id}/download?mode=live",  # the other mode's
        f"{base(stack)}/accounts/{other.account['id']}/reports/{report_id}/download?mode=test",  # another account's
    ):
        answer = client.get(elsewhere, allow_redirects=False, timeout=30)
        assert (answer.status_code, main_of(answer)["data-code"]) == (404, "not_found"), elsewhere

    form = client.get(f"{account}/reports?mode=test", timeout=30)
    body = {"mode": "test", "type": "balance_summary", "interval_start": start, "interval_end": end}
    no_csrf = client.post(f"{account}/reports", data=body, allow_redirects=False, timeout=30)
    assert (no_csrf.status_code, main_of(no_csrf)["data-code"]) == (403, "csrf_invalid")
    bad = client.post(f"{account}/reports", data={**body, "csrf_token": csrf_of(form), "timezone": "Mars/Olympus"})
    assert (bad.status_code, main_of(bad)["data-code"]) == (400, "invalid_request")
    assert [r["report_id"] for r in shop.call("GET", "/v1/reports", idempotency_key=None).json()["data"]] == [report_id]


def test_a_partners_cash_deposits_and_psp_transactions_are_listed_by_their_filters(stack: RunningStack) -> None:
    agent = partner(stack)
    made = confirm(agent, intent(agent, lookup(agent)["lookup_id"], "40.00").json()["intent_id"]).json()
    deposit = finished(agent, made["deposit_id"])  # settled: its status no longer moves
    assert deposit["status"] == "succeeded", deposit
    ref = reference()
    recorded = record(agent, psp_payment(ref, amount="120.00")).json()
    client = signed_in(stack)
    account = f"{base(stack)}/accounts/{agent.account['id']}"

    deposits = client.get(f"{account}/cash-deposits?mode=test&intent_id={deposit['intent_id']}", timeout=30)
    assert re.findall(r'data-deposit="([0-9A-Z]+)" data-status="([a-z]+)"', deposits.text) == [
        (deposit["deposit_id"], deposit["status"])
    ]
    none = client.get(f"{account}/cash-deposits?mode=test&amount_gte=41", timeout=30)
    assert 'data-empty="cash-deposits"' in none.text
    transactions = client.get(f"{account}/psp-transactions?mode=test&type=payment&amount_gte=100", timeout=30)
    assert re.findall(r'data-transaction="([0-9A-Z]+)" data-type="([a-z]+)"', transactions.text) == [
        (recorded["transaction_id"], "payment")
    ]
    assert ref in transactions.text and "120,00\xa0MTn" in transactions.text
    by_reference = client.get(f"{account}/psp-transactions?mode=test&originator_reference={ref}", timeout=30)
    assert f'data-transaction="{recorded["transaction_id"]}"' in by_reference.text
    live = client.get(f"{account}/psp-transactions?mode=live", timeout=30)
    assert 'data-empty="psp-transactions"' in live.text


def test_a_service_fee_is_set_from_the_console_and_a_bad_one_refused(stack: RunningStack) -> None:
    client = signed_in(stack)
    form = client.get(f"{base(stack)}/accounts", timeout=30)
    created = client.post(f"{base(stack)}/accounts", data={"csrf_token": csrf_of(form), "name": "Tarifas Lda"})
    account_id = re.findall(r'href="/console/accounts/([0-9A-Z]{26})"', created.text)[0]
    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    assert 'data-empty="fees">Sem taxa: aplica-se a tabela predefinida.<' in page.text
    rule = {"method": "emola", "currency": "MZN", "percent": "1.25", "fixed": "0.50", "minimum": "", "maximum": ""}
    saved = client.post(
        f"{base(stack)}/accounts/{account_id}/pricing",
        data={"csrf_token": csrf_of(page), **rule},
        allow_redirects=False,
    )
    assert saved.headers["Location"] == f"/console/accounts/{account_id}?done=fee_set"
    shown = client.get(f"{base(stack)}/accounts/{account_id}?done=fee_set", timeout=30)
    assert 'data-notice="fee_set">A taxa de serviço foi guardada.<' in shown.text
    row = re.search(r'<tr data-fee="emola-MZN">(.*?)</tr>', shown.text, re.S)
    assert row is not None and re.findall(r"<td>([^<]*)</td>", row.group(1)) == [
        "emola", "MZN", "1.25", "0.50", "0.00", "-",
    ]  # fmt: skip
    bad = client.post(
        f"{base(stack)}/accounts/{account_id}/pricing",
        data={"csrf_token": csrf_of(page), **rule, "percent": "150"},
    )
    assert (bad.status_code, main_of(bad)["data-code"]) == (400, "invalid_request")
    management = stack.state["regions"]["mz"]["management"]
    read = requests.get(
        f"{management}/v1/accounts/{account_id}/pricing",
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    ).json()
    assert read["fees"] == [rule | {"minimum": "0.00", "maximum": None}]  # the refused one changed nothing


def test_payout_batches_awaiting_approval_are_approved_and_rejected_from_the_console(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "100.00"})
    first, second = closed(shop, [line("200.00")]), closed(shop, [line("150.00")])
    for batch in (first, second):
        released = shop.call("POST", f"/v1/payout-batches/{batch['batch_id']}/release").json()
        assert released["status"] == "awaiting_approval", released
    client = signed_in(stack)
    listing = client.get(f"{base(stack)}/payouts", timeout=30)
    assert (listing.status_code, main_of(listing)["data-page"]) == (200, "payouts")
    assert f'data-batch="{first["batch_id"]}"' in listing.text and f'data-batch="{second["batch_id"]}"' in listing.text

    approved = client.post(
        f"{base(stack)}/payout-batches/{first['batch_id']}/approve",
        data={"csrf_token": csrf_of(listing)},
        allow_redirects=False,
    )
    assert approved.headers["Location"] == "/console/payouts?done=batch_approved"
    assert sent(shop, first["batch_id"])["status"] == "sent"
    rejected = client.post(
        f"{base(stack)}/payout-batches/{second['batch_id']}/reject",
        data={"csrf_token": csrf_of(listing), "reason": "not expected this month"},
        allow_redirects=False,
    )
    assert rejected.headers["Location"] == "/console/payouts?done=batch_rejected"
    assert shop.call("GET", f"/v1/payout-batches/{second['batch_id']}").json()["status"] == "rejected"

    after = client.get(f"{base(stack)}/payouts?done=batch_rejected", timeout=30)
    assert "O lote de pagamentos foi rejeitado." in after.text
    assert (
        f'data-batch="{first["batch_id"]}"' not in after.text and f'data-batch="{second["batch_id"]}"' not in after.text
    )
    again = client.post(
        f"{base(stack)}/payout-batches/{second['batch_id']}/approve", data={"csrf_token": csrf_of(after)}
    )
    assert (again.status_code, main_of(again)["data-code"]) == (409, "invalid_state")


def test_another_regions_account_is_421_wrong_region_on_this_regions_console(stack: RunningStack) -> None:
    elsewhere = stack.state["regions"]["regional-sa"]["management"]
    operator = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    account = requests.post(
        f"{elsewhere}/v1/accounts", json={"name": "Loja do Sul", "region": "regional-sa"}, headers=operator, timeout=30
    ).json()
    client = signed_in(stack)
    # the directory is a global table: 404 here until the account has replicated to mz
    eventually(
        lambda: client.get(f"{base(stack)}/accounts/{account['id']}", timeout=30), lambda r: r.status_code != 404
    )
    lists = [f"/accounts/{account['id']}/{name}?mode=test" for name in ("payments", "refunds", "reports")]
    for path in (f"/accounts/{account['id']}", *lists):
        answer = client.get(f"{base(stack)}{path}", timeout=30)
        assert (answer.status_code, main_of(answer)["data-code"]) == (421, "wrong_region"), path
        assert answer.headers["Service-Region"] == "regional-sa"
        link = re.findall(r'<a href="([^"]+)" data-elsewhere="regional-sa">', answer.text)
        assert link == [f"{elsewhere}/console{path.split('?')[0]}"], answer.text
    page = client.get(f"{base(stack)}/accounts", timeout=30)
    refused = client.post(
        f"{base(stack)}/accounts/{account['id']}/suspend", data={"csrf_token": csrf_of(page), "reason": "x"}
    )
    assert (refused.status_code, main_of(refused)["data-code"]) == (421, "wrong_region")
    assert f'<a href="{elsewhere}/console/accounts/{account["id"]}" data-elsewhere="regional-sa">' in refused.text
    read = requests.get(f"{elsewhere}/v1/accounts/{account['id']}", headers=operator, timeout=30).json()
    assert read["status"] == "active"


# ---------------------------------------------------------------- PSP applications and the audit trail
def test_a_psp_application_is_certified_and_approved_from_the_console(stack: RunningStack) -> None:
    from tests.e2e.test_psp_onboarding import PSP, Operator, submitted

    ops = Operator(stack)
    application_id = submitted(ops)
    client = signed_in(stack)
    listing = client.get(f"{base(stack)}/psp-applications", timeout=30)
    assert (listing.status_code, main_of(listing)["data-page"]) == (200, "psp-applications")
    assert f'data-application="{application_id}"' in listing.text and "Candidaturas de PSP" in listing.text

    page_url = f"{base(stack)}/psp-applications/{application_id}"
    page = client.get(page_url, timeout=30)
    assert 'data-status="submitted"' in page.text and 'data-certification="none"' in page.text
    refused = client.post(f"{page_url}/approve", data={"csrf_token": csrf_of(page), "reason": "looks fine"})
    assert (refused.status_code, main_of(refused)["data-code"]) == (409, "invalid_state")  # not certified yet

    started = client.post(f"{page_url}/certification-runs", data={"csrf_token": csrf_of(page)}, allow_redirects=False)
    assert (started.status_code, started.headers["Location"]) == (
        303,
        f"/console/psp-applications/{application_id}?done=certification_started",
    )
    again = client.post(f"{page_url}/certification-runs", data={"csrf_token": csrf_of(page)})
    assert (again.status_code, main_of(again)["data-code"]) == (409, "certification_running")
    # the simulated payer answers 3 s after the prompt
    page = eventually(
        lambda: client.get(page_url, timeout=30), lambda p: 'data-certification="passed"' in p.text, timeout=60
    )

    approved = client.post(
        f"{page_url}/approve", data={"csrf_token": csrf_of(page), "reason": "KYB and certification done"}
    )
    assert approved.status_code == 200 and 'data-status="approved"' in approved.text, main_of(approved)
    assert 'data-notice="application_approved"' in approved.text
    listed = ops.ok("GET", "/v1/psps")["psps"]
    assert next(p for p in listed if p["psp_id"] == PSP)["pilot"]["in_pilot"] is True
    ops.call("PUT", f"/v1/psps/{PSP}/pilot", {"in_pilot": False})  # what the matrix says of it

    trail = client.get(
        f"{base(stack)}/audit", params={"target_type": "psp_application", "target_id": application_id}, timeout=30
    )
    assert main_of(trail)["data-page"] == "audit"
    actions = re.findall(r'data-action="([a-z_]+)"', trail.text)
    assert actions[:5] == [  # newest first
        "approve_psp_application",
        "start_psp_certification",  # the refused second start
        "start_psp_certification",
        "approve_psp_application",  # refused: not certified
        "submit_psp_application",
    ]
    assert actions.count("approve_psp_application") == 2  # the refused one and the approval


def test_the_audit_trail_names_the_console_operator_and_keeps_refusals(stack: RunningStack) -> None:
    _shop, payout_id = waiting_payout(stack)
    client = signed_in(stack)
    listing = client.get(f"{base(stack)}/payouts", timeout=30)
    approve = f"{base(stack)}/payouts/{payout_id}/approve"
    held = client.cookies.pop(CSRF)
    missing = client.post(approve, data={"csrf_token": csrf_of(listing)}, allow_redirects=False, timeout=30)
    assert (missing.status_code, main_of(missing)["data-code"]) == (403, "csrf_missing")
    assert held  # the refusal's page issued a fresh token and its cookie: go on from it
    done = client.post(approve, data={"csrf_token": csrf_of(missing)}, allow_redirects=False, timeout=30)
    assert done.status_code == 303

    found = records(stack, target_type="payout", target_id=payout_id)
    assert [(r["surface"], r["action"], r["outcome"]["status"], r["outcome"]["code"]) for r in found] == [
        ("console", "approve_payout", 303, None),
        ("console", "approve_payout", 403, "csrf_missing"),
    ]
    assert {r["actor"]["id"] for r in found} == {"operator"}
    assert found[0]["request"] == {"csrf_token": "[redacted]"}
    assert (found[0]["before"]["status"], found[0]["after"]["status"]) == ("waiting_for_approval", "pending")

    page = client.get(f"{base(stack)}/audit", params={"target_type": "payout", "target_id": payout_id}, timeout=30)
    assert re.findall(r'data-outcome="(\d+)"', page.text) == ["303", "403"]
    assert 'data-actor="operator"' in page.text and "Registo de auditoria" in page.text
    record = client.get(f"{base(stack)}/audit/{found[0]['id']}", timeout=30)
    assert (record.status_code, main_of(record)["data-page"]) == (200, "audit-record")
    assert 'data-part="before"' in record.text and "waiting_for_approval" in record.text
    bad = client.get(f"{base(stack)}/audit", params={"since": "yesterday"}, timeout=30)
    assert (bad.status_code, main_of(bad)["data-code"]) == (400, "invalid_request")


def test_accounts_are_found_by_the_start_of_their_name(stack: RunningStack) -> None:
    from ulid import ULID

    tag = str(ULID())[-8:].lower()
    management = stack.state["regions"]["mz"]["management"]
    headers = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    made = {}
    for name in (f"Farmácia Central {tag} Maputo", f"FARMACIA central {tag} Beira"):
        answer = requests.post(
            f"{management}/v1/accounts", json={"name": name, "region": "mz"}, headers=headers, timeout=30
        )
        assert answer.status_code == 201, answer.text
        made[answer.json()["id"]] = name
    elsewhere = requests.post(
        f"{stack.state['regions']['regional-sa']['management']}/v1/accounts",
        json={"name": f"Farmacia Central {tag} Joanesburgo", "region": "regional-sa"},
        headers=headers,
        timeout=30,
    )
    assert elsewhere.status_code == 201, elsewhere.text

    client = signed_in(stack)
    found = client.get(f"{base(stack)}/accounts", params={"q": f"farmacia  CENTRAL {tag}"}, timeout=30)
    assert (found.status_code, main_of(found)["data-page"]) == (200, "accounts")
    rows = re.findall(r'data-account="([0-9A-Z]+)"', found.text)
    assert sorted(rows) == sorted(made)  # both of this region, in name order; not the other region's
    assert rows == sorted(made, key=lambda account_id: made[account_id].casefold().replace("á", "a"))
    assert elsewhere.json()["id"] not in found.text

    none = client.get(f"{base(stack)}/accounts", params={"q": f"no such shop {tag}"}, timeout=30)
    assert 'data-empty="accounts"' in none.text
    by_id = client.get(f"{base(stack)}/accounts", params={"q": next(iter(made))}, allow_redirects=False, timeout=30)
    assert (by_id.status_code, by_id.headers["Location"]) == (303, f"/console/accounts/{next(iter(made))}")
    nothing = client.get(f"{base(stack)}/accounts", params={"q": "\u0301"}, timeout=30)
    assert (nothing.status_code, main_of(nothing)["data-code"]) == (400, "invalid_request")


def test_a_post_without_a_session_is_recorded_as_refused_not_as_the_action(stack: RunningStack) -> None:
    shop, payout_id = waiting_payout(stack)
    stale = signed_in(stack)
    listing = stale.get(f"{base(stack)}/payouts", timeout=30)
    kept = {SESSION: stale.cookies[SESSION], CSRF: stale.cookies[CSRF]}
    out = stale.post(
        f"{base(stack)}/sign-out", data={"csrf_token": csrf_of(listing)}, allow_redirects=False, timeout=30
    )
    assert out.status_code == 303
    answer = requests.post(  # the signed-out tab's form, with its old cookies
        f"{base(stack)}/payouts/{payout_id}/approve",
        cookies=kept,
        data={"csrf_token": csrf_of(listing)},
        allow_redirects=False,
        timeout=30,
    )
    assert (answer.status_code, answer.headers["X-Error-Code"]) == (401, "unauthorized")

    found = records(stack, target_type="payout", target_id=payout_id)
    assert [(r["surface"], r["action"], r["outcome"]["status"], r["outcome"]["code"]) for r in found] == [
        ("console", "approve_payout", 401, "unauthorized")
    ]
    assert found[0]["actor"]["id"] == "anonymous"
    assert operator_payout(stack, shop, payout_id)["status"] == "waiting_for_approval"  # nothing was done


def test_a_business_is_linked_to_an_account_from_the_console(stack: RunningStack) -> None:
    """docs/onboarding.md, "Linking an existing gateway account": the account page says which
    business collects through it and links one; a business that collects already is refused."""
    from ulid import ULID

    from tests.e2e.collection_client import Collection
    from tests.e2e.management_client import Operator

    operator, collection = Operator(stack, "mz"), Collection(stack, "mz")
    collection.ensure_licence()
    business = str(ULID())
    token = collection.mint(account_id=business, sub="console-owner")
    assert collection.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200
    account, other = operator.created("Escola da Consola")["id"], operator.created("Outra Escola")["id"]
    client = signed_in(stack)
    page = client.get(f"{base(stack)}/accounts/{account}", timeout=30)
    assert '<td data-field="business">-</td>' in page.text and 'name="business_account_id"' in page.text
    linked = client.post(
        f"{base(stack)}/accounts/{account}/business-link",
        data={"csrf_token": csrf_of(page), "business_account_id": business},
        allow_redirects=False,
    )
    assert linked.headers["Location"] == f"/console/accounts/{account}?done=business_linked"
    shown = client.get(f"{base(stack)}/accounts/{account}?done=business_linked", timeout=30)
    assert 'data-notice="business_linked">O negócio passa a cobrar através desta conta.<' in shown.text
    assert f'<td data-field="business"><code>{business}</code></td>' in shown.text
    assert 'name="business_account_id"' not in shown.text
    assert operator.ok("GET", f"/v1/accounts/{business}/gateway-account")["gateway_account_id"] == account
    refused = client.post(
        f"{base(stack)}/accounts/{other}/business-link",
        data={"csrf_token": csrf_of(page), "business_account_id": business},
    )
    assert (refused.status_code, main_of(refused)["data-code"]) == (409, "invalid_state")
    assert operator.ok("GET", f"/v1/accounts/{business}/gateway-account")["gateway_account_id"] == account


# ---------------------------------------------------------------- an approver and a support agent (issue 37, item 6)
def row_of(page: requests.Response, attribute: str, value: str) -> str:
    """The table row marked `attribute`="`value`" on the page, whole."""
    found = re.search(rf'<tr {attribute}="{value}"[^>]*>.*?</tr>', page.text, re.DOTALL)
    assert found is not None, page.text
    return found.group(0)


def test_an_approver_sees_the_masked_destination_the_description_and_the_accounts_balance(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    to_wallet = payout(shop, wallet("+258841234567"), "1500.00", description="Salários de Novembro").json()
    to_bank = payout(shop, bank(), "1200.00").json()
    assert (to_wallet["status"], to_bank["status"]) == ("waiting_for_approval", "waiting_for_approval"), to_bank
    available = next(b for b in shop.call("GET", "/v1/balance").json()["balances"] if b["currency"] == "MZN")

    page = signed_in(stack).get(f"{base(stack)}/payouts", timeout=30)
    wallet_row = row_of(page, "data-payout", to_wallet["provider_payout_id"])
    assert 'data-destination="*********4567"' in wallet_row and "carteira móvel mpesa" in wallet_row
    assert "Salários de Novembro" in wallet_row and "a aguardar aprovação" in wallet_row  # statuses in Portuguese
    assert f'data-available="{available["available"]}"' in wallet_row  # the account's balance, as GET /v1/balance
    bank_row = row_of(page, "data-payout", to_bank["provider_payout_id"])
    assert f'data-destination="{"*" * 17}{NIB_DIGITS[-4:]}"' in bank_row and "Ana Machava" in bank_row
    assert "transferência bancária" in bank_row and f'data-available="{available["available"]}"' in bank_row
    assert "841234567" not in page.text and NIB_DIGITS not in page.text  # never a full number


def limits_shown(page: requests.Response) -> dict[str, str]:
    """The values the account page's limits forms hold, by their field's id."""
    pattern = (
        r'id="((?:charge|payout)-(?:test|live)-[A-Z]{3}-[a-z_]+)" name="[a-z_]+" maxlength="24"(?: value="([^"]*)")?'
    )
    return {field_id: value for field_id, value in re.findall(pattern, page.text) if value}


def test_the_account_page_shows_the_limits_and_saving_one_field_keeps_the_others(stack: RunningStack) -> None:
    shop = Merchant(stack)
    account = shop.account["id"]
    set_payout_limits(
        stack,
        shop,
        per_transaction={"MZN": "2000.00"},
        daily={"MZN": "9000.00", "USD": "50.00"},
        approval_threshold={"MZN": "1000.00"},
        debit_daily={"MZN": "70000.00"},
    )
    charge = {
        "mode": "test",
        "currencies": ["MZN"],
        "per_transaction": {"MZN": "3000.00"},
        "daily": {"MZN": "10000.00"},
    }
    assert manage(stack, "PUT", f"/v1/accounts/{account}/limits", charge).status_code == 200
    client = signed_in(stack)
    page = client.get(f"{base(stack)}/accounts/{account}", timeout=30)
    assert limits_shown(page) == {
        "charge-test-MZN-per_transaction": "3000.00",
        "charge-test-MZN-daily": "10000.00",
        "payout-test-MZN-per_transaction": "2000.00",
        "payout-test-MZN-daily": "9000.00",
        "payout-test-MZN-approval_threshold": "1000.00",
        "payout-test-USD-daily": "50.00",
    }

    def save(route: str, **fields: str) -> None:
        sent = {"csrf_token": csrf_of(page), "mode": "test", "currency": "MZN", **fields}
        answer = client.post(f"{base(stack)}/accounts/{account}/{route}", data=sent, allow_redirects=False)
        assert answer.status_code == 303, answer.text

    # One field filled, the others empty: only that one changes (docs/console.md, "Limits").
    save("payout-limits", approval_threshold="1500.00", per_transaction="", daily="", beneficiary_daily="")
    found = records(stack, target_type="account", target_id=account, action="set_payout_limits")
    record = next(r for r in found if r["surface"] == "console")  # newest first; the API's PUT is older
    assert record["after"] == {
        "per_transaction": {"MZN": "2000.00"},
        "daily": {"MZN": "9000.00", "USD": "50.00"},
        "beneficiary_daily": {},
        "approval_threshold": {"MZN": "1500.00"},
        "debit_daily": {"MZN": "70000.00"},  # not on the form: kept
    }, record
    save("payout-limits", daily="none")  # "none" removes one ceiling, of that currency only
    save("limits", per_transaction="4000.00")
    shown = limits_shown(client.get(f"{base(stack)}/accounts/{account}", timeout=30))
    assert shown == {
        "charge-test-MZN-per_transaction": "4000.00",
        "charge-test-MZN-daily": "10000.00",
        "payout-test-MZN-per_transaction": "2000.00",
        "payout-test-MZN-approval_threshold": "1500.00",
        "payout-test-USD-daily": "50.00",
    }
    bad = client.post(
        f"{base(stack)}/accounts/{account}/payout-limits",
        data={"csrf_token": csrf_of(page), "mode": "test", "currency": "MZN", "daily": "-1"},
    )
    assert (bad.status_code, main_of(bad)["data-code"]) == (400, "invalid_amount")


def test_an_accounts_keys_are_listed_rolled_with_an_overlap_and_revoked_with_the_key_as_target(
    stack: RunningStack,
) -> None:
    client = signed_in(stack)
    form = client.get(f"{base(stack)}/accounts", timeout=30)
    created = client.post(f"{base(stack)}/accounts", data={"csrf_token": csrf_of(form), "name": "Papelaria Sol"})
    account_id = re.findall(r'href="/console/accounts/([0-9A-Z]{26})"', created.text)[0]
    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    assert 'data-empty="api-keys"' in page.text
    issued = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys", data={"csrf_token": csrf_of(page), "mode": "test"}
    )
    (old_secret,) = re.findall(r'data-secret="api_key">([^<]+)<', issued.text)
    (old_id,) = re.findall(r'data-key-id="([^"]+)"', issued.text)

    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    row = row_of(page, "data-key", old_id)
    assert 'data-key-status="active"' in row and old_secret[-4:] in row and "activa" in row
    assert 'data-last-used=""' in row and "não registado" in row  # not used yet
    assert old_secret not in page.text  # the list shows the hint, never the secret

    rolled = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys/{old_id}/roll",
        data={"csrf_token": csrf_of(page), "overlap_seconds": "3600"},
    )
    assert (rolled.status_code, main_of(rolled)["data-page"], rolled.headers["Cache-Control"]) == (
        201,
        "key-created",
        "no-store",
    )
    (new_secret,) = re.findall(r'data-secret="api_key">([^<]+)<', rolled.text)
    (new_id,) = re.findall(r'data-key-id="([^"]+)"', rolled.text)
    gateway = stack.state["regions"]["mz"]["gateway"]

    def balance_with(secret: str) -> int:
        return requests.get(
            f"{gateway}/v1/balance", headers={"Authorization": f"Bearer {secret}"}, timeout=30
        ).status_code

    assert (balance_with(new_secret), balance_with(old_secret)) == (200, 200)  # the old one works for the overlap
    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    assert 'data-key-status="rolled"' in row_of(page, "data-key", old_id) and "renovada" in page.text
    assert 'data-key-status="active"' in row_of(page, "data-key", new_id)
    for used in (old_id, new_id):  # each called GET /v1/balance: its last use is recorded
        assert re.search(r'data-last-used="20\d\d-', row_of(page, "data-key", used)), row_of(page, "data-key", used)
    assert old_secret not in page.text and new_secret not in page.text
    (roll_record,) = records(stack, target_type="api_key", target_id=old_id)
    assert (roll_record["surface"], roll_record["account_id"], roll_record["after"]["id"]) == (
        "console",
        account_id,
        new_id,
    )
    assert new_secret not in str(roll_record) and old_secret not in str(roll_record)
    again = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys/{old_id}/roll", data={"csrf_token": csrf_of(page)}
    )
    assert (again.status_code, main_of(again)["data-code"]) == (409, "already_rolled")
    elsewhere = client.post(
        f"{base(stack)}/accounts/{Merchant(stack).account['id']}/api-keys/{new_id}/roll",
        data={"csrf_token": csrf_of(page)},
    )
    assert (elsewhere.status_code, main_of(elsewhere)["data-code"]) == (404, "not_found")
    not_theirs = client.post(  # another account's page revokes none of this account's keys
        f"{base(stack)}/accounts/{Merchant(stack).account['id']}/api-keys/revoke",
        data={"csrf_token": csrf_of(page), "key_id": old_id},
    )
    assert (not_theirs.status_code, main_of(not_theirs)["data-code"]) == (404, "not_found")
    assert balance_with(old_secret) == 200  # still working, for its overlap

    revoked = client.post(
        f"{base(stack)}/accounts/{account_id}/api-keys/revoke",
        data={"csrf_token": csrf_of(page), "key_id": new_id},  # the list's button: the key's id, hidden
        allow_redirects=False,
    )
    assert revoked.headers["Location"] == f"/console/accounts/{account_id}?done=key_revoked"
    assert balance_with(new_secret) == 401
    # the key's records: the roll refused elsewhere (404, the key named in its path), then the revoke
    refused, revoke_record = sorted(records(stack, target_type="api_key", target_id=new_id), key=lambda r: r["id"])
    assert (refused["action"], refused["outcome"]) == ("roll_api_key", {"status": 404, "code": "not_found"})
    assert (revoke_record["action"], revoke_record["after"]["status"]) == ("revoke_api_key", "revoked")
    page = client.get(f"{base(stack)}/accounts/{account_id}", timeout=30)
    assert 'data-key-status="revoked"' in row_of(page, "data-key", new_id) and "revogada" in page.text


def test_refund_state_and_statuses_show_in_portuguese_on_the_payment_pages(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop, "300.00")
    client = signed_in(stack)
    payment_page = f"{base(stack)}/payments/{pid}"
    listed = f"{base(stack)}/accounts/{shop.account['id']}/payments?mode=test"
    assert "data-refund-state" not in client.get(payment_page, timeout=30).text

    assert refund(shop, pid, "100.00").status_code == 200
    partly = eventually(lambda: client.get(payment_page, timeout=30), lambda p: "data-refund-state" in p.text)
    assert 'data-refund-state="partially_refunded"' in partly.text, partly.text
    assert "parcialmente reembolsado: 100,00\xa0MTn" in partly.text and "bem-sucedido" in partly.text
    assert main_of(partly)["data-status"] == "succeeded"  # the API's status, unchanged
    assert 'data-refund-state="partially_refunded"' in row_of(client.get(listed, timeout=30), "data-payment", pid)

    assert refund(shop, pid, "200.00").status_code == 200
    whole = eventually(lambda: client.get(payment_page, timeout=30), lambda p: 'data-refund-state="refunded"' in p.text)
    assert 'data-refund-state="refunded"' in whole.text and "(reembolsado)" in whole.text
    assert 'data-refund-state="refunded"' in row_of(client.get(listed, timeout=30), "data-payment", pid)
    english = client.get(f"{payment_page}?lang=en", timeout=30)
    assert "(refunded)" in english.text and "succeeded" in english.text
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == "succeeded"

    dispute_id = open_dispute(stack, shop, paid(shop, "150.00")).json()["dispute_id"]
    assert "aguarda resposta" in client.get(f"{base(stack)}/disputes/{dispute_id}?lang=pt", timeout=30).text
    disputes = client.get(f"{base(stack)}/accounts/{shop.account['id']}/disputes?mode=test", timeout=30)
    assert "aguarda resposta" in row_of(disputes, "data-dispute", dispute_id)


def test_account_and_biller_creation_name_their_target_in_the_audit_trail(stack: RunningStack) -> None:
    client = signed_in(stack)
    form = client.get(f"{base(stack)}/accounts", timeout=30)
    created = client.post(f"{base(stack)}/accounts", data={"csrf_token": csrf_of(form), "name": "Livraria Nova"})
    account_id = re.findall(r'href="/console/accounts/([0-9A-Z]{26})"', created.text)[0]
    (record,) = records(stack, target_type="account", target_id=account_id, action="create_account")
    assert (record["account_id"], record["after"]["id"], record["after"]["name"]) == (
        account_id,
        account_id,
        "Livraria Nova",
    )
    assert "whsec_" not in str(record)  # the signing secrets shown once are not kept

    body = {"name": "Municipio de Boane", "category": "municipal", "credit_account": NIB_DIGITS}
    biller = manage(stack, "POST", "/v1/billers", body)
    assert biller.status_code == 201, biller.text
    biller_id = biller.json()["biller_id"]
    (made,) = records(stack, target_type="biller", target_id=biller_id)
    assert (made["action"], made["after"]["biller_id"]) == ("create_biller", biller_id)

    trail = client.get(f"{base(stack)}/audit", params={"target_type": "account", "target_id": account_id}, timeout=30)
    assert f"account <code>{account_id}</code>" in trail.text
