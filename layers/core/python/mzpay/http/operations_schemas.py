"""Request bodies of the management operations group: account and payout limits, PSP availability
and pilots, connector bindings, payout decisions (pydantic: validation and the OpenAPI document)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from mzpay.answers.psp_onboarding import APPLICATION_EXAMPLE
from mzpay.domain.accounts.limits import AccountLimits
from mzpay.domain.accounts.tenants import Mode
from mzpay.domain.common.bounds import MAX_CODE, Code
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples
from mzpay.domain.money.amounts import InvalidAmount, is_currency_code, parse_amount
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.psp.pilot import PilotSettings


def _ceilings(values: dict[str, str]) -> dict[str, str]:
    """Ceilings per currency: ISO 4217 keys, positive decimal-string amounts."""
    for currency, amount in values.items():
        if len(amount) > MAX_CODE:
            raise PydanticCustomError("invalid_amount", "ceilings are positive decimal strings")
        if not is_currency_code(currency):
            raise PydanticCustomError("invalid_currency", "keys are 3 upper-case letters (ISO 4217)")
        try:
            if parse_amount(amount, currency) <= 0:
                raise InvalidAmount("zero")
        except InvalidAmount as exc:
            raise PydanticCustomError("invalid_amount", "ceilings are positive decimal strings") from exc
    return values


class PspAvailability(Strict):
    model_config = examples({"available": False, "reason": "Vodacom maintenance window, 02:00 to 04:00 CAT."})

    available: bool
    reason: str = Field(default="", max_length=500)


class AccountLimitsIn(Strict):
    model_config = examples(
        {"mode": "live", "currencies": ["MZN"], "per_transaction": {"MZN": "125000.00"}, "daily": {"MZN": "1000000.00"}}
    )

    mode: Mode
    currencies: list[str] | None = Field(default=None, max_length=20)
    per_transaction: dict[str, str] = Field(default_factory=dict)
    daily: dict[str, str] = Field(default_factory=dict)

    @field_validator("currencies")
    @classmethod
    def _currencies(cls, values: list[str] | None) -> list[str] | None:
        if values is not None and not all(is_currency_code(v) for v in values):
            raise PydanticCustomError("invalid_currency", "currencies are 3 upper-case letters (ISO 4217)")
        return values

    @field_validator("per_transaction", "daily")
    @classmethod
    def _ceilings(cls, values: dict[str, str]) -> dict[str, str]:
        return _ceilings(values)

    def limits(self) -> AccountLimits:
        return AccountLimits(
            currencies=frozenset(self.currencies) if self.currencies is not None else None,
            per_transaction={c: Decimal(v) for c, v in self.per_transaction.items()},
            daily={c: Decimal(v) for c, v in self.daily.items()},
        )


class PilotSettingsIn(Strict):
    merchant_ids: list[str] = Field(min_length=1, max_length=1000)
    currencies: list[str] = Field(min_length=1, max_length=20)
    per_transaction: dict[Code, Code]
    daily: dict[Code, Code]
    monthly: dict[Code, Code]

    @field_validator("currencies")
    @classmethod
    def _currencies(cls, values: list[str]) -> list[str]:
        if not all(is_currency_code(v) for v in values):
            raise PydanticCustomError("invalid_currency", "currencies are 3 upper-case letters (ISO 4217)")
        return values

    @field_validator("per_transaction", "daily", "monthly")
    @classmethod
    def _ceilings(cls, values: dict[str, str]) -> dict[str, str]:
        return _ceilings(values)

    @model_validator(mode="after")
    def _every_currency_bounded(self) -> PilotSettingsIn:
        for name in ("per_transaction", "daily", "monthly"):
            missing = sorted(set(self.currencies) - set(getattr(self, name)))
            if missing:
                raise PydanticCustomError(
                    "missing_ceiling",
                    "{name} needs a ceiling for {missing}",
                    {"name": name, "missing": ", ".join(missing)},
                )
        return self

    def settings(self) -> PilotSettings:
        return PilotSettings.from_public(self.model_dump())


class PilotIn(Strict):
    """A PSP's pilot: in pilot with its settings, or graduated (in_pilot false)."""

    model_config = examples({"in_pilot": True, "settings": APPLICATION_EXAMPLE["pilot"]})

    in_pilot: bool
    settings: PilotSettingsIn | None = None


class ConnectorBindingIn(Strict):
    model_config = examples(
        {
            "psp_id": "vodacom-mpesa",
            "credentials": {
                "api_key": "<the M-Pesa API key>",
                "public_key": "<the M-Pesa public key, base64>",
                "service_provider_code": "171717",
            },
        }
    )

    psp_id: str = Field(min_length=1, max_length=64)
    credentials: dict[str, str] = Field(max_length=20)

    @field_validator("credentials")
    @classmethod
    def _sizes(cls, values: dict[str, str]) -> dict[str, str]:
        return _credential_sizes(values)


def _credential_sizes(values: dict[str, str]) -> dict[str, str]:
    if any(len(k) > 64 or len(v) > 8192 for k, v in values.items()):
        raise PydanticCustomError("too_large", "credential names are at most 64 and values 8192 characters")
    return values


class PayoutLimitsIn(Strict):
    model_config = examples(
        {
            "mode": "live",
            "per_transaction": {"MZN": "125000.00"},
            "daily": {"MZN": "500000.00"},
            "beneficiary_daily": {"MZN": "150000.00"},
            "approval_threshold": {"MZN": "50000.00"},
            "debit_daily": {"MZN": "750000.00"},
        }
    )

    mode: Mode
    per_transaction: dict[str, str] = Field(default_factory=dict)
    daily: dict[str, str] = Field(default_factory=dict)
    beneficiary_daily: dict[str, str] = Field(default_factory=dict)
    approval_threshold: dict[str, str] = Field(default_factory=dict)
    debit_daily: dict[str, str] = Field(default_factory=dict)

    @field_validator("per_transaction", "daily", "beneficiary_daily", "approval_threshold", "debit_daily")
    @classmethod
    def _ceilings(cls, values: dict[str, str]) -> dict[str, str]:
        return _ceilings(values)

    def limits(self) -> PayoutLimits:
        return PayoutLimits.from_public(self.model_dump())


class RejectPayout(Strict):
    model_config = examples({"reason": "The beneficiary NIB belongs to another holder; ask the merchant to confirm."})

    reason: str = Field(min_length=1, max_length=500)


class ResolveCase(Strict):
    """What an operator established with the provider about an object it never answered for."""

    model_config = examples({"outcome": "succeeded", "note": "M-Pesa support confirmed 8A1B2C3D4E"})

    outcome: Literal["succeeded", "failed"] = Field(description="What became of it at the provider.")
    note: str = Field(min_length=1, max_length=500, description="How it was established (kept in the audit record).")


class FurtherRouteIn(Strict):
    model_config = examples(
        {
            "credentials": {"api_token": "<PaySuite's API token>", "webhook_secret": "<its webhook secret>"},
            "preference": 1,
            "cost_bps": 150,
        }
    )

    credentials: dict[str, str] = Field(max_length=20)
    preference: int = Field(default=1, ge=-100, le=100)
    cost_bps: int = Field(default=0, ge=0, le=10_000)

    @field_validator("credentials")
    @classmethod
    def _sizes(cls, values: dict[str, str]) -> dict[str, str]:
        return _credential_sizes(values)


class RouteForceIn(Strict):
    model_config = examples({"force": "open", "reason": "Vodacom announced an M-Pesa API outage until 20:00 CAT."})

    force: Literal["open", "closed", "auto"]
    reason: str = Field(default="", max_length=500)
