"""The business counts are written where they are decided, once each: a new charge's answer (not
its replay), a refund's and a payout's outcome, every webhook attempt and a delivery's end (the
EMF lines CloudWatch Logs turns into the mzpay metrics), against in-process moto with the stack
of template.yaml."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from ulid import ULID

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import charges, checkout, payouts, refunds
from mzpay.domain.access.principal import Principal
from mzpay.domain.payments.charges import CheckoutRequest
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.steps.checkouts import create_checkout
from mzpay.webhooks import outbox, sender
from tests.integration.support import provisioned_stack
from tests.integration.test_resume_after_fault import charge_request, merchant
from tests.integration.test_webhook_outbox import event_image, receive, receiver_factory, roll_secret
from tests.unit.test_metrics import emitted

__all__ = ["receiver_factory"]  # a fixture of the outbox tests, used here too


@pytest.fixture
def functions(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[ProvisionedStack]:
    """The stack in moto, with the environment of the functions the test names (its parameter)."""
    with provisioned_stack() as provisioned:
        for name in request.param:
            for variable, value in provisioned.functions[name].environment.items():
                monkeypatch.setenv(variable, value)
        monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
        monkeypatch.setenv("WEBHOOK_RETRY_BASE_SECONDS", "0")
        deps.reset()
        yield provisioned
        deps.reset()


MONEY = pytest.mark.parametrize(
    "functions", [("GatewayPaymentsFunction", "GatewayPayoutsFunction", "PayoutSettlementFunction")], indirect=True
)
WEBHOOKS = pytest.mark.parametrize("functions", [("WebhookDispatcherFunction", "WebhookSenderFunction")], indirect=True)
WALLET = "+258840000000"


def counts(out: str) -> list[tuple[str, dict[str, str]]]:
    """(name, dimensions without service) of each EMF line, in order."""
    return [
        (m["name"], {k: v for k, v in m["dimensions"].items() if k != "service"})
        for m in emitted(out)
        if m["value"] == [1.0] and m["namespace"] == "mzpay"
    ]


def payer() -> Principal:
    return Principal(
        account_id=merchant().account_id,
        mode="test",
        scopes=frozenset({"payouts:write", "payouts:read"}),
        key_id=merchant().key_id,
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=merchant().account_id,
    )


@MONEY
def test_a_charge_is_counted_by_its_answer_once_and_its_refund_by_its_outcome(
    functions: ProvisionedStack, capsys: pytest.CaptureFixture[str]
) -> None:
    request = charge_request(str(ULID()))
    paid = charges.create_charge(merchant(), request)
    assert charges.create_charge(merchant(), request) == paid  # the replay of the same request
    refund = refunds.create_refund(merchant(), paid.provider_payment_id, str(ULID()), None, None)
    assert (paid.status, refund.status) == ("succeeded", "succeeded")
    assert counts(capsys.readouterr().out) == [
        ("PaymentOutcomes", {"outcome": "succeeded", "mode": "test"}),  # the provider's answer applied
        ("Charges", {"outcome": "succeeded", "mode": "test"}),  # the charge's answer
        ("Refunds", {"outcome": "succeeded", "mode": "test"}),
    ]


@MONEY
def test_a_payment_that_ends_unpaid_is_counted_by_how_it_ended(
    functions: ProvisionedStack, capsys: pytest.CaptureFixture[str]
) -> None:
    opened = create_checkout(merchant(), CheckoutRequest(amount="75.00", currency="MZN"), "https://gw.example/prod")
    assert checkout.cancel(merchant(), opened["provider_payment_id"]).status == "canceled"
    assert counts(capsys.readouterr().out) == [("PaymentOutcomes", {"outcome": "canceled", "mode": "test"})]


@MONEY
def test_a_payout_is_counted_when_its_provider_answer_is_applied(
    functions: ProvisionedStack, capsys: pytest.CaptureFixture[str]
) -> None:
    charges.create_charge(merchant(), charge_request(str(ULID()), amount="500.00"))  # a balance to pay from
    request = PayoutRequest.model_validate(
        {
            "payout_id": str(ULID()),
            "money": {"amount": "10.00", "currency": "MZN"},
            "destination": {
                "type": "mobile_wallet",
                "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"},
            },
        }
    )
    created = payouts.create_payout(payer(), request)
    assert created.status == "pending"
    payouts.settle(created.provider_payout_id)
    assert counts(capsys.readouterr().out) == [
        ("PaymentOutcomes", {"outcome": "succeeded", "mode": "test"}),
        ("Charges", {"outcome": "succeeded", "mode": "test"}),
        ("Payouts", {"outcome": "paid", "mode": "test"}),
    ]


@WEBHOOKS
def test_webhook_attempts_and_deliveries_are_counted_by_outcome(
    functions: ProvisionedStack, receiver_factory: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    roll_secret()
    receiver = receiver_factory(500, 200)
    outbox.dispatch(event_image(callback_url=receiver.url))
    (first,) = receive(visibility=0)
    assert sender.send_batch([first]) == {"batchItemFailures": [{"itemIdentifier": first["messageId"]}]}
    (second,) = receive()
    assert sender.send_batch([second]) == {"batchItemFailures": []}
    dead = outbox.dispatch(event_image(callback_url="https://shop.example/other"))
    sender.dead_letter(json.dumps({"delivery_id": dead, "round": 0}))
    assert counts(capsys.readouterr().out) == [
        ("WebhookAttempts", {"outcome": "retry"}),
        ("WebhookAttempts", {"outcome": "delivered"}),
        ("WebhookDeliveries", {"outcome": "delivered"}),
        ("WebhookDeliveries", {"outcome": "failed"}),
    ]
