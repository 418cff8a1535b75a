"""The ledger's movements always balance; payout limits and their windows."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money import ledger
from mzpay.domain.payouts.limits import PayoutLimits, PayoutWindow, check_payout_limits, needs_approval
from mzpay.store.ledger import entry_items

A = Decimal("123.45")


@pytest.mark.parametrize(
    ("movement", "legs"),
    [
        (ledger.captured(A), {"available": A, "held": Decimal(0), "clearing": -A}),
        (ledger.hold("payout.created", A), {"available": -A, "held": A, "clearing": Decimal(0)}),
        (ledger.paid_out("payout.paid", A), {"available": Decimal(0), "held": -A, "clearing": A}),
        (ledger.released("refund.failed", A), {"available": A, "held": -A, "clearing": Decimal(0)}),
    ],
)
def test_every_movement_has_legs_summing_to_zero(movement: ledger.Movement, legs: dict[str, Decimal]) -> None:
    assert movement.legs() == legs
    assert sum(movement.legs().values()) == 0


@pytest.mark.parametrize(
    ("fee", "kept"),
    [
        (Decimal("3.09"), Decimal("3.09")),  # what the provider reported
        (None, Decimal(0)),  # no report: no fees leg
        (Decimal("-1"), Decimal(0)),  # a provider cannot pay the merchant a fee
        (Decimal("500"), A),  # nor keep more than it collected
    ],
)
def test_a_reported_fee_goes_to_fees_and_never_to_available(fee: Decimal | None, kept: Decimal) -> None:
    movement = ledger.captured(A, fee)
    expected = {"available": A - kept, "held": Decimal(0), "clearing": -A} | ({"fees": kept} if kept else {})
    assert movement.legs() == expected
    assert sum(movement.legs().values()) == 0
    assert movement.needs_available is None


def test_a_service_fee_moves_available_money_to_service_fees_alone() -> None:
    fee = ledger.service_fee(Decimal("4.50"))
    assert (fee.kind, fee.legs(), fee.needs_available) == (
        "service_fee",
        {"available": Decimal("-4.50"), "held": Decimal(0), "clearing": Decimal(0), "service_fees": Decimal("4.50")},
        None,
    )


def test_a_capture_and_its_service_fee_move_the_balance_once_and_are_two_entries() -> None:
    entry = ledger.Entry(
        "acc", "test", "MZN", ledger.captured(A, Decimal("3")), "evt", "pay", "2026-11-29T08:00:00Z",
        more=(ledger.service_fee(Decimal("2.47")),),
    )  # fmt: skip
    items = entry_items("payments", entry)
    assert [next(iter(item)) for item in items] == ["Update", "Put", "Put"]
    update = items[0]["Update"]
    assert update["Key"] == {"pk": "BAL#acc#test", "sk": "CUR#MZN"}
    assert "ConditionExpression" not in update
    assert {k: v for k, v in update["ExpressionAttributeValues"].items() if k != ":currency"} == {
        ":available": A - Decimal("3") - Decimal("2.47"),
        ":held": Decimal(0),
        ":fees": Decimal("3"),
        ":service_fees": Decimal("2.47"),
        ":count": 2,  # two entries: the balance counts them (a reader sees that entries landed)
    }
    kept = [item["Put"]["Item"] for item in items[1:]]
    assert [(k["kind"], k["event_id"], k["resource_id"], k["legs"]) for k in kept] == [
        ("payment.captured", "evt", "pay", {"available": A - 3, "clearing": -A, "fees": Decimal("3")}),
        ("service_fee", "evt", "pay", {"available": Decimal("-2.47"), "service_fees": Decimal("2.47")}),
    ]
    assert kept[0]["sk"] < kept[1]["sk"]  # read back in the order they happened
    assert sum(ledger.total(entry.movements).legs().values()) == 0


def test_an_entry_without_a_service_fee_leaves_the_balance_item_as_it_was() -> None:
    items = entry_items("payments", ledger.Entry("acc", "live", "MZN", ledger.hold("payout.created", A), "e", "p", "t"))
    assert [next(iter(item)) for item in items] == ["Update", "Put"]
    assert "service_fees" not in items[0]["Update"]["UpdateExpression"]
    assert items[0]["Update"]["ConditionExpression"] == "#available >= :needed"
    assert items[0]["Update"]["ExpressionAttributeValues"][":needed"] == A


def test_only_holding_needs_available_money() -> None:
    assert ledger.hold("refund.created", A).needs_available == A
    assert ledger.captured(A).needs_available is None and ledger.released("x", A).needs_available is None


LIMITS = PayoutLimits(
    per_transaction={"MZN": Decimal("500")},
    daily={"MZN": Decimal("1500")},
    beneficiary_daily={"MZN": Decimal("600")},
    approval_threshold={"MZN": Decimal("1000")},
)
NOW = datetime(2026, 11, 21, 22, 30, tzinfo=UTC)  # already 22 November in Maputo


def test_windows_are_the_maputo_day_per_account_and_per_nib() -> None:
    windows = check_payout_limits(LIMITS, "acc", "test", "MZN", Decimal("100"), "000301080016367102371", NOW, "rej")
    assert windows == [
        PayoutWindow("daily", "PODAILY#acc#test#MZN#2026-11-22", Decimal("1500")),
        PayoutWindow("beneficiary_daily", "PONIB#acc#test#000301080016367102371#MZN#2026-11-22", Decimal("600")),
    ]
    assert check_payout_limits(LIMITS, "acc", "test", "USD", Decimal("1e6"), None, NOW, "rej") == []


@pytest.mark.parametrize(
    ("amount", "nib", "rule"), [("500.01", None, "per_transaction"), ("500", "000301080016367102371", None)]
)
def test_the_per_transaction_ceiling(amount: str, nib: str | None, rule: str | None) -> None:
    if rule is None:
        assert len(check_payout_limits(LIMITS, "a", "test", "MZN", Decimal(amount), nib, NOW, "rej")) == 2
        return
    with pytest.raises(ServiceError) as refused:
        check_payout_limits(LIMITS, "a", "test", "MZN", Decimal(amount), nib, NOW, "rej")
    assert (refused.value.status, refused.value.code, refused.value.extensions) == (
        422,
        "limit_exceeded",
        {"rule": rule, "rejection_id": "rej"},
    )


def test_approval_above_the_threshold_only() -> None:
    assert needs_approval(LIMITS, "MZN", Decimal("1000.01")) and not needs_approval(LIMITS, "MZN", Decimal("1000"))
    assert not needs_approval(LIMITS, "USD", Decimal("1e9"))
    assert PayoutLimits.from_public(LIMITS.public()) == LIMITS
