"""A ledger entry read as a balance transaction: its type, gross, fee, net and held change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, get_args

import pytest

from mzpay.answers.balance import BalanceTransactionType
from mzpay.domain.bills.payments import CREATED_EVENT as BILL_CREATED
from mzpay.domain.bills.payments import EVENT_OF_STATUS as BILL_EVENTS
from mzpay.domain.common.sealed_tokens import seal, unseal
from mzpay.domain.money import ledger
from mzpay.domain.money.transactions import (
    TYPES,
    Running,
    describe,
    entry_ulid,
    instant,
    type_of,
    ulid_after,
    ulid_floor,
)
from mzpay.domain.payouts.rules import CREATED_EVENT as PAYOUT_CREATED
from mzpay.domain.payouts.rules import EVENT_OF_STATUS as PAYOUT_EVENTS
from mzpay.domain.payouts.rules import Status as PayoutStatus

A = Decimal("100.00")
ULID = "01JD8Z5K3M2N4P6Q7R8S9T0VWX"


def item(movement: ledger.Movement, **changes: Any) -> dict[str, Any]:
    """An entry item as mzpay.store.ledger writes it."""
    return {
        "pk": "LEDGER#01JACCOUNT0000000000000000#test#MZN",
        "sk": f"ENT#{ULID}",
        "kind": movement.kind,
        "event_id": "01JEVENT000000000000000000",
        "resource_id": "01JPAYMENT00000000000000000",
        "legs": {name: amount for name, amount in movement.legs().items() if amount},
        "created_at": "2026-11-29T08:00:00Z",
    } | changes


@pytest.mark.parametrize(
    ("movement", "type_", "amount", "fee", "net", "held"),
    [
        (ledger.captured(A), "charge", "100.00", "0", "100.00", "0"),
        (ledger.captured(A, Decimal("3.09")), "charge", "100.00", "3.09", "96.91", "0"),
        (ledger.hold("refund.created", A), "refund", "-100.00", "0", "-100.00", "100.00"),
        (ledger.paid_out("refund.succeeded", A), "refund", "0", "0", "0", "-100.00"),
        (ledger.released("refund.failed", A), "refund_failure", "100.00", "0", "100.00", "-100.00"),
        (ledger.hold(PAYOUT_CREATED, A), "payout", "-100.00", "0", "-100.00", "100.00"),
        (ledger.paid_out(PAYOUT_EVENTS[PayoutStatus.PAID], A), "payout", "0", "0", "0", "-100.00"),
        (ledger.released(PAYOUT_EVENTS[PayoutStatus.FAILED], A), "payout_failure", "100.00", "0", "100.00", "-100.00"),
        (ledger.released(PAYOUT_EVENTS["canceled"], A), "payout_failure", "100.00", "0", "100.00", "-100.00"),
        (ledger.released(PAYOUT_EVENTS["rejected"], A), "payout_failure", "100.00", "0", "100.00", "-100.00"),
        (ledger.taken_back("dispute.created", A), "dispute", "-100.00", "0", "-100.00", "100.00"),
        (ledger.paid_out("dispute.lost", A), "dispute", "0", "0", "0", "-100.00"),
        (ledger.released("dispute.won", A), "dispute_reversal", "100.00", "0", "100.00", "-100.00"),
        (ledger.hold(BILL_CREATED, A), "bill_payment", "-100.00", "0", "-100.00", "100.00"),
        (ledger.paid_out(BILL_EVENTS["succeeded"], A), "bill_payment", "0", "0", "0", "-100.00"),
        (ledger.released(BILL_EVENTS["failed"], A), "bill_payment_failure", "100.00", "0", "100.00", "-100.00"),
    ],
)
def test_each_movement_the_code_writes_has_its_type_and_figures(
    movement: ledger.Movement, type_: str, amount: str, fee: str, net: str, held: str
) -> None:
    described = describe(item(movement))
    assert (described.type, described.kind) == (type_, movement.kind)
    assert (described.amount, described.fee, described.net, described.held) == tuple(
        Decimal(x) for x in (amount, fee, net, held)
    )
    assert described.net == described.amount - described.fee
    assert described.id == f"btx_{ULID}"
    assert (described.currency, described.account_id, described.mode) == ("MZN", "01JACCOUNT0000000000000000", "test")
    assert (described.source, described.event_id) == ("01JPAYMENT00000000000000000", "01JEVENT000000000000000000")
    assert described.created_at == "2026-11-29T08:00:00Z"


def test_a_service_fee_counts_in_fee_and_lowers_net() -> None:
    legs = {"available": Decimal("-2.50"), "service_fees": Decimal("2.50")}
    described = describe(item(ledger.captured(A), kind="service_fee", legs=legs))
    assert (described.type, described.amount, described.fee, described.net) == (
        "service_fee",
        Decimal(0),
        Decimal("2.50"),
        Decimal("-2.50"),
    )
    assert (described.provider_fee, described.service_fee) == (Decimal(0), Decimal("2.50"))


def test_an_unknown_kind_is_an_adjustment_and_every_type_is_listed() -> None:
    assert type_of("adjustment.credit") == "adjustment"
    assert type_of("service_fee.returned") == "service_fee"
    assert get_args(BalanceTransactionType) == TYPES  # the answer's types are the domain's, in order
    assert "adjustment" in TYPES and "service_fee" in TYPES


def test_the_sums_of_the_transactions_are_the_balance_and_the_walk_back_finds_zero() -> None:
    movements = [
        ledger.captured(A, Decimal("3.00")),
        ledger.hold("refund.created", Decimal("40.00")),
        ledger.released("refund.failed", Decimal("40.00")),
        ledger.hold(PAYOUT_CREATED, Decimal("50.00")),
        ledger.paid_out("payout.paid", Decimal("50.00")),
        ledger.taken_back("dispute.created", Decimal("60.00")),
    ]
    described = [describe(item(m)) for m in movements]
    available = sum((d.net for d in described), Decimal(0))
    held = sum((d.held for d in described), Decimal(0))
    assert (available, held) == (Decimal("-13.00"), Decimal("60.00"))
    running = Running(available, held)
    for transaction in reversed(described):
        running = running.before(transaction)
    assert running == Running(Decimal(0), Decimal(0))


def test_ids_and_time_bounds() -> None:
    assert entry_ulid(f"btx_{ULID}") == ULID
    assert entry_ulid(ULID) is None and entry_ulid("btx_nope") is None and entry_ulid("btx_") is None
    assert ulid_after(ULID) > ULID and ulid_after(ULID)[:25] == ULID[:25]
    moment = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
    floor = ulid_floor(moment)
    assert floor.endswith("0" * 16) and floor < ulid_floor(datetime(2026, 11, 29, 8, 0, 0, 1000, tzinfo=UTC))
    assert ulid_floor(moment, timedelta(minutes=-5)) < floor < ulid_floor(moment, timedelta(minutes=5))
    # any year a caller names stays within the ULIDs' range (no overflow, no error)
    assert ulid_floor(instant("0001-01-01T00:00:00+14:00"), timedelta(minutes=-5)) == "0" * 26
    assert ulid_floor(instant("9999-12-31T23:59:59-14:00"), timedelta(minutes=5)) < "7ZZZZZZZZZ" + "0" * 16
    assert instant("2026-11-29") == datetime(2026, 11, 29, tzinfo=UTC)


def test_a_sealed_token_opens_only_with_its_key_and_unaltered() -> None:
    key = b"k" * 32
    token = seal({"a": "acct", "p": {"MZN": ["01JD8Z5K3M2N4P6Q7R8S9T0VWY", "1.00", "0.00"]}}, key)
    assert unseal(token, key) == {"a": "acct", "p": {"MZN": ["01JD8Z5K3M2N4P6Q7R8S9T0VWY", "1.00", "0.00"]}}
    body, tag = token.split(".")
    assert unseal(token, b"x" * 32) is None
    assert unseal(f"{body[:-1]}{'A' if body[-1] != 'A' else 'B'}.{tag}", key) is None
    assert unseal(body, key) is None and unseal(f"{token}.x", key) is None and unseal("!!.??", key) is None
    assert unseal(seal({"a": 1}, key)[:-3], key) is None
