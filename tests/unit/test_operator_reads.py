"""The console's reads (mzpay.operators.operator_reads) answer their models (mzpay.answers.operator_reads):
real entities through the real views, the stores replaced by in-memory fakes; each answer has every
key the console's page reads, and the keys of the view it was built from, no more."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from mzpay import deps
from mzpay.config import Settings
from mzpay.domain.payments.disputes import Dispute
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment
from mzpay.domain.payouts.rules import Payout
from mzpay.domain.webhooks.events import new_event
from mzpay.operators import operator_reads
from mzpay.store.directory import Account
from tests.unit.builders import payout_batch

ACCOUNT = "01JD0000000000000000000ACC"
PAYMENT = "01JD8Z5M7B2C3D4E5F6G7H8J9K"
NOW = "2026-11-25T08:00:00Z"
LAST = {"pk": f"ACC#{ACCOUNT}#test", "sk": "01JD8Z5N2B3C4D5E6F7G8H9J0K"}
WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}}
MONEY = {"amount": "150.00", "currency": "MZN"}
STAMPS = {"version": 1, "created_at": NOW, "updated_at": NOW}


def payment() -> Payment:
    return Payment.model_validate(
        {"provider_payment_id": PAYMENT, "payment_id": "p-1", "account_id": ACCOUNT, "mode": "test"}
        | {"status": "succeeded", "amount": "150.00", "currency": "MZN", "source": WALLET, "country": "MZ"}
        | {"authorized_amount": "150.00", "captured_amount": "150.00", "fingerprint": "f", **STAMPS}
    )


def payment_event(kind: str) -> Any:
    state = {"provider_payment_id": PAYMENT, "status": "succeeded", "money": MONEY}
    return new_event(kind, ACCOUNT, "test", "payment", PAYMENT, {"object": state}, NOW)


BALANCE_READS: list[tuple[str, str]] = []


def balances(account_id: str, mode: str) -> list[dict[str, Any]]:
    BALANCE_READS.append((account_id, mode))
    return [{"currency": "MZN", "available": "4000.5", "held": "0"}, {"currency": "USD", "available": "9"}]


@pytest.fixture
def stores() -> Iterator[None]:
    BALANCE_READS.clear()
    payout = Payout.model_validate(
        {"payout_id": "po-1", "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9A", "account_id": ACCOUNT}
        | {"mode": "live", "status": "waiting_for_approval", "amount": "2500.00", "currency": "MZN"}
        | {"destination": WALLET, "fingerprint": "f", "description": "Salários de Novembro", **STAMPS}
    )
    second = payout.model_copy(update={"provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9C", "description": None})
    batch = payout_batch(
        batch_id="01JD9B7F1R2S3T4V5W6X7Y8Z9B", account_id=ACCOUNT, status="awaiting_approval", accepted=2, refused=0
    )
    refund = Refund.model_validate(
        {"provider_refund_id": "01JD9A1C5N6P7Q8R9S0T1V2W3X", "refund_id": "r-1", "provider_payment_id": PAYMENT}
        | {"account_id": ACCOUNT, "mode": "test", "amount": "50.00", "currency": "MZN", "status": "succeeded"}
        | {"fingerprint": "f", **STAMPS}
    )
    dispute = Dispute.model_validate(
        {"dispute_id": "01JDB2M4N6P8R0T2V4W6X8Y0Z2", "account_id": ACCOUNT, "mode": "test", "reason": "duplicate"}
        | {"provider_payment_id": PAYMENT, "amount": "100.00", "currency": "MZN", "status": "needs_response"}
        | {"evidence_due_by": NOW, **STAMPS}
    )
    events = [payment_event("payment.succeeded"), payment_event("payment.created")]  # newest first
    with deps.substitute(
        settings=Settings(service_region="mz", stage="test"),
        directory=SimpleNamespace(get_account=lambda _id: Account(ACCOUNT, "Loja", "mz", "active", "", NOW, NOW)),
        payouts=SimpleNamespace(awaiting_approval=lambda *_: ([payout, second], None)),
        ledger=SimpleNamespace(balances=balances),
        payout_batches=SimpleNamespace(awaiting_approval=lambda *_: ([batch], LAST | {"gsi1pk": "q", "gsi1sk": "s"})),
        payments=SimpleNamespace(get=lambda _id: payment()),
        events=SimpleNamespace(page=lambda *_, **__: (events, LAST)),
        refunds=SimpleNamespace(of_payment=lambda _id: [refund]),
        listings=SimpleNamespace(page=lambda *_: ([dispute], None)),
    ):
        yield


def test_the_payouts_awaiting_approval_are_payouts_with_their_account_and_mode(stores: None) -> None:
    listed = operator_reads.payouts_awaiting_approval().wire()
    assert (listed["object"], listed["has_more"], listed["next_page_token"]) == ("list", False, None)
    row = listed["data"][0]
    assert (row["account_id"], row["mode"], row["money"], row["destination"]) == (
        ACCOUNT,
        "live",
        {**MONEY, "amount": "2500.00"},
        WALLET,
    )
    assert (row["provider_payout_id"], row["created_at"]) == ("01JD9B7F1R2S3T4V5W6X7Y8Z9A", NOW)
    # What an approver decides on: the description, the destination's number masked, the balance.
    assert (row["description"], row["available"]) == ("Salários de Novembro", {"amount": "4000.50", "currency": "MZN"})
    assert row["shown_destination"] == {
        "type": "mobile_wallet",
        "number": "*********4567",
        "network": "mpesa",
        "name": None,
    }
    assert (listed["data"][1]["description"], listed["data"][1]["available"]["amount"]) == (None, "4000.50")
    assert BALANCE_READS == [(ACCOUNT, "live")]  # one read per account and mode shown, not one per row


def test_the_batches_awaiting_approval_are_batches_with_their_account(stores: None) -> None:
    listed = operator_reads.batches_awaiting_approval().wire()
    assert (listed["has_more"], bool(listed["next_page_token"])) == (True, True)
    row = listed["data"][0]
    assert (row["batch_id"], row["account_id"], row["mode"], row["reference"]) == (
        "01JD9B7F1R2S3T4V5W6X7Y8Z9B",
        ACCOUNT,
        "test",
        None,
    )
    assert (row["total"], row["accepted"], row["created_at"]) == ({"amount": "100.00", "currency": "MZN"}, 2, NOW)


def test_a_payment_for_the_operator_has_its_account_mode_events_and_refunds(stores: None) -> None:
    shown = operator_reads.payment_for_operator(PAYMENT).wire()
    assert (shown["provider_payment_id"], shown["status"], shown["money"]) == (PAYMENT, "succeeded", MONEY)
    assert (shown["account_id"], shown["mode"], shown["created_at"]) == (ACCOUNT, "test", NOW)
    assert (shown["captured_amount"], shown["refunded_amount"], shown["payment_id"]) == ("150.00", "0.00", "p-1")
    assert [event["type"] for event in shown["events"]] == ["payment.created", "payment.succeeded"]  # oldest first
    assert {"id", "created_at"} <= set(shown["events"][0])
    assert [(r["provider_refund_id"], r["status"], r["money"]["amount"]) for r in shown["refunds"]] == [
        ("01JD9A1C5N6P7Q8R9S0T1V2W3X", "succeeded", "50.00")
    ]
    assert shown["refunds"][0]["reason"] is None
