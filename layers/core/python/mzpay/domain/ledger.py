"""The merchant ledger, double entry, per (account, mode, currency).

Three ledger accounts: the merchant's `available` money, its `held` money (promised to a refund
or a payout that has not settled) and `clearing`, the outside world (payers, PSPs, payees).
Every money movement is one entry whose legs sum to zero (debits equal credits), written in
the same transaction as the event that causes it, so a balance can never disagree with the
events. Balances are the running sums of the legs of available and held.

| movement | available | held | clearing |
|---|---|---|---|
| payment captured X | +X | | -X |
| refund or payout created A (needs available >= A) | -A | +A | |
| refund succeeded / payout paid A | | -A | +A |
| refund failed / payout failed, canceled or rejected A | +A | -A | |
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from mzpay.domain.errors import ServiceError


@dataclass(frozen=True)
class Movement:
    kind: str  # payment.captured, refund.created, refund.succeeded, refund.failed, payout.*
    available: Decimal
    held: Decimal
    needs_available: Decimal | None = None  # refused unless available covers this much

    @property
    def clearing(self) -> Decimal:
        return -(self.available + self.held)

    def legs(self) -> dict[str, Decimal]:
        """The entry's legs; they always sum to zero."""
        return {"available": self.available, "held": self.held, "clearing": self.clearing}


@dataclass(frozen=True)
class Entry:
    """One movement in the ledger of (account, mode, currency), caused by `event_id` about
    `resource_id`: what a store writes in the same transaction as the state change it records."""

    account_id: str
    mode: str
    currency: str
    movement: Movement
    event_id: str
    resource_id: str
    at: str


def captured(amount: Decimal) -> Movement:
    return Movement("payment.captured", amount, Decimal(0))


def hold(kind: str, amount: Decimal) -> Movement:
    """A refund or payout takes `amount` out of available money until it settles."""
    return Movement(kind, -amount, amount, needs_available=amount)


def paid_out(kind: str, amount: Decimal) -> Movement:
    return Movement(kind, Decimal(0), -amount)


def released(kind: str, amount: Decimal) -> Movement:
    return Movement(kind, amount, -amount)


def insufficient_balance(currency: str, amount: Decimal) -> ServiceError:
    return ServiceError(
        422,
        "insufficient_balance",
        f"The available balance does not cover {amount:f} {currency}.",
    )
