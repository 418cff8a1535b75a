"""The management API's success answers for operations: rate limits, account and payout limits,
PSPs and their pilot state, connector bindings (see mzpay.openapi.management, whose ROUTES
names them, for the conventions)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.openapi.gateway_more import (
    ACCOUNT,
    Answer,
    Currency,
    DecimalText,
    Mode,
    Timestamp,
    examples,
)

Region = Literal["mz", "regional-sa"]
Ceilings = dict[Currency, DecimalText]
Method = Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]
Network = Literal["mpesa", "emola", "mkesh"]
BindingMethod = Literal["emola", "mkesh", "mpesa", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]


class RateLimits(Answer):
    """An account's own rate limits, replacing the stack's defaults for it."""

    model_config = examples({"account_id": ACCOUNT, "per_key": 50, "per_account": 200})

    account_id: str = Field(description="The account.")
    per_key: int = Field(description="Requests per second per API key.")
    per_account: int = Field(description="Requests per second of the account, all keys together.")


class PartnerFlag(Answer):
    """Whether an account is a partner agent network (docs/deposits.md)."""

    model_config = examples({"account_id": ACCOUNT, "partner": True, "updated_at": "2026-11-25T08:00:00Z"})

    account_id: str = Field(description="The account.")
    partner: bool = Field(description="true: its keys may open cash-deposit intents and confirm deposits.")
    updated_at: Timestamp = Field(description="When the account last changed.")


class AccountLimits(Answer):
    """An account's charge ceilings in one mode, replacing the previous ones."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "mode": "live",
            "currencies": ["MZN"],
            "per_transaction": {"MZN": "50000.00"},
            "daily": {"MZN": "500000.00"},
        }
    )

    account_id: str = Field(description="The account.")
    mode: Mode = Field(description="The mode they apply to.")
    currencies: list[Currency] | None = Field(description="The currencies it may charge in; null: any.")
    per_transaction: Ceilings = Field(description="Per currency, the most one charge may be.")
    daily: Ceilings = Field(description="Per currency, the most the charges of a day (Maputo) may add up to.")


class PayoutLimits(Answer):
    """An account's payout limits in one mode, replacing the previous ones."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "mode": "live",
            "per_transaction": {"MZN": "100000.00"},
            "daily": {"MZN": "1000000.00"},
            "beneficiary_daily": {"MZN": "250000.00"},
            "approval_threshold": {"MZN": "50000.00"},
            "debit_daily": {"MZN": "2000000.00"},
        }
    )

    account_id: str = Field(description="The account.")
    mode: Mode = Field(description="The mode they apply to.")
    per_transaction: Ceilings = Field(description="Per currency, the most one payout may be.")
    daily: Ceilings = Field(description="Per currency, the most the payouts of a day may add up to.")
    beneficiary_daily: Ceilings = Field(description="Per currency, the most one beneficiary may get in a day.")
    approval_threshold: Ceilings = Field(
        description="Per currency, above which amount a payout or a payout batch waits for approval."
    )
    debit_daily: Ceilings = Field(
        description="Per currency, the most the payout batches released in a day may add up to (rule debit_daily)."
    )


# ---------------------------------------------------------------- PSPs
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

    psp_id: str = Field(description="The PSP.")
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

    psp_id: str = Field(description="The PSP.")
    available: bool = Field(description="false: routing skips it.")
    reason: str = Field(description="Why it is unavailable (may be empty).")
    updated_at: Timestamp = Field(description="When an operator set it.")


class PspLimit(Answer):
    """The amounts a PSP takes in one currency."""

    min_amount: DecimalText = Field(description="The smallest amount.")
    max_amount: DecimalText = Field(description="The largest amount.")


class Psp(Answer):
    """A PSP of the capability matrix, with its availability and pilot."""

    psp_id: str = Field(description="The PSP's id (psp_id of a connector binding).")
    name: str = Field(description="Its name.")
    modes: list[Mode] = Field(description="The modes it carries (the simulator: test only).")
    methods: dict[Method, list[Network]] = Field(
        description="The methods it carries, each with its wallet networks (none for a method without networks)."
    )
    currencies: list[Currency] = Field(description="The currencies it takes.")
    countries: list[str] = Field(description="The countries it serves (ISO 3166-1 alpha-2).")
    limits: dict[Currency, PspLimit] = Field(description="Per currency, the amounts it takes.")
    pilot_by_default: bool = Field(description="Whether the matrix puts it in pilot until an operator decides.")
    available: bool = Field(description="false: routing skips it.")
    reason: str = Field(description="Why it is unavailable (may be empty).")
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


# ---------------------------------------------------------------- connector bindings
_BINDING = {
    "account_id": ACCOUNT,
    "mode": "live",
    "method": "mpesa",
    "psp_id": "vodacom-mpesa",
    "credential_fields": ["api_key", "public_key", "service_provider_code"],
    "created_at": "2026-10-03T08:00:00Z",
    "updated_at": "2026-10-03T08:00:00Z",
}


class ConnectorBinding(Answer):
    """The live PSP connector an account's method goes through (its credentials are never shown)."""

    model_config = examples(_BINDING)

    account_id: str = Field(description="The account.")
    mode: Literal["live"] = Field(description="Always live: test traffic goes to the simulator.")
    method: BindingMethod = Field(description="The method: a wallet network, or a non-wallet method.")
    psp_id: str = Field(description="The PSP whose connector carries it.")
    credential_fields: list[str] = Field(description="The names of the credentials stored (encrypted).")
    created_at: Timestamp = Field(description="When the method was first bound.")
    updated_at: Timestamp = Field(description="When it was last bound.")


class ConnectorBindingList(Answer):
    """An account's connector bindings."""

    model_config = examples({"bindings": [_BINDING]})

    bindings: list[ConnectorBinding] = Field(description="Every binding of the account.")


class Unbinding(Answer):
    """A binding removed: the method's live traffic has no connector until it is bound again."""

    model_config = examples({"account_id": ACCOUNT, "mode": "live", "method": "mpesa", "bound": False})

    account_id: str = Field(description="The account.")
    mode: Literal["live"] = Field(description="The mode of the binding removed.")
    method: BindingMethod = Field(description="The method of the binding removed.")
    bound: Literal[False] = Field(description="Always false.")


# ---------------------------------------------------------------- reconciliation cases
_CASE = {
    "object": "payout",
    "id": "01JD9M4A5B6C7D8E9F0G1H2J3K",
    "account_id": ACCOUNT,
    "mode": "live",
    "status": "in_transit",
    "amount": "250.00",
    "currency": "MZN",
    "created_at": "2026-11-20T09:00:00Z",
    "reconciliation": "gave_up",
    "waiting_since": "2026-11-23T09:00:00Z",
    "resolution": None,
}


class Resolution(Answer):
    """The audit record of an operator's resolution."""

    outcome: Literal["succeeded", "failed"] = Field(description="What the operator established.")
    note: str = Field(description="How it was established.")
    by: Literal["operator"] = Field(description="Who resolved it (the operator token's holder).")
    source_ip: str = Field(description="The address the resolution came from.")
    at: Timestamp = Field(description="When.")


class ReconciliationCase(Answer):
    """A live payment, refund or payout whose provider never answered within the horizon."""

    model_config = examples(_CASE)

    object: Literal["payment", "refund", "payout"] = Field(description="What it is.")
    id: str = Field(description="Its provider id (provider_payment_id, provider_refund_id, provider_payout_id).")
    account_id: str = Field(description="The account.")
    mode: Mode = Field(description="Always live (test traffic is answered by the simulator).")
    status: str = Field(description="Its status now (pending or in_transit while it waits).")
    amount: DecimalText = Field(description="Its amount.")
    currency: Currency = Field(description="Its currency.")
    created_at: Timestamp = Field(description="When it was created.")
    reconciliation: Literal["gave_up", "resolved"] | None = Field(description="gave_up: waits for an operator.")
    waiting_since: Timestamp | None = Field(description="When it was handed to operators; null once resolved.")
    resolution: Resolution | None = Field(description="The resolution's audit record; null while it waits.")


class ReconciliationCaseList(Answer):
    """What waits for an operator, oldest first."""

    model_config = examples({"object": "list", "data": [_CASE], "has_more": False, "next_page_token": None})

    object: Literal["list"] = Field(description="Always list.")
    data: list[ReconciliationCase] = Field(description="The cases of this page.")
    has_more: bool = Field(description="Whether another page follows.")
    next_page_token: str | None = Field(description="Send it as page_token for the next page; null at the end.")
