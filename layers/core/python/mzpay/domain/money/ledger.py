"""The merchant ledger, double entry, per (account, mode, currency).

Five ledger accounts: the merchant's `available` money, its `held` money (promised to a refund
or a payout that has not settled), `fees` (what providers kept of a movement, where a connector
reports it), `service_fees` (what this service charged the merchant: docs/pricing.md) and
`clearing`, the outside world (payers, PSPs, payees).
Every money movement is one entry whose legs sum to zero (debits equal credits), written in
the same transaction as the event that causes it, so a balance can never disagree with the
events. Balances are the running sums of the legs of available and held.

| movement | available | held | clearing |
|---|---|---|---|
| payment captured X | +X | | -X |
| payment captured X, the provider kept fee F (fees +F) | +(X-F) | | -X |
| service fee S charged at that capture (service_fees +S; its own entry) | -S | | |
| refund or payout created A (needs available >= A) | -A | +A | |
| refund succeeded / payout paid A | | -A | +A |
| refund failed / payout failed, canceled or rejected A | +A | -A | |
| dispute opened A (whatever the balance) | -A | +A | |
| dispute won A | +A | -A | |
| dispute lost A | | -A | +A |
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from mzpay.domain.common.errors import ServiceError


@dataclass(frozen=True)
class Movement:
    kind: str  # payment.captured, refund.created, refund.succeeded, refund.failed, payout.*
    available: Decimal
    held: Decimal
    needs_available: Decimal | None = None  # refused unless available covers this much
    fees: Decimal = Decimal(0)  # what the provider kept of the movement (0: none reported)
    service_fees: Decimal = Decimal(0)  # what this service charged the merchant (0: nothing)

    @property
    def clearing(self) -> Decimal:
        return -(self.available + self.held + self.fees + self.service_fees)

    def legs(self) -> dict[str, Decimal]:
        """The entry's legs; they always sum to zero."""
        legs = {"available": self.available, "held": self.held, "clearing": self.clearing}
        return (
            legs
            | ({"fees": self.fees} if self.fees else {})
            | ({"service_fees": self.service_fees} if self.service_fees else {})
        )


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
    more: tuple[Movement, ...] = ()  # further movements of the same cause (a capture's service fee)

    @property
    def movements(self) -> tuple[Movement, ...]:
        """Each movement is its own stored entry; the balance moves once, by their `total`."""
        return (self.movement, *self.more)


def total(movements: tuple[Movement, ...]) -> Movement:
    """The movements summed, as one balance update applies them (DynamoDB changes an item once
    per transaction); it needs what they need together, if any of them needs available money."""
    needs = [m.needs_available for m in movements if m.needs_available is not None]
    return Movement(
        "+".join(m.kind for m in movements),
        sum((m.available for m in movements), Decimal(0)),
        sum((m.held for m in movements), Decimal(0)),
        sum(needs, Decimal(0)) if needs else None,
        sum((m.fees for m in movements), Decimal(0)),
        sum((m.service_fees for m in movements), Decimal(0)),
    )


def captured(amount: Decimal, fee: Decimal | None = None) -> Movement:
    """A capture of `amount`; `fee` is what the provider reported keeping of it (bounded to
    0..amount: a provider cannot keep more than it collected), which the merchant never receives."""
    kept = min(max(fee or Decimal(0), Decimal(0)), amount)
    return Movement("payment.captured", amount - kept, Decimal(0), fees=kept)


def service_fee(fee: Decimal) -> Movement:
    """This service's fee of a capture (domain.money.pricing): out of available money into
    `service_fees`; nothing passes through clearing (the money never left the service)."""
    return Movement("service_fee", -fee, Decimal(0), service_fees=fee)


def hold(kind: str, amount: Decimal) -> Movement:
    """A refund or payout takes `amount` out of available money until it settles."""
    return Movement(kind, -amount, amount, needs_available=amount)


def taken_back(kind: str, amount: Decimal) -> Movement:
    """A dispute holds `amount` whatever the balance (the provider has taken it already):
    available may go below zero, and refunds and payouts then wait for payments to cover them."""
    return Movement(kind, -amount, amount)


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
