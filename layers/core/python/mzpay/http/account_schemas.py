"""Request bodies of the management accounts group: accounts, connections, API keys, webhook secrets,
rate limits (pydantic: validation and the OpenAPI document)."""

from __future__ import annotations

from pydantic import AwareDatetime, Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.accounts import Mode, Region
from mzpay.domain.keys import DEFAULT_SCOPES, unknown_scopes
from mzpay.domain.model import StrictText as Strict
from mzpay.domain.network import parse_allowlist
from mzpay.domain.rate_limits import MAX_RATE, RateLimits


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


class RateLimitsIn(Strict):
    """An account's own rate limits, requests per second (docs/access.md, "Rate limits")."""

    per_key: int = Field(ge=1, le=MAX_RATE)
    per_account: int = Field(ge=1, le=MAX_RATE)

    def limits(self) -> RateLimits:
        return RateLimits(self.per_key, self.per_account)
