"""Pilot settings: a PSP newly onboarded carries live traffic under limits its operator sets
until it graduates. While a PSP is in pilot, a live transaction routed to it must name an
allowed `metadata.merchant_id`, use a pilot currency, stay under the per-transaction maximum,
and keep the PSP's daily and monthly totals (per currency; payments, payouts, bill
payments and deposit intents, counted together) within their ceilings. Each broken rule is
`422 pilot_limit` naming it; with no settings written yet every transaction is refused with
rule `settings_missing`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from mzpay.domain.accounts.limits import MAPUTO, Window
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.routing import Psp, refusal

PILOT_RULES = ("settings_missing", "merchant_not_allowed", "currency", "per_transaction", "daily", "monthly")


@dataclass(frozen=True)
class PilotSettings:
    merchant_ids: frozenset[str]
    currencies: frozenset[str]
    per_transaction: dict[str, Decimal] = field(default_factory=dict)
    daily: dict[str, Decimal] = field(default_factory=dict)
    monthly: dict[str, Decimal] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {
            "merchant_ids": sorted(self.merchant_ids),
            "currencies": sorted(self.currencies),
            "per_transaction": _amounts(self.per_transaction),
            "daily": _amounts(self.daily),
            "monthly": _amounts(self.monthly),
        }

    @classmethod
    def from_public(cls, data: dict[str, Any]) -> PilotSettings:
        return cls(
            frozenset(data.get("merchant_ids") or ()),
            frozenset(data.get("currencies") or ()),
            {c: Decimal(v) for c, v in (data.get("per_transaction") or {}).items()},
            {c: Decimal(v) for c, v in (data.get("daily") or {}).items()},
            {c: Decimal(v) for c, v in (data.get("monthly") or {}).items()},
        )


def _amounts(values: dict[str, Decimal]) -> dict[str, str]:
    return {c: f"{v:f}" for c, v in sorted(values.items())}


@dataclass(frozen=True)
class PilotState:
    """Whether a PSP is in pilot (the matrix's default until an operator decides) and its settings."""

    psp_id: str
    in_pilot: bool
    settings: PilotSettings | None
    updated_at: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "psp_id": self.psp_id,
            "in_pilot": self.in_pilot,
            "settings": self.settings.public() if self.settings else None,
            "updated_at": self.updated_at,
        }


PilotWindow = Window
"""A counter to raise in the creation transaction: the PSP's total for a day or a month."""


def pilot_refusal(rule: str, message: str, rejection_id: str) -> ServiceError:
    return refusal(422, "pilot_limit", rule, message, rejection_id)


def check_pilot(
    state: PilotState,
    metadata: dict[str, str] | None,
    currency: str,
    amount: Decimal,
    moment: datetime,
    rejection_id: str,
) -> list[PilotWindow]:
    """The counterless pilot rules in their documented order; the daily and monthly windows
    to reserve in the creation transaction when they pass. Nothing when not in pilot."""
    if not state.in_pilot:
        return []
    settings = state.settings
    name = state.psp_id
    if settings is None or (currency in settings.currencies and not _complete(settings, currency)):
        raise pilot_refusal(
            "settings_missing", f"{name} is in pilot and its pilot settings are not set; try later.", rejection_id
        )
    merchant_id = (metadata or {}).get("merchant_id")
    if merchant_id is None or merchant_id not in settings.merchant_ids:
        raise pilot_refusal(
            "merchant_not_allowed",
            f"{name} is in pilot: metadata.merchant_id must name a merchant of its pilot.",
            rejection_id,
        )
    if currency not in settings.currencies:
        raise pilot_refusal(
            "currency", f"{name} is in pilot for {', '.join(sorted(settings.currencies))} only.", rejection_id
        )
    maximum = settings.per_transaction[currency]
    if amount > maximum:
        raise pilot_refusal(
            "per_transaction", f"{name} is in pilot: at most {maximum:f} {currency} per transaction.", rejection_id
        )
    local = moment.astimezone(MAPUTO)
    windows = [
        PilotWindow("daily", f"PILOT#{name}#{currency}#D#{local.date().isoformat()}", settings.daily[currency]),
        PilotWindow("monthly", f"PILOT#{name}#{currency}#M#{local.strftime('%Y-%m')}", settings.monthly[currency]),
    ]
    for window in windows:
        if amount > window.ceiling:
            raise window_reached(name, window, currency, rejection_id)
    return windows


def _complete(settings: PilotSettings, currency: str) -> bool:
    return all(currency in ceilings for ceilings in (settings.per_transaction, settings.daily, settings.monthly))


def window_reached(psp_id: str, window: PilotWindow, currency: str, rejection_id: str) -> ServiceError:
    period = "day" if window.rule == "daily" else "month"
    return pilot_refusal(
        window.rule,
        f"{psp_id} is in pilot: its {window.rule} total ({window.ceiling:f} {currency} a {period}) would be exceeded.",
        rejection_id,
    )


def pilot_state(psp: Psp, stored: dict[str, Any] | None) -> PilotState:
    """What an operator wrote for the PSP, else the matrix's default (in pilot, no settings)."""
    if stored is None:
        return PilotState(psp.psp_id, psp.pilot, None)
    settings = stored.get("settings")
    return PilotState(
        psp.psp_id,
        bool(stored["in_pilot"]),
        PilotSettings.from_public(settings) if settings else None,
        stored.get("updated_at"),
    )
