"""The service's own fee (docs/pricing.md): an account's fee schedule, set by operators, and the
fee of a captured payment under it.

A schedule holds at most one rule per (method, currency): `percent` of the captured amount plus
`fixed`, clamped to [`minimum`, `maximum`] (no maximum: unbounded), rounded half-even to the
currency's minor unit, never below zero and never more than what the capture leaves the merchant
(the captured amount less the provider's fee). A payment whose method and currency have no rule
pays nothing. One schedule per account serves both modes, so test payments show the fee live
payments will pay. An account without its own schedule is charged by `DEFAULT_SCHEDULE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from mzpay.domain.money.amounts import quantize
from mzpay.domain.payments.methods import METHODS, NETWORK_PREFIXES

# What a rule names: a mobile wallet's network, or another method (as connectors are bound), or
# a manual payment (domain.payments.manual.MANUAL, not imported: the operators' bodies load this).
PRICED_METHODS: tuple[str, ...] = (*NETWORK_PREFIXES, *(name for name in METHODS if name != "mobile_wallet"), "manual")
# The same, as the bodies and answers type it (tests/unit/test_pricing.py holds them equal).
PricedMethod = Literal["mpesa", "emola", "mkesh", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl", "manual"]
MAX_RULES = 50
# The rule the bodies' and answers' examples show.
EXAMPLE_RULE = {
    "method": "mpesa",
    "currency": "MZN",
    "percent": "1.5",
    "fixed": "0.00",
    "minimum": "1.00",
    "maximum": "500.00",
}
HUNDRED = Decimal(100)


@dataclass(frozen=True)
class FeeRule:
    """The fee of payments by `method` in `currency`."""

    method: str
    currency: str
    percent: Decimal  # of the captured amount, 0..100
    fixed: Decimal
    minimum: Decimal = Decimal(0)
    maximum: Decimal | None = None  # None: no ceiling but the amount itself

    def public(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "currency": self.currency,
            "percent": f"{self.percent:f}",
            "fixed": f"{self.fixed:f}",
            "minimum": f"{self.minimum:f}",
            "maximum": f"{self.maximum:f}" if self.maximum is not None else None,
        }

    @classmethod
    def from_public(cls, item: dict[str, Any]) -> FeeRule:
        maximum = item.get("maximum")
        return cls(
            str(item["method"]),
            str(item["currency"]),
            Decimal(str(item["percent"])),
            Decimal(str(item["fixed"])),
            Decimal(str(item.get("minimum") or 0)),
            Decimal(str(maximum)) if maximum is not None else None,
        )


@dataclass(frozen=True)
class Schedule:
    """An account's fee schedule; `updated_at` None: the default one (the account has none of its own)."""

    rules: tuple[FeeRule, ...] = ()
    updated_at: str | None = None

    def rule_for(self, method: str, currency: str) -> FeeRule | None:
        return next((r for r in self.rules if (r.method, r.currency) == (method, currency)), None)


# The schedule of every account an operator has not priced: it charges nothing. Pricing is a
# commercial term agreed with each merchant, so an installation sets it per account rather than
# charging every account one tariff it never agreed (docs/pricing.md, "The default schedule").
DEFAULT_SCHEDULE = Schedule()


def service_fee(rule: FeeRule | None, captured: Decimal, currency: str, provider_fee: Decimal = Decimal(0)) -> Decimal:
    """The fee of a capture of `captured` under `rule` (None: no fee): percent x captured + fixed,
    clamped to [minimum, maximum], rounded half-even to the currency's minor unit, never negative
    and never more than what the capture leaves the merchant (`captured` less `provider_fee`)."""
    room = quantize(max(captured - max(provider_fee, Decimal(0)), Decimal(0)), currency)
    if rule is None:
        return quantize(Decimal(0), currency)
    fee = max(captured * rule.percent / HUNDRED + rule.fixed, rule.minimum)
    if rule.maximum is not None:
        fee = min(fee, rule.maximum)
    return min(max(quantize(fee, currency), quantize(Decimal(0), currency)), room)
