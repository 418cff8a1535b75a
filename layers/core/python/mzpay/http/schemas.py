"""Request bodies of the access routes (pydantic: validation and the OpenAPI document)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.keys import DEFAULT_SCOPES, MAX_ROLL_OVERLAP_SECONDS, ROLL_OVERLAP_SECONDS, unknown_scopes
from mzpay.domain.limits import AccountLimits
from mzpay.domain.money import InvalidAmount, is_currency_code, parse_amount
from mzpay.domain.network import parse_allowlist

Mode = Literal["test", "live"]
Region = Literal["mz", "regional-sa"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class CreateAccount(Strict):
    name: str = Field(min_length=1, max_length=200)
    region: Region


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


class RollApiKey(Strict):
    overlap_seconds: int = Field(default=ROLL_OVERLAP_SECONDS, ge=0, le=MAX_ROLL_OVERLAP_SECONDS)


class CaptureMoney(Strict):
    amount: str
    currency: str | None = None


class Capture(Strict):
    amount: CaptureMoney | None = None


class CompleteAction(Strict):
    otp: str | None = Field(default=None, max_length=12)
    amount: str | None = None  # open-amount payments: what the payer chose


class PspAvailability(Strict):
    available: bool
    reason: str = Field(default="", max_length=500)


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
        for currency, amount in values.items():
            if not is_currency_code(currency):
                raise PydanticCustomError("invalid_currency", "keys are 3 upper-case letters (ISO 4217)")
            try:
                if parse_amount(amount, currency) <= 0:
                    raise InvalidAmount("zero")
            except InvalidAmount as exc:
                raise PydanticCustomError("invalid_amount", "ceilings are positive decimal strings") from exc
        return values

    def limits(self) -> AccountLimits:
        return AccountLimits(
            currencies=frozenset(self.currencies) if self.currencies is not None else None,
            per_transaction={c: Decimal(v) for c, v in self.per_transaction.items()},
            daily={c: Decimal(v) for c, v in self.daily.items()},
        )
