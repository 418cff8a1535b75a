"""Balance transactions: the merchant's view of the ledger's entries (mzpay.domain.money.ledger).

Every stored entry is one balance transaction `btx_<the entry's ULID>`. Its figures follow from
the entry's legs alone, so they always add up to the balance item of (account, mode, currency):

- `net`: the change of the available balance (the `available` leg); the nets sum to available;
- `held`: the change of the held balance (the `held` leg); they sum to held;
- `fee`: what a provider kept (`fees`) plus the service's own fee (`service_fees`);
- `amount`: the gross, `net + fee`, so that `net = amount - fee` on every transaction.

A two-step movement (a refund, payout, dispute or bill payment holds money, then settles or gives
it back) is two transactions: the hold (`net` -A, `held` +A), then either the settlement (`net` 0,
`held` -A: the money left) or the failure (`net` +A, `held` -A: it came back).

| entry kind | type |
|---|---|
| payment.captured | charge |
| refund.created, refund.succeeded | refund |
| refund.failed | refund_failure |
| payout.created, payout.paid | payout |
| payout.failed, payout.canceled, payout.rejected | payout_failure |
| dispute.created, dispute.lost | dispute |
| dispute.won | dispute_reversal |
| bill_payment.created, bill_payment.succeeded | bill_payment |
| bill_payment.failed | bill_payment_failure |
| service_fee (and service_fee.*) | service_fee |
| anything else (an operator's correction) | adjustment |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from ulid import ULID

from mzpay.domain.common.ids import is_ulid

PREFIX = "btx_"
ENTRY_PREFIX = "ENT#"

TYPE_OF_KIND: dict[str, str] = {
    "payment.captured": "charge",
    "refund.created": "refund",
    "refund.succeeded": "refund",
    "refund.failed": "refund_failure",
    "payout.created": "payout",
    "payout.paid": "payout",
    "payout.failed": "payout_failure",
    "payout.canceled": "payout_failure",
    "payout.rejected": "payout_failure",
    "dispute.created": "dispute",
    "dispute.lost": "dispute",
    "dispute.won": "dispute_reversal",
    "bill_payment.created": "bill_payment",
    "bill_payment.succeeded": "bill_payment",
    "bill_payment.failed": "bill_payment_failure",
    "service_fee": "service_fee",
}
ADJUSTMENT = "adjustment"
# Every type a balance transaction may have (the `type` filter accepts these).
TYPES: tuple[str, ...] = (*dict.fromkeys(TYPE_OF_KIND.values()), ADJUSTMENT)


def type_of(kind: str) -> str:
    """The balance transaction type of an entry's kind (see the table above)."""
    found = TYPE_OF_KIND.get(kind)
    if found is not None:
        return found
    return "service_fee" if kind.startswith("service_fee.") else ADJUSTMENT


@dataclass(frozen=True)
class BalanceTransaction:
    """One ledger entry as the merchant reads it (amounts as Decimal, signed)."""

    id: str  # btx_<ULID>
    type: str
    kind: str  # the entry's own kind: the event type that caused it, or service_fee
    amount: Decimal  # gross: net + fee
    fee: Decimal  # provider_fee + service_fee
    provider_fee: Decimal
    service_fee: Decimal
    net: Decimal  # the change of available
    held: Decimal  # the change of held
    currency: str
    source: str  # the payment, refund, payout, dispute or bill payment it is about
    event_id: str
    created_at: str
    account_id: str
    mode: str

    @property
    def ulid(self) -> str:
        return self.id.removeprefix(PREFIX)


def _leg(legs: Mapping[str, Any], name: str) -> Decimal:
    return Decimal(legs.get(name, 0))


def describe(item: Mapping[str, Any]) -> BalanceTransaction:
    """The balance transaction of one stored entry item (pk LEDGER#<account>#<mode>#<currency>,
    sk ENT#<ulid>, kind, event_id, resource_id, legs, created_at)."""
    _, account_id, mode, currency = str(item["pk"]).split("#", 3)
    legs = item.get("legs") or {}
    provider_fee, service_fee = _leg(legs, "fees"), _leg(legs, "service_fees")
    net = _leg(legs, "available")
    fee = provider_fee + service_fee
    kind = str(item["kind"])
    return BalanceTransaction(
        id=PREFIX + str(item["sk"]).removeprefix(ENTRY_PREFIX),
        type=type_of(kind),
        kind=kind,
        amount=net + fee,
        fee=fee,
        provider_fee=provider_fee,
        service_fee=service_fee,
        net=net,
        held=_leg(legs, "held"),
        currency=currency,
        source=str(item.get("resource_id", "")),
        event_id=str(item.get("event_id", "")),
        created_at=str(item["created_at"]),
        account_id=account_id,
        mode=mode,
    )


def entry_ulid(transaction_id: str) -> str | None:
    """The entry's ULID a balance transaction id names (btx_<ULID>), or None for anything else."""
    ulid = transaction_id.removeprefix(PREFIX)
    return ulid if transaction_id.startswith(PREFIX) and is_ulid(ulid) else None


def ulid_floor(moment: datetime, shift: timedelta = timedelta(0)) -> str:
    """The smallest ULID of the millisecond `shift` after `moment` (clamped to the ULIDs' range,
    whatever year `moment` names): entries made at or after it sort at or above."""
    seconds = min(max(moment.timestamp() + shift.total_seconds(), 0.0), LAST_ULID_SECOND)
    return str(ULID.from_timestamp(seconds))[:10] + "0" * 16


LAST_ULID_SECOND = (2**48 - 1) / 1000


def instant(text: str) -> datetime:
    """The moment an ISO 8601 text names; one without an offset is UTC (ValueError if none)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def made_within(created_at: str, start: datetime | None, end: datetime | None) -> bool:
    """Whether an entry made at `created_at` falls in [start, end) (an open side: None)."""
    made = instant(created_at)
    return (start is None or made >= start) and (end is None or made < end)


def ulid_after(ulid: str) -> str:
    """The ULID right after `ulid` (an exclusive upper bound that keeps `ulid` itself in)."""
    return str(ULID.from_int(int(ULID.from_str(ulid)) + 1))


@dataclass(frozen=True)
class Running:
    """A balance as a walk newest first carries it: the balance right after the next entry."""

    available: Decimal
    held: Decimal

    def before(self, transaction: BalanceTransaction) -> Running:
        """The balance right before `transaction` (this one being right after it)."""
        return Running(self.available - transaction.net, self.held - transaction.held)
