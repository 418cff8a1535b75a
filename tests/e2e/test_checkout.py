"""Hosted checkout over HTTP: POST /v1/payments, the payer's page and its CSRF-protected form,
cancel, and expiry (on touch and by the scheduled sweep)."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.expected import problem

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def checkout(shop: Merchant, amount: str = "250.00", **extra: Any) -> requests.Response:
    body = {"amount": amount, "currency": "MZN", "callback_url": "https://loja.example/hooks", **extra}
    return shop.call("POST", "/v1/payments", body)


def open_page(url: str) -> tuple[requests.Session, str, str]:
    """The payer's browser: a session holding the page's CSRF cookie, the page, and its form token."""
    browser = requests.Session()
    page = browser.get(url, timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    token = re.search(r"name='csrf_token' value='([^']+)'", page.text)
    assert token is not None
    return browser, page.text, token.group(1)


def pay(browser: requests.Session, url: str, token: str, phone: str, network: str = "mpesa") -> requests.Response:
    form = {"csrf_token": token, "network": network, "phone_number": phone}
    return browser.post(f"{url}/pay", data=form, timeout=30)


def status_on(page: str) -> str:
    found = re.search(r"data-status='([a-z_]+)'", page)
    assert found is not None
    return found.group(1)


def test_a_checkout_answers_its_url_and_waits_for_the_payer(stack: RunningStack, shop: Merchant) -> None:
    payment_id = str(ULID())
    before = datetime.now(UTC).replace(microsecond=0)
    created = checkout(shop, payment_id=payment_id, metadata={"order": "A-17"}, return_url="https://loja.example/ok")
    body = created.json()
    pid = body["provider_payment_id"]
    assert created.status_code == 201
    assert body == {
        "payment_id": payment_id,
        "provider_payment_id": pid,
        "status": "requires_payment_method",
        "money": {"amount": "250.00", "currency": "MZN"},
        "source": None,
        "checkout_url": f"{shop.gateway}/checkout/{pid}",
        "expires_at": body["expires_at"],
        "next_action": None,
        "authorized_amount": "0.00",
        "captured_amount": "0.00",
        "refunded_amount": "0.00",
        "failure_code": None,
        "failure_message": None,
        "last_updated_at": body["last_updated_at"],
    }
    deadline = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert before + timedelta(hours=24) <= deadline <= datetime.now(UTC) + timedelta(hours=24)
    assert shop.call("GET", f"/v1/payments/{pid}").json() == body
    again = checkout(shop, payment_id=payment_id, metadata={"order": "A-17"}, return_url="https://loja.example/ok")
    assert (again.status_code, again.json()) == (201, body)  # the same Idempotency-Key is not needed
    other = checkout(shop, amount="9.00", payment_id=payment_id)
    assert other.json() == problem(
        409,
        "Conflict",
        "payment_id_reused",
        "This payment_id belongs to another payment (different amount or details).",
    )
    assert events_of(stack, pid) == ["payment.created"]


def test_the_payer_pays_on_the_hosted_page(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browser, page, token = open_page(url)
    assert status_on(page) == "requires_payment_method" and "250.00 MZN" in page and "Test mode" in page

    wrong_number = pay(browser, url, token, "+258861234567")  # an e-Mola number for M-Pesa
    assert wrong_number.status_code == 400
    assert status_on(wrong_number.text) == "requires_payment_method"
    assert "<p class='error' role='alert'>" in wrong_number.text
    assert "M-Pesa numbers start with +258 84 or 85" in wrong_number.text
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == "requires_payment_method"

    browser, _, token = open_page(url)
    paid = pay(browser, url, token, "+258840000000")
    assert (paid.status_code, status_on(paid.text)) == (200, "succeeded")
    snapshot = shop.call("GET", f"/v1/payments/{pid}").json()
    assert (snapshot["status"], snapshot["captured_amount"], snapshot["expires_at"]) == ("succeeded", "250.00", None)
    assert snapshot["source"] == wallet("+258840000000")
    assert events_of(stack, pid) == ["payment.created", "payment.succeeded"]
    page = browser.get(url, timeout=30).text
    assert status_on(page) == "succeeded" and "<form" not in page


def test_the_form_needs_its_csrf_cookie_and_token(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    bare = requests.post(f"{url}/pay", data={"network": "mpesa", "phone_number": "+258840000000"}, timeout=30)
    assert bare.json() == problem(
        403, "Forbidden", "csrf_missing", "The form needs its CSRF cookie and token; reload the page."
    )
    browser, _, token = open_page(url)
    forged = pay(browser, url, token[::-1], "+258840000000")
    assert forged.json() == problem(
        403, "Forbidden", "csrf_invalid", "The form's CSRF token does not match its cookie; reload the page."
    )
    assert shop.call("GET", f"/v1/payments/{url.rsplit('/', 1)[1]}").json()["status"] == "requires_payment_method"


def test_a_failed_payment_shows_why_on_the_page(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(url)
    failed = pay(browser, url, token, "+258840000001")
    assert status_on(failed.text) == "failed" and "The payer&#x27;s wallet balance is too low." in failed.text


def test_cancel_while_the_payer_has_not_paid(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    canceled = shop.call("POST", f"/v1/payments/{pid}/cancel")
    assert (canceled.status_code, canceled.json()["status"], canceled.json()["expires_at"]) == (200, "canceled", None)
    assert shop.call("POST", f"/v1/payments/{pid}/cancel").json() == problem(
        409, "Conflict", "invalid_state", "Cannot cancel a payment that is canceled."
    )
    browser, page = requests.Session(), requests.get(url, timeout=30).text
    assert status_on(page) == "canceled" and "<form" not in page
    late = browser.post(f"{url}/pay", data={"csrf_token": "x", "network": "mpesa"}, cookies={"mzpay_csrf": "x"})
    assert late.json() == problem(409, "Conflict", "invalid_state", "Cannot pay a payment that is canceled.")


def test_a_payment_waiting_for_the_payers_action_can_be_canceled(shop: Merchant) -> None:
    pid = shop.charge(wallet("+258841234567")).json()["provider_payment_id"]  # a prompt to approve
    assert shop.call("POST", f"/v1/payments/{pid}/cancel").json()["status"] == "canceled"
    succeeded = shop.charge(wallet("+258840000000")).json()["provider_payment_id"]
    assert shop.call("POST", f"/v1/payments/{succeeded}/cancel").json() == problem(
        409, "Conflict", "invalid_state", "Cannot cancel a payment that is succeeded."
    )


def test_cancel_and_pay_race_one_wins(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browsers = [open_page(url) for _ in range(5)]

    def attempt(index: int) -> str:
        if index % 2:
            answer = shop.call("POST", f"/v1/payments/{pid}/cancel")
            return "canceled" if answer.status_code == 200 else answer.json()["code"]
        browser, _, token = browsers[index // 2]
        answer = pay(browser, url, token, "+258840000000")
        return status_on(answer.text) if answer.status_code == 200 else answer.json()["code"]

    with ThreadPoolExecutor(10) as pool:
        outcomes = list(pool.map(attempt, range(10)))
    winners = [o for o in outcomes if o in ("canceled", "succeeded")]
    assert len(winners) == 1, outcomes
    assert outcomes.count("invalid_state") == 9
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == winners[0]


@pytest.mark.parametrize(
    ("body", "code", "field", "message"),
    [
        ({"amount": "0.00"}, "invalid_amount", "amount", "the amount of a checkout is more than zero"),
        (
            {"amount": "-5.00"},
            "invalid_amount",
            "amount",
            "amount must be a non-negative decimal string such as '150.00'",
        ),
        ({"currency": "mzn"}, "invalid_currency", "currency", "currency must be 3 upper-case letters (ISO 4217)"),
        ({"currency": "EUR"}, "unsupported_currency", "currency", "no method takes EUR"),
        (
            {"callback_url": "ftp://x"},
            "invalid_callback_url",
            "callback_url",
            "callback_url must be an absolute http:// or https:// URL",
        ),
        ({"expires_in": 0}, "invalid_request", "expires_in", "expires_in is between 1 and 604800 seconds in test mode"),
    ],
)
def test_checkout_validation(stack: RunningStack, body: dict[str, Any], code: str, field: str, message: str) -> None:
    fresh = Merchant(stack)
    response = fresh.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN", **body})
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["errors"] == [
        {"field": field, "code": code if code != "invalid_request" else "invalid_value", "message": message}
    ]


def test_a_live_checkout_lasts_at_least_thirty_minutes(shop: Merchant) -> None:
    response = shop.call(
        "POST", "/v1/payments", {"amount": "10.00", "currency": "MZN", "expires_in": 60}, key=shop.live_key
    )
    assert response.json()["errors"] == [
        {
            "field": "expires_in",
            "code": "invalid_value",
            "message": "expires_in is between 1800 and 604800 seconds in live mode",
        }
    ]


def test_an_expired_checkout_is_expired_when_touched(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop, expires_in=1).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    time.sleep(2.1)
    read = shop.call("GET", f"/v1/payments/{pid}").json()
    assert (read["status"], read["expires_at"]) == ("expired", None)
    assert events_of(stack, pid) == ["payment.created", "payment.expired"]
    assert status_on(requests.get(url, timeout=30).text) == "expired"


def test_the_scheduled_sweep_expires_checkouts_nobody_touches(stack: RunningStack, shop: Merchant) -> None:
    pid = checkout(shop, expires_in=1).json()["provider_payment_id"]
    table = stack.state["resources"]["mz"]["PaymentsTable"]
    deadline = time.monotonic() + 20  # the local stack plays rate(1 minute) every 5 s
    status = "requires_payment_method"
    while time.monotonic() < deadline and status != "expired":
        time.sleep(0.5)
        item = stack.aws("dynamodb").get_item(TableName=table, Key={"pk": {"S": f"PAY#{pid}"}, "sk": {"S": "PAYMENT"}})
        status = item["Item"]["status"]["S"]
    assert status == "expired"
    assert "expiry_shard" not in item["Item"]  # out of the expiry index
    assert events_of(stack, pid) == ["payment.created", "payment.expired"]


def test_the_test_toolbar_plays_the_payer_in_test_mode_only(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    browser, page, token = open_page(url)
    assert page.count("class='test-toolbar'") == 2
    paid = browser.post(f"{url}/test/succeed", data={"csrf_token": token}, timeout=30)
    assert (paid.status_code, status_on(paid.text)) == (200, "succeeded")
    failing = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(failing)
    failed = browser.post(f"{failing}/test/fail", data={"csrf_token": token}, timeout=30)
    assert status_on(failed.text) == "failed"
    assert browser.post(f"{failing}/test/succeed", data={"csrf_token": token}, timeout=30).json() == problem(
        409, "Conflict", "invalid_state", "Cannot pay a payment that is failed."
    )

    live = shop.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN"}, key=shop.live_key).json()
    browser, page, token = open_page(live["checkout_url"])
    assert "test-toolbar" not in page and "Test mode" not in page
    refused = browser.post(f"{live['checkout_url']}/test/succeed", data={"csrf_token": token}, timeout=30)
    assert refused.json() == problem(403, "Forbidden", "live_payment", "Test actions are refused on live payments.")
    assert shop.call("GET", f"/v1/payments/{live['provider_payment_id']}", key=shop.live_key).json()["status"] == (
        "requires_payment_method"
    )
    unknown = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(unknown)
    assert browser.post(f"{unknown}/test/explode", data={"csrf_token": token}, timeout=30).json() == problem(
        404, "Not Found", "not_found", "No such test action: explode (one of succeed, fail)."
    )
