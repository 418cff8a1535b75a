"""Live e-Mola (and M-Pesa) and cards through the PaySuite aggregator, end to end on the local stack
against the loopback PaySuite sandbox: bind, charge (PaySuite's checkout page), the sandbox's
signed callback, the payment's webhook to the merchant; a failed payer, a duplicate and a badly
signed callback; the refusals of what PaySuite cannot do (refunds, payouts) before anything is
written; a live card on the hosted checkout sent on to PaySuite's page, and the payer's return
verified (a forged one changes nothing)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.connectors.paysuite import CARD_TOKENS, NO_REFUNDS
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.e2e.test_checkout import open_page
from tests.e2e.test_connectors import bind, operator
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem_for
from tests.providers.paysuite_sandbox import PAYMENTS_PATH, PaysuiteSandbox

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sandbox(stack: RunningStack) -> Iterator[PaysuiteSandbox]:
    """The sandbox, with e-Mola's PSP graduated: PSP onboarding (its docs' example, its tests)
    approves movitel-emola, which leaves it in pilot on the worker's stack (tests/e2e/test_pilot.py
    covers pilots); these tests are of a graduated PSP."""
    graduated = requests.put(
        f"{stack.state['regions']['mz']['management']}/v1/psps/movitel-emola/pilot",
        json={"in_pilot": False},
        headers=operator(stack),
        timeout=30,
    )
    assert graduated.status_code == 200, graduated.text
    with PaysuiteSandbox() as running:
        yield running


def paysuite_shop(stack: RunningStack, sandbox: PaysuiteSandbox, *methods: str) -> Merchant:
    """A fresh merchant with PaySuite bound live for each of `methods` (e-Mola by default)."""
    shop = Merchant(stack)
    for method in methods or ("emola",):
        bound = bind(stack, shop, {"psp_id": "paysuite", "credentials": sandbox.credentials()}, method=method)
        assert (bound.status_code, bound.json()["psp_id"]) == (200, "paysuite"), bound.text
    return shop


def live(shop: Merchant, method: str, path: str, body: Any = None) -> requests.Response:
    return shop.call(method, path, body, key=shop.live_key)


def settled(shop: Merchant, pid: str, timeout: float = 30) -> dict[str, Any]:
    """The payment once it left requires_action/pending (the callback arrived), polled to a deadline."""
    deadline = time.monotonic() + timeout
    while (read := live(shop, "GET", f"/v1/payments/{pid}").json())["status"] in ("requires_action", "pending"):
        assert time.monotonic() < deadline, read
        time.sleep(0.2)
    return read  # type: ignore[no-any-return]


def test_a_live_emola_charge_goes_through_paysuite_and_its_callback_reaches_the_merchant(
    stack: RunningStack, sandbox: PaysuiteSandbox, receiver: Receiver
) -> None:
    shop = paysuite_shop(stack, sandbox)
    url = receiver.endpoint(200)
    created = shop.charge(wallet("+258861234567", "emola"), amount="250.00", key=shop.live_key, callback_url=url)
    assert created.status_code in (200, 201), created.text
    body = created.json()
    pid = body["provider_payment_id"]
    payment = sandbox.by_reference(pid)
    assert payment is not None  # our payment id is PaySuite's reference
    assert (body["status"], body["next_action"]["type"], body["next_action"]["redirect_url"]) == (
        "requires_action",
        "redirect_to_url",
        f"{sandbox.base_url.rsplit('/api/', 1)[0]}/checkout/{payment.id}",
    )
    [request] = [r for r in sandbox.requests if r.path == PAYMENTS_PATH and (r.body or {}).get("reference") == pid]
    assert request.body is not None
    assert (request.body["amount"], request.body["callback_url"]) == (
        "250.00",
        f"{stack.state['regions']['mz']['gateway']}/callbacks/paysuite",
    )
    [delivery] = sandbox.deliveries_of(pid)
    read = settled(shop, pid)
    assert (read["status"], read["captured_amount"]) == ("succeeded", "250.00")
    assert delivery.status == 200
    [arrival] = receiver.wait_for(url, 1)
    assert json.loads(arrival.body)["type"] == "payment.succeeded"
    assert events_of(stack, pid)[-1] == "payment.succeeded"


def test_insufficient_funds_fails_the_charge(stack: RunningStack, sandbox: PaysuiteSandbox) -> None:
    shop = paysuite_shop(stack, sandbox)
    pid = shop.charge(wallet("+258871234567", "emola"), amount="80.01", key=shop.live_key).json()["provider_payment_id"]
    read = settled(shop, pid)
    assert (read["status"], read["failure_code"], read["failure_message"]) == (
        "failed",
        "insufficient_funds",
        "Insufficient funds",
    )


def test_a_duplicate_callback_applies_once_and_a_bad_signature_changes_nothing(
    stack: RunningStack, sandbox: PaysuiteSandbox
) -> None:
    shop = paysuite_shop(stack, sandbox, "emola", "mpesa")
    twice = shop.charge(wallet("+258861230000", "emola"), amount="60.03", key=shop.live_key).json()
    read = settled(shop, twice["provider_payment_id"])
    assert read["status"] == "succeeded"
    mine = sandbox.deliveries_of(read["provider_payment_id"], 2)
    assert sorted(d.status or 0 for d in mine) == [200, 200]
    assert events_of(stack, read["provider_payment_id"]).count("payment.succeeded") == 1

    forged = shop.charge(wallet("+258841230000", "mpesa"), amount="60.04", key=shop.live_key).json()
    assert sandbox.by_reference(forged["provider_payment_id"]) is not None  # M-Pesa, the second route through PaySuite
    [bad] = sandbox.deliveries_of(forged["provider_payment_id"])
    assert bad.status == 401
    assert live(shop, "GET", f"/v1/payments/{forged['provider_payment_id']}").json()["status"] == "requires_action"


def test_an_unknown_reference_is_not_found(stack: RunningStack, sandbox: PaysuiteSandbox) -> None:
    gateway = stack.state["regions"]["mz"]["gateway"]
    event = {"event": "payment.success", "data": {"reference": str(ULID()), "amount": 1.0}, "request_id": "r"}
    assert sandbox.post_webhook(f"{gateway}/callbacks/paysuite", event) == 404
    assert sandbox.post_webhook(f"{gateway}/callbacks/nobody", event) == 404


def test_refunds_and_payouts_are_refused_before_anything_is_written(
    stack: RunningStack, sandbox: PaysuiteSandbox
) -> None:
    shop = paysuite_shop(stack, sandbox)
    pid = shop.charge(wallet("+258861234567", "emola"), amount="100.00", key=shop.live_key).json()[
        "provider_payment_id"
    ]
    assert settled(shop, pid)["status"] == "succeeded"
    before = len(sandbox.requests)
    refused = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "10.00", "currency": "MZN"}})
    assert refused.json() == problem_for(422, "not_supported", NO_REFUNDS, rule="operation")
    body = {
        "payout_id": str(ULID()),
        "money": {"amount": "50.00", "currency": "MZN"},
        "destination": wallet("+258861234567", "emola"),
    }
    payout = live(shop, "POST", "/payouts", body)
    assert (payout.status_code, payout.json()["code"]) == (422, "not_supported"), payout.text
    assert len(sandbox.requests) == before
    assert live(shop, "GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "0.00"


def test_a_card_token_through_paysuite_is_refused_before_anything_is_written(
    stack: RunningStack, sandbox: PaysuiteSandbox
) -> None:
    shop = paysuite_shop(stack, sandbox, "card")
    before = len(sandbox.requests)
    refused = shop.charge({"type": "card", "card": {"token": "tok_visa_4242"}}, amount="100.00", key=shop.live_key)
    assert refused.json() == problem_for(422, "not_supported", CARD_TOKENS, rule="operation")
    assert len(sandbox.requests) == before  # PaySuite never asked
    listed = live(shop, "GET", "/v1/payments")
    assert (listed.status_code, listed.json()["data"]) == (200, []), listed.text  # no payment written


def test_binding_refusals_name_the_field(stack: RunningStack, sandbox: PaysuiteSandbox) -> None:
    shop = Merchant(stack)
    unbound = shop.charge(wallet("+258861234567", "emola"), key=shop.live_key)
    assert (unbound.status_code, unbound.json()["code"]) == (409, "no_connector_binding")  # before a binding
    wrong = bind(stack, shop, {"psp_id": "paysuite", "credentials": {"api_token": "t", "secret": "s"}}, method="emola")
    assert wrong.status_code == 400
    assert {(e["field"], e["code"]) for e in wrong.json()["errors"]} == {
        ("credentials.webhook_secret", "missing"),
        ("credentials.secret", "unknown"),
    }
    mkesh = bind(stack, shop, {"psp_id": "paysuite", "credentials": sandbox.credentials()}, method="mkesh")
    assert (mkesh.status_code, mkesh.json()["errors"][0]["field"]) == (400, "psp_id")
    cards = bind(stack, shop, {"psp_id": "bci-cards", "credentials": {}}, method="card")
    assert cards.json()["detail"].startswith("There is no live connector for bci-cards yet: live cards need")
    mkesh_own = bind(stack, shop, {"psp_id": "tmcel-mkesh", "credentials": {}}, method="mkesh")
    assert mkesh_own.json()["detail"].startswith("There is no live connector for tmcel-mkesh yet: a live mKesh")


def test_a_live_hosted_checkout_sends_the_payer_on_to_paysuite(stack: RunningStack, sandbox: PaysuiteSandbox) -> None:
    shop = paysuite_shop(stack, sandbox)
    body = {"amount": "75.00", "currency": "MZN", "callback_url": "https://loja.example/hooks"}
    created = shop.call("POST", "/v1/payments", body, key=shop.live_key).json()
    browser, _, token = open_page(created["checkout_url"])
    form = {"csrf_token": token, "network": "emola", "phone_number": "86 123 4567"}
    sent = browser.post(f"{created['checkout_url']}/pay", data=form, allow_redirects=False, timeout=30)
    payment = sandbox.by_reference(created["provider_payment_id"])
    assert payment is not None
    assert (sent.status_code, sent.headers["Location"]) == (303, f"{sandbox.origin}/checkout/{payment.id}")
    assert settled(shop, created["provider_payment_id"])["status"] == "succeeded"  # the sandbox's payer paid


def card_checkout(shop: Merchant, amount: str, callback_url: str) -> tuple[dict[str, Any], requests.Session, str]:
    """A live checkout whose payer chooses the card: the page asks for no card data, and its form
    goes on (303) to PaySuite's page. The checkout, the payer's browser and where it was sent."""
    body = {"amount": amount, "currency": "MZN", "callback_url": callback_url}
    created = shop.call("POST", "/v1/payments", body, key=shop.live_key).json()
    browser, page, token = open_page(created["checkout_url"])
    assert 'value="card"' in page and 'name="card_number"' not in page and 'name="card_expiry"' not in page
    form = {"csrf_token": token, "method": "card"}
    sent = browser.post(f"{created['checkout_url']}/pay", data=form, allow_redirects=False, timeout=30)
    assert sent.status_code == 303, sent.text
    return created, browser, sent.headers["Location"]


def test_a_live_card_goes_to_paysuites_page_and_its_signed_callback_settles_it_once(
    stack: RunningStack, sandbox: PaysuiteSandbox, receiver: Receiver
) -> None:
    shop = paysuite_shop(stack, sandbox, "card")
    url = receiver.endpoint(200)
    created, browser, location = card_checkout(shop, "1200.00", url)
    pid, checkout = created["provider_payment_id"], created["checkout_url"]
    payment = sandbox.by_reference(pid)
    assert payment is not None
    assert location == f"{sandbox.origin}/checkout/{payment.id}"
    [request] = [r for r in sandbox.requests if r.path == PAYMENTS_PATH and (r.body or {}).get("reference") == pid]
    assert request.body == {  # no card data: PaySuite's page takes the card; the payer comes back to verify
        "amount": "1200.00",
        "reference": pid,
        "description": f"Payment {pid}",
        "return_url": f"{checkout}/return",
        "callback_url": f"{stack.state['regions']['mz']['gateway']}/callbacks/paysuite",
    }
    read = settled(shop, pid)
    assert (read["status"], read["captured_amount"], read["source"]) == ("succeeded", "1200.00", {"type": "card"})
    [arrival] = receiver.wait_for(url, 1)
    assert json.loads(arrival.body)["type"] == "payment.succeeded"
    back = browser.get(f"{checkout}/return", allow_redirects=False, timeout=30)
    assert (back.status_code, back.headers["Location"]) == (303, checkout)
    assert events_of(stack, pid).count("payment.succeeded") == 1


def test_a_forged_return_from_the_card_page_changes_nothing(stack: RunningStack, sandbox: PaysuiteSandbox) -> None:
    shop = paysuite_shop(stack, sandbox, "card")
    created, browser, _ = card_checkout(shop, "300.07", "https://loja.example/hooks")  # .07: never paid
    pid, checkout = created["provider_payment_id"], created["checkout_url"]
    payment = sandbox.by_reference(pid)
    assert payment is not None
    forged = browser.get(
        f"{checkout}/return?status=paid&transaction_id=tr_forged&reference={pid}", allow_redirects=False, timeout=30
    )
    assert (forged.status_code, forged.headers["Location"]) == (303, checkout)
    asked = [r for r in sandbox.requests if (r.method, r.path) == ("GET", f"{PAYMENTS_PATH}/{payment.id}")]
    assert len(asked) == 1  # the return only made us ask PaySuite, which says it was not paid
    read = live(shop, "GET", f"/v1/payments/{pid}").json()
    assert (read["status"], read["next_action"]["redirect_url"]) == (
        "requires_action",
        f"{sandbox.origin}/checkout/{payment.id}",
    )
    assert "payment.succeeded" not in events_of(stack, pid)
