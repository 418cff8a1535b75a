"""The live PaySuite connector against the loopback sandbox (real HTTP, real HMAC signatures):
the payment request on the wire, each answer's outcome, the webhooks it verifies (success,
insufficient funds, late, duplicate, badly signed), status queries, the refusals, and no secret
in the logs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from decimal import Decimal

import pytest

from mzpay.connectors.base import Notified, Paying, ProviderCall, ProviderResult, Reconciling, Refunding
from mzpay.connectors.paysuite import (
    CARD_TOKENS,
    NO_REFUNDS,
    PaysuiteConnector,
    amount_text,
    create_outcome,
    signature,
)
from mzpay.domain.common.errors import ServiceError
from tests.providers.paysuite_sandbox import API_TOKEN, PAYMENTS_PATH, WEBHOOK_SECRET, PaysuiteSandbox
from tests.providers.paysuite_sandbox import CallbackReceiver as Receiver

PAYMENT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3B2KX"
RETURN_URL = "https://shop.example/back"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.close()


@pytest.fixture
def sandbox() -> Iterator[PaysuiteSandbox]:
    with PaysuiteSandbox(slow_seconds=1.0) as running:
        yield running


@pytest.fixture
def connector(sandbox: PaysuiteSandbox, receiver: Receiver) -> PaysuiteConnector:
    return PaysuiteConnector(sandbox.credentials(callback_url=receiver.url), timeout=0.5)


def call(
    amount: str, network: str = "emola", payment_id: str = PAYMENT_ID, reference: str | None = None
) -> ProviderCall:
    source = {"type": "mobile_wallet", "mobile_wallet": {"network": network, "phone_number": "+258861230000"}}
    return ProviderCall(payment_id, Decimal(amount), "MZN", source, RETURN_URL, provider_reference=reference)


def verified_outcomes(connector: PaysuiteConnector, receiver: Receiver, charge: ProviderCall) -> list[ProviderResult]:
    """What each webhook received says, for those whose signature verifies."""
    return [
        connector.callback_outcome(json.loads(raw), charge)
        for raw, signed in receiver.received
        if connector.verify_callback(raw, signed)
    ]


def test_a_charge_is_a_payment_request_and_waits_on_paysuites_page(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    result = connector.charge(call("150.00"))

    payment = sandbox.by_reference(PAYMENT_ID)
    assert payment is not None
    assert result == ProviderResult(
        "requires_action",
        {
            "type": "redirect_to_url",
            "redirect_url": f"{sandbox.base_url[:-7]}/checkout/{payment.id}",
            "return_url": RETURN_URL,
        },
        extra={"provider_reference": payment.id},
    )
    [received] = sandbox.requests
    assert (received.method, received.path) == ("POST", PAYMENTS_PATH)
    assert received.headers["authorization"] == f"Bearer {API_TOKEN}"
    assert received.body == {  # no phone number: the payer types it on PaySuite's page
        "amount": "150.00",
        "reference": PAYMENT_ID,
        "description": f"Payment {PAYMENT_ID}",
        "return_url": RETURN_URL,
        "callback_url": receiver.url,
    }
    sandbox.wait_for_deliveries(1)
    assert verified_outcomes(connector, receiver, call("150.00")) == [
        ProviderResult(
            "succeeded",
            captured=True,
            extra={
                "provider_transaction_id": payment.transaction and payment.transaction["id"],
                "provider_method": "emola",
            },
        )
    ]


def test_mpesa_is_a_second_route_through_the_same_request(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector
) -> None:
    assert connector.charge(call("10.50", network="mpesa")).status == "requires_action"
    assert sandbox.requests[0].body is not None and sandbox.requests[0].body["amount"] == "10.50"


def test_a_card_charge_is_the_same_request_and_the_card_is_typed_on_paysuites_page(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    back = "https://pay.example/checkout/01JD3M6Y8Q7T3Y5F0ZC9W3B2KX/return"
    card = ProviderCall(PAYMENT_ID, Decimal("1200.00"), "MZN", {"type": "card"}, back)
    result = connector.charge(card)
    payment = sandbox.by_reference(PAYMENT_ID)
    assert payment is not None
    assert (result.status, result.next_action) == (
        "requires_action",
        {
            "type": "redirect_to_url",
            "redirect_url": f"{sandbox.base_url[:-7]}/checkout/{payment.id}",
            "return_url": back,
        },
    )
    [received] = sandbox.requests
    assert received.body == {  # no card data: PaySuite's page takes the card
        "amount": "1200.00",
        "reference": PAYMENT_ID,
        "description": f"Payment {PAYMENT_ID}",
        "return_url": back,
        "callback_url": receiver.url,
    }
    sandbox.wait_for_deliveries(1)
    assert [outcome.status for outcome in verified_outcomes(connector, receiver, card)] == ["succeeded"]


def test_a_card_by_token_is_refused_before_any_call(sandbox: PaysuiteSandbox, connector: PaysuiteConnector) -> None:
    token = {"type": "card", "card": {"token": "tok_visa_4242"}}
    refused = connector.charge(ProviderCall(PAYMENT_ID, Decimal("10.00"), "MZN", token, RETURN_URL))
    assert (refused.status, refused.failure_code, refused.failure_message) == ("failed", "not_supported", CARD_TOKENS)
    assert sandbox.requests == []
    # what the charge use case asks first, so that nothing is written (tests/e2e/test_live_paysuite.py)
    assert (connector.charge_refusal(token), connector.charge_refusal({"type": "card"})) == (CARD_TOKENS, None)
    assert connector.charge_refusal({"type": "mobile_wallet", "mobile_wallet": {"network": "emola"}}) is None


def test_insufficient_funds_arrives_as_a_failed_webhook(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    connector.charge(call("150.01"))
    sandbox.wait_for_deliveries(1)
    assert verified_outcomes(connector, receiver, call("150.01")) == [
        ProviderResult("failed", None, "insufficient_funds", "Insufficient funds")
    ]


def test_a_timeout_leaves_the_charge_pending_and_the_late_webhook_decides(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    assert connector.charge(call("150.02")) == ProviderResult("pending")
    assert connector.status(call("150.02")) == ProviderResult("pending")  # no PaySuite id: nothing to ask
    sandbox.wait_for_deliveries(1)
    assert [r.status for r in verified_outcomes(connector, receiver, call("150.02"))] == ["succeeded"]


def test_a_duplicate_webhook_says_the_same_thing_twice(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    connector.charge(call("150.03"))
    first, second = sandbox.wait_for_deliveries(2)
    assert first.event == second.event  # same request_id: the payment applies it once (see the e2e test)
    assert [r.status for r in verified_outcomes(connector, receiver, call("150.03"))] == ["succeeded", "succeeded"]


def test_a_badly_signed_webhook_does_not_verify(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, receiver: Receiver
) -> None:
    connector.charge(call("150.04"))
    sandbox.wait_for_deliveries(1)
    [(raw, signed)] = receiver.received
    assert not connector.verify_callback(raw, signed)
    assert not connector.verify_callback(raw, "")
    assert connector.verify_callback(raw, signature(raw, WEBHOOK_SECRET))


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("150.05", ProviderResult("pending", extra={"http_status": 503})),  # a gateway page: unknown
        (
            "150.06",
            ProviderResult(
                "failed",
                None,
                "provider_declined",
                "PaySuite refused the payment: The amount must be at least 1.00.",
                extra={"http_status": 400},
            ),
        ),
    ],
)
def test_paysuites_own_answers(connector: PaysuiteConnector, amount: str, expected: ProviderResult) -> None:
    assert connector.charge(call(amount)) == expected


def test_a_resubmitted_reference_is_refused_by_paysuite_and_moves_nothing_twice(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector
) -> None:
    connector.charge(call("150.07"))
    again = connector.charge(call("150.07"))
    assert (again.status, again.failure_code) == ("failed", "provider_declined")
    assert len(sandbox.payments) == 1


def test_a_wrong_token_is_provider_auth_failed(sandbox: PaysuiteSandbox) -> None:
    wrong = PaysuiteConnector(sandbox.credentials(api_token="not-the-token"), timeout=0.5)
    assert wrong.charge(call("150.00")) == ProviderResult(
        "failed",
        None,
        "provider_auth_failed",
        "PaySuite refused the connector's API token (HTTP 401).",
        extra={"http_status": 401},
    )


def test_status_queries_reconcile_a_pending_charge(sandbox: PaysuiteSandbox, connector: PaysuiteConnector) -> None:
    created = connector.charge(call("150.07"))  # the payer never pays
    reference = created.extra["provider_reference"]
    assert connector.status(call("150.07", reference=reference)).status == "pending"
    payment = sandbox.payments[reference]
    payment.status, payment.transaction = "paid", {"id": "tr_1", "method": "emola", "paid_at": "2026-11-29T10:15:00Z"}
    assert connector.status(call("150.07", reference=reference)) == ProviderResult(
        "succeeded", captured=True, extra={"provider_transaction_id": "tr_1", "provider_method": "emola"}
    )
    assert connector.status(call("150.07", reference="nope")).status == "pending"  # a 404 decides nothing


def test_a_webhook_of_another_amount_or_event_decides_nothing(connector: PaysuiteConnector) -> None:
    event = {"event": "payment.success", "data": {"amount": 99.0, "reference": PAYMENT_ID}}
    assert connector.callback_outcome(event, call("150.00")) == ProviderResult("pending")
    assert connector.callback_outcome({"event": "payment.refunded"}, call("150.00")) == ProviderResult("pending")


def test_unknown_answers_stay_pending() -> None:
    assert create_outcome(200, {"status": "success", "data": {}}, None).status == "pending"
    assert create_outcome(500, {"status": "error", "message": "x"}, None).status == "pending"
    assert create_outcome(409, {}, None).status == "pending"


def test_what_paysuite_cannot_do_is_refused_before_any_call(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector
) -> None:
    assert isinstance(connector, Reconciling) and isinstance(connector, Notified) and isinstance(connector, Refunding)
    assert not isinstance(connector, Paying)  # no payouts: payout_connector answers not_supported
    assert connector.refund_refusal(call("150.00")) == NO_REFUNDS
    for act in (connector.capture, connector.void):
        with pytest.raises(ServiceError):
            act(call("150.00"), *([Decimal(1)] if act == connector.capture else []))
    with pytest.raises(ValueError):
        connector.charge(call("150.00", network="mkesh"))
    assert (
        connector.charge(ProviderCall(PAYMENT_ID, Decimal("1"), "USD", call("1").source)).failure_code
        == "unsupported_currency"
    )
    assert sandbox.requests == []
    with pytest.raises(ValueError):
        amount_text(Decimal("1.005"))
    with pytest.raises(ValueError):
        PaysuiteConnector({"api_token": "x"})


def test_no_secret_reaches_the_logs_or_the_repr(
    sandbox: PaysuiteSandbox, connector: PaysuiteConnector, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        connector.charge(call("150.00"))
        connector.charge(call("150.05", payment_id="01JD3M6Y8Q7T3Y5F0ZC9W3B2KY"))
    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "PaySuite payment request answered" in logged
    assert API_TOKEN not in logged and WEBHOOK_SECRET not in logged
    assert API_TOKEN not in repr(connector) and WEBHOOK_SECRET not in repr(connector)
