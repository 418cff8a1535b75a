"""Request bodies of the access routes (pydantic: validation and the OpenAPI document)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import AwareDatetime, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.bounds import MAX_CODE, Code
from mzpay.domain.keys import DEFAULT_SCOPES, unknown_scopes
from mzpay.domain.limits import AccountLimits
from mzpay.domain.model import StrictText as Strict
from mzpay.domain.money import InvalidAmount, is_currency_code, parse_amount
from mzpay.domain.network import parse_allowlist
from mzpay.domain.payout_limits import PayoutLimits
from mzpay.domain.pilot import PilotSettings
from mzpay.domain.rate_limits import MAX_RATE, RateLimits

Mode = Literal["test", "live"]
Region = Literal["mz", "regional-sa"]


class CreateAccount(Strict):
    name: str = Field(min_length=1, max_length=200)
    region: Region


class ConnectAccount(Strict):
    account_id: str = Field(min_length=1, max_length=64, description="the account the platform may act for")


class SuspendAccount(Strict):
    reason: str = Field(min_length=1, max_length=500)


class CreateApiKey(Strict):
    mode: Mode
    scopes: list[str] = Field(default_factory=lambda: list(DEFAULT_SCOPES), min_length=1, max_length=20)
    expires_at: AwareDatetime | None = None
    ip_allowlist: list[str] = Field(default_factory=list, max_length=50)
    allowed_customers: list[str] = Field(default_factory=list, max_length=500)

    @field_validator("scopes")
    @classmethod
    def _known_scopes(cls, scopes: list[str]) -> list[str]:
        unknown = unknown_scopes(scopes)
        if unknown:
            raise PydanticCustomError("invalid_scope", "unknown scopes: {unknown}", {"unknown": ", ".join(unknown)})
        return sorted(set(scopes))

    @field_validator("ip_allowlist")
    @classmethod
    def _cidrs(cls, cidrs: list[str]) -> list[str]:
        try:
            return [str(network) for network in parse_allowlist(",".join(cidrs))]
        except ValueError as exc:
            raise PydanticCustomError(
                "invalid_cidr", "not an IPv4 or IPv6 address or CIDR: {error}", {"error": str(exc)}
            ) from exc


class RollWebhookSecret(Strict):
    mode: Mode


class PspAvailability(Strict):
    available: bool
    reason: str = Field(default="", max_length=500)


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


class AccountLimitsIn(Strict):
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

    in_pilot: bool
    settings: PilotSettingsIn | None = None


class ConnectorBindingIn(Strict):
    psp_id: str = Field(min_length=1, max_length=64)
    credentials: dict[str, str] = Field(max_length=20)

    @field_validator("credentials")
    @classmethod
    def _sizes(cls, values: dict[str, str]) -> dict[str, str]:
        if any(len(k) > 64 or len(v) > 8192 for k, v in values.items()):
            raise PydanticCustomError("too_large", "credential names are at most 64 and values 8192 characters")
        return values


class PayoutLimitsIn(Strict):
    mode: Mode
    per_transaction: dict[str, str] = Field(default_factory=dict)
    daily: dict[str, str] = Field(default_factory=dict)
    beneficiary_daily: dict[str, str] = Field(default_factory=dict)
    approval_threshold: dict[str, str] = Field(default_factory=dict)

    @field_validator("per_transaction", "daily", "beneficiary_daily", "approval_threshold")
    @classmethod
    def _ceilings(cls, values: dict[str, str]) -> dict[str, str]:
        return _ceilings(values)

    def limits(self) -> PayoutLimits:
        return PayoutLimits.from_public(self.model_dump())


class RejectPayout(Strict):
    reason: str = Field(min_length=1, max_length=500)


class RateLimitsIn(Strict):
    """An account's own rate limits, requests per second (docs/access.md, "Rate limits")."""

    per_key: int = Field(ge=1, le=MAX_RATE)
    per_account: int = Field(ge=1, le=MAX_RATE)

    def limits(self) -> RateLimits:
        return RateLimits(self.per_key, self.per_account)
