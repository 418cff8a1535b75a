"""The outbox's pay_bill step (mzpay.steps.bill_settlements): which events it hands over to
PayBillSettlementQueue (a charge of a customer's payment method reaching its end; a bill payment
of one settled) and which it ignores; the payment's event is routed by its method, off the wire."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from mzpay import deps
from mzpay.domain.partners.transactions import bill_payment_id
from mzpay.steps.bill_settlements import bill_settlement_of, dispatch_bill_settlement

MOVEMENT = "1a2b3c4d-5e6f-5a7b-8c9d-0e1f2a3b4c5d"
METHOD = {"payment_method_id": "pm_01M8M8PSAXG0HV1KBBKM6D3A7F"}


def charge_event(kind: str, routing: dict[str, str] | None = METHOD, **changes: Any) -> dict[str, Any]:
    image = {"type": kind, "data": {"object": {"payment_id": MOVEMENT, "status": "succeeded", **changes}}}
    return {**image, "routing": routing} if routing is not None else image


def bill_event(kind: str, metadata: dict[str, str] | None = METHOD) -> dict[str, Any]:
    return {"type": kind, "data": {"object": {"payment_id": "5f0c", "metadata": metadata or {}}}}


@pytest.mark.parametrize("kind", ["payment.succeeded", "payment.failed", "payment.expired", "payment.canceled"])
def test_a_charge_of_a_payment_method_that_ended_is_handed_over_by_its_bill_payment(kind: str) -> None:
    assert bill_settlement_of(charge_event(kind)) == (kind, bill_payment_id(MOVEMENT))


@pytest.mark.parametrize("kind", ["bill_payment.succeeded", "bill_payment.failed"])
def test_a_settled_bill_payment_of_a_payment_method_is_handed_over(kind: str) -> None:
    assert bill_settlement_of(bill_event(kind)) == (kind, "5f0c")


@pytest.mark.parametrize(
    "image",
    [
        charge_event("payment.succeeded", routing=None),  # a gateway charge of its own
        charge_event("payment.succeeded", routing={}),
        charge_event("payment.succeeded", routing={"payment_method_id": 7}),  # type: ignore[dict-item]
        charge_event("payment.requires_action"),  # not the end of the charge
        charge_event("payment.created"),
        charge_event("payment.refunded"),
        charge_event("payment.succeeded", payment_id=None),
        charge_event("payment.succeeded", payment_id="x" * 65),
        bill_event("bill_payment.created"),
        bill_event("bill_payment.succeeded", metadata=None),  # a merchant's own bill payment
        {"type": "payment.succeeded", "data": {"object": "not an object"}},
        {"type": "payment.succeeded"},
        {"type": "payout.paid", "data": {"object": {"payment_id": MOVEMENT}}, "routing": METHOD},
    ],
)
def test_everything_else_is_ignored(image: dict[str, Any]) -> None:
    assert bill_settlement_of(image) is None


def test_the_step_posts_one_message_per_event_it_hands_over() -> None:
    sent: list[tuple[str, str]] = []
    queue = SimpleNamespace(send=lambda *message: sent.append(message))
    with deps.substitute(bill_settlement_queue=queue):
        assert dispatch_bill_settlement(charge_event("payment.succeeded")) is True
        assert dispatch_bill_settlement(charge_event("payment.succeeded", routing=None)) is False
        assert dispatch_bill_settlement(bill_event("bill_payment.failed")) is True
    assert sent == [("payment.succeeded", bill_payment_id(MOVEMENT)), ("bill_payment.failed", "5f0c")]


def test_a_payment_event_is_routed_by_its_method_off_the_wire() -> None:
    from mzpay.domain.webhooks.events import Event
    from mzpay.steps.payments import payment_event

    payment = SimpleNamespace(
        account_id="acc", mode="test", provider_payment_id="pp", callback_url=None, metadata=METHOD
    )
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr("mzpay.steps.payments.snapshot", lambda _: {"payment_id": MOVEMENT, "amount": Decimal(1)})
        routed = payment_event("payment.succeeded", payment, "2026-11-29T00:00:00Z")  # type: ignore[arg-type]
        plain = payment_event("payment.succeeded", SimpleNamespace(**{**vars(payment), "metadata": None}), "t")  # type: ignore[arg-type]
    assert routed.routing == METHOD and "routing" not in routed.envelope()
    assert Event.from_item(routed.item()).routing == METHOD
    assert plain.routing is None and "routing" not in plain.item()
