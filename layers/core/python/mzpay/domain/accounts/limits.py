"""Account ceilings, set by operators per account and mode: the currencies it may charge in,
a per-transaction maximum and a daily maximum per currency. The daily total is kept by an
atomic counter that the payment's creation transaction raises (see mzpay.store.payments)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, TypeVar

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.routing import refusal

# The business day of Mozambique (CAT, UTC+2, no daylight saving): daily ceilings reset at
# local midnight.
MAPUTO = timezone(timedelta(hours=2), "CAT")


@dataclass(frozen=True)
class Window:
    """A counter to raise in a creation transaction within its ceiling: a total of a day or a
    month (`rule` names the ceiling: daily, monthly, beneficiary_daily)."""

    rule: str
    key: str
    ceiling: Decimal


@dataclass(frozen=True)
class AccountLimits:
    currencies: frozenset[str] | None = None  # None: any currency a method takes
    per_transaction: dict[str, Decimal] = field(default_factory=dict)
    daily: dict[str, Decimal] = field(default_factory=dict)

    def public(self) -> dict[str, object]:
        return {
            "currencies": sorted(self.currencies) if self.currencies is not None else None,
            "per_transaction": {c: f"{v:f}" for c, v in sorted(self.per_transaction.items())},
            "daily": {c: f"{v:f}" for c, v in sorted(self.daily.items())},
        }


Limits = TypeVar("Limits", bound=Any)  # AccountLimits or domain.payouts.limits.PayoutLimits


def edited(limits: Limits, currency: str, changes: Mapping[str, Decimal | None]) -> Limits:
    """`limits` with one currency's ceilings edited, the console's rule (docs/console.md): each
    ceiling named in `changes` becomes its value for `currency` (None: removed, no ceiling); every
    ceiling not named, every other currency's, and the allowed currencies stay as they were."""
    replaced: dict[str, dict[str, Decimal]] = {}
    for name, value in changes.items():
        ceilings = dict(getattr(limits, name))
        if value is None:
            ceilings.pop(currency, None)
        else:
            ceilings[currency] = value
        replaced[name] = ceilings
    return dataclasses.replace(limits, **replaced)


def business_day(moment: datetime) -> str:
    return moment.astimezone(MAPUTO).date().isoformat()


def check_ceilings(limits: AccountLimits, currency: str, amount: Decimal, rejection_id: str) -> None:
    """The ceilings that need no counter: the account's currencies and per-transaction maximum."""
    if limits.currencies is not None and currency not in limits.currencies:
        raise refusal(
            422,
            "limit_exceeded",
            "key_currency",
            f"This account may charge in {', '.join(sorted(limits.currencies)) or 'no currency'}, not {currency}.",
            rejection_id,
        )
    ceiling = limits.per_transaction.get(currency)
    if ceiling is not None and amount > ceiling:
        raise refusal(
            422,
            "limit_exceeded",
            "per_transaction",
            f"The per-transaction ceiling of this account is {ceiling:f} {currency}.",
            rejection_id,
        )


def daily_ceiling_reached(currency: str, ceiling: Decimal, rejection_id: str) -> ServiceError:
    return refusal(
        422,
        "limit_exceeded",
        "daily",
        f"The daily ceiling of this account ({ceiling:f} {currency}) would be exceeded.",
        rejection_id,
    )
