"""Payout limits, set by operators per account and mode, per currency: the largest single payout,
the most paid out per Maputo business day, the most paid to one bank account (NIB) per day
(rule beneficiary_daily), the amount above which a payout (or a payout batch) waits for an
operator's approval, and the most released in payout batches per day from the debit account,
the account's balance in the currency (rule debit_daily)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from mzpay.domain.accounts.limits import Window, business_day
from mzpay.domain.payments.routing import refusal


@dataclass(frozen=True)
class PayoutLimits:
    per_transaction: dict[str, Decimal] = field(default_factory=dict)
    daily: dict[str, Decimal] = field(default_factory=dict)
    beneficiary_daily: dict[str, Decimal] = field(default_factory=dict)
    approval_threshold: dict[str, Decimal] = field(default_factory=dict)
    debit_daily: dict[str, Decimal] = field(default_factory=dict)  # payout batches released per day

    NAMES = ("per_transaction", "daily", "beneficiary_daily", "approval_threshold", "debit_daily")

    def public(self) -> dict[str, Any]:
        return {name: {c: f"{v:f}" for c, v in sorted(getattr(self, name).items())} for name in self.NAMES}

    @classmethod
    def from_public(cls, data: dict[str, Any]) -> PayoutLimits:
        return cls(*({c: Decimal(v) for c, v in (data.get(name) or {}).items()} for name in cls.NAMES))


PayoutWindow = Window
"""A payout total a creation raises: the account's of the day (daily), or one bank account's
(beneficiary_daily)."""


def limit_refusal(rule: str, message: str, rejection_id: str) -> Any:
    return refusal(422, "limit_exceeded", rule, message, rejection_id)


def check_payout_limits(
    limits: PayoutLimits,
    account_id: str,
    mode: str,
    currency: str,
    amount: Decimal,
    nib: str | None,
    moment: datetime,
    rejection_id: str,
) -> list[PayoutWindow]:
    """The per-transaction ceiling now; the daily windows to raise with the payout."""
    maximum = limits.per_transaction.get(currency)
    if maximum is not None and amount > maximum:
        raise limit_refusal(
            "per_transaction", f"The payout ceiling of this account is {maximum:f} {currency}.", rejection_id
        )
    day = business_day(moment)
    windows = []
    if currency in limits.daily:
        windows.append(PayoutWindow("daily", f"PODAILY#{account_id}#{mode}#{currency}#{day}", limits.daily[currency]))
    if nib is not None and currency in limits.beneficiary_daily:
        windows.append(
            PayoutWindow(
                "beneficiary_daily",
                f"PONIB#{account_id}#{mode}#{nib}#{currency}#{day}",
                limits.beneficiary_daily[currency],
            )
        )
    for window in windows:
        if amount > window.ceiling:
            raise window_refusal(window, currency, rejection_id)
    return windows


def window_refusal(window: PayoutWindow, currency: str, rejection_id: str) -> Any:
    if window.rule == "daily":
        message = f"The daily payout ceiling of this account ({window.ceiling:f} {currency}) would be exceeded."
    else:
        message = f"The daily ceiling for this bank account ({window.ceiling:f} {currency}) would be exceeded."
    return limit_refusal(window.rule, message, rejection_id)


def needs_approval(limits: PayoutLimits, currency: str, amount: Decimal) -> bool:
    threshold = limits.approval_threshold.get(currency)
    return threshold is not None and amount > threshold
