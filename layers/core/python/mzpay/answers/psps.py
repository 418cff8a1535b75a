"""The management API's answers about PSPs: the capability matrix with each PSP's availability and
pilot (mzpay.operators.psps)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AmountRange, Answer, Currency, ItsName, Mode, Timestamp, examples
from mzpay.answers.management import Ceilings

Method = Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]
Network = Literal["mpesa", "emola", "mkesh"]


# What the PSP answers say alike of its availability.
PspId = Annotated[str, Field(description="The PSP.")]
Available = Annotated[bool, Field(description="false: routing skips it.")]
WhyUnavailable = Annotated[str, Field(description="Why it is unavailable (may be empty).")]


class PilotSettings(Answer):
    """What a PSP's live traffic must keep while it is in pilot."""

    merchant_ids: list[str] = Field(description="The only accounts it carries.")
    currencies: list[Currency] = Field(description="The only currencies it carries.")
    per_transaction: Ceilings = Field(description="Per currency, the most one payment may be.")
    daily: Ceilings = Field(description="Per currency, the most it carries in a day.")
    monthly: Ceilings = Field(description="Per currency, the most it carries in a month.")


_PILOT = {
    "psp_id": "vodacom-mpesa",
    "in_pilot": True,
    "settings": {
        "merchant_ids": [ACCOUNT],
        "currencies": ["MZN"],
        "per_transaction": {"MZN": "5000"},
        "daily": {"MZN": "50000"},
        "monthly": {"MZN": "500000"},
    },
    "updated_at": "2026-11-01T08:00:00Z",
}


class PilotState(Answer):
    """Whether a PSP is in pilot, and with which settings."""

    model_config = examples(
        _PILOT, {"psp_id": "vodacom-mpesa", "in_pilot": False, "settings": None, "updated_at": None}
    )

    psp_id: PspId
    in_pilot: bool = Field(description="true: its live traffic must keep the settings.")
    settings: PilotSettings | None = Field(description="The settings; null when none were given.")
    updated_at: Timestamp | None = Field(description="When an operator set it; null: the matrix's default.")


class PspStatus(Answer):
    """Whether routing may use a PSP, as an operator set it."""

    model_config = examples(
        {
            "psp_id": "vodacom-mpesa",
            "available": False,
            "reason": "Provider outage",
            "updated_at": "2026-11-02T09:00:00Z",
        }
    )

    psp_id: PspId
    available: Available
    reason: WhyUnavailable
    updated_at: Timestamp = Field(description="When an operator set it.")


class PspLimit(AmountRange):
    """The amounts a PSP takes in one currency."""


class Psp(Answer):
    """A PSP of the capability matrix, with its availability and pilot."""

    psp_id: str = Field(description="The PSP's id (psp_id of a connector binding).")
    name: ItsName
    modes: list[Mode] = Field(description="The modes it carries (the simulator: test only).")
    methods: dict[Method, list[Network]] = Field(
        description="The methods it carries, each with its wallet networks (none for a method without networks)."
    )
    currencies: list[Currency] = Field(description="The currencies it takes.")
    countries: list[str] = Field(description="The countries it serves (ISO 3166-1 alpha-2).")
    limits: dict[Currency, PspLimit] = Field(description="Per currency, the amounts it takes.")
    pilot_by_default: bool = Field(description="Whether the matrix puts it in pilot until an operator decides.")
    available: Available
    reason: WhyUnavailable
    updated_at: Timestamp | None = Field(description="When an operator set its availability; null: never.")
    pilot: PilotState = Field(description="Its pilot.")


class PspList(Answer):
    """The capability matrix with each PSP's availability and pilot."""

    model_config = examples(
        {
            "psps": [
                {
                    "psp_id": "vodacom-mpesa",
                    "name": "Vodacom M-Pesa",
                    "modes": ["live"],
                    "methods": {"mobile_wallet": ["mpesa"]},
                    "currencies": ["MZN"],
                    "countries": ["MZ"],
                    "limits": {"MZN": {"min_amount": "1.00", "max_amount": "125000.00"}},
                    "pilot_by_default": True,
                    "available": True,
                    "reason": "",
                    "updated_at": None,
                    "pilot": _PILOT,
                }
            ]
        }
    )

    psps: list[Psp] = Field(description="Every PSP of the matrix.")
