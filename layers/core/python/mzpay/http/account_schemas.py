"""Request bodies of the management accounts group: accounts, connections, API keys, webhook secrets,
rate limits (pydantic: validation and the OpenAPI document)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import AwareDatetime, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.access.keys import DEFAULT_SCOPES, unknown_scopes
from mzpay.domain.access.rate_limits import MAX_RATE, RateLimits
from mzpay.domain.accounts.tenants import Mode, Region
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples
from mzpay.domain.common.network import parse_allowlist
from mzpay.domain.payments.pricing import EXAMPLE_RULE, MAX_RULES, FeeRule, PricedMethod


class CreateAccount(Strict):
    model_config = examples({"name": "Loja Machava Lda", "region": "mz"})

    name: str = Field(min_length=1, max_length=200)
    region: Region


class ConnectAccount(Strict):
    model_config = examples({"account_id": "01JD9W7X5Y3Z1A2B3C4D5E6F7G"})

    account_id: str = Field(min_length=1, max_length=64, description="the account the platform may act for")


class LinkGatewayAccount(Strict):
    model_config = examples({"gateway_account_id": "01JD8Z4K2M3N4P5Q6R7S8T9V0W"})

    gateway_account_id: str = Field(
        min_length=1,
        max_length=64,
        description="the existing gateway account (this region's) the business collects through",
    )


class LinkBusiness(Strict):
    model_config = examples({"business_account_id": "01JD8Z4K2M3N4P5Q6R7S8T9V0X"})

    business_account_id: str = Field(
        min_length=1, max_length=128, description="the business account (collection surface)"
    )


class SuspendAccount(Strict):
    model_config = examples({"reason": "Chargebacks above the agreed ratio since October; under review."})

    reason: str = Field(min_length=1, max_length=500)


class _GrantRules(Strict):
    """The rules of what a credential may do (scopes, ip_allowlist), for the bodies below."""

    @field_validator("scopes", check_fields=False)
    @classmethod
    def _known_scopes(cls, scopes: list[str]) -> list[str]:
        unknown = unknown_scopes(scopes)
        if unknown:
            raise PydanticCustomError("invalid_scope", "unknown scopes: {unknown}", {"unknown": ", ".join(unknown)})
        return sorted(set(scopes))

    @field_validator("ip_allowlist", check_fields=False)
    @classmethod
    def _cidrs(cls, cidrs: list[str]) -> list[str]:
        try:
            return [str(network) for network in parse_allowlist(",".join(cidrs))]
        except ValueError as exc:
            raise PydanticCustomError(
                "invalid_cidr", "not an IPv4 or IPv6 address or CIDR: {error}", {"error": str(exc)}
            ) from exc


Scopes = Annotated[list[str], Field(default_factory=lambda: list(DEFAULT_SCOPES), min_length=1, max_length=20)]
Allowlist = Annotated[list[str], Field(default_factory=list, max_length=50)]


class CreateApiKey(_GrantRules):
    model_config = examples(
        {
            "mode": "live",
            "scopes": ["payments:read", "payments:write", "refunds:write"],
            "ip_allowlist": ["196.28.230.0/24"],
        }
    )

    mode: Mode
    scopes: Scopes
    expires_at: AwareDatetime | None = None
    ip_allowlist: Allowlist
    allowed_customers: list[str] = Field(default_factory=list, max_length=500)


class JwkIn(Strict):
    """A public key (RFC 7517): RSA (n, e) for RS256 or EC P-256 (crv, x, y) for ES256."""

    kty: str = Field(max_length=8)
    kid: str | None = Field(default=None, max_length=128)
    alg: str | None = Field(default=None, max_length=8)
    use: str | None = Field(default=None, max_length=8)
    n: str | None = Field(default=None, max_length=2048)
    e: str | None = Field(default=None, max_length=16)
    crv: str | None = Field(default=None, max_length=16)
    x: str | None = Field(default=None, max_length=64)
    y: str | None = Field(default=None, max_length=64)
    # Members key tools add (RFC 7517 4): accepted, not kept.
    key_ops: list[Annotated[str, Field(max_length=16)]] | None = Field(default=None, max_length=8)
    x5u: str | None = Field(default=None, max_length=2048)
    x5c: list[Annotated[str, Field(max_length=8192)]] | None = Field(default=None, max_length=5)
    x5t: str | None = Field(default=None, max_length=64)
    x5t_s256: str | None = Field(default=None, max_length=64, alias="x5t#S256")
    # A private key's members, read only to refuse it with a clear answer (never stored).
    d: str | None = Field(default=None, max_length=4096)
    p: str | None = Field(default=None, max_length=4096)
    q: str | None = Field(default=None, max_length=4096)
    dp: str | None = Field(default=None, max_length=4096)
    dq: str | None = Field(default=None, max_length=4096)
    qi: str | None = Field(default=None, max_length=4096)


class JwksIn(Strict):
    keys: list[JwkIn] = Field(min_length=1, max_length=5)


class CreateOAuthClient(_GrantRules):
    """Without jwks the client authenticates with a secret (answered once); with jwks, with
    private-key JWT assertions signed by one of those keys."""

    model_config = examples({"mode": "live", "scopes": ["payments:read", "payments:write"], "name": "Loja Machava ERP"})

    mode: Mode
    scopes: Scopes
    ip_allowlist: Allowlist
    name: str | None = Field(default=None, min_length=1, max_length=100)
    jwks: JwksIn | None = None
    jwks_uri: str | None = Field(default=None, min_length=1, max_length=2048, description="https URL of its JWK set")


class RollWebhookSecret(Strict):
    model_config = examples({"mode": "live"})

    mode: Mode


class RateLimitsIn(Strict):
    """An account's own rate limits, requests per second (docs/access.md, "Rate limits")."""

    model_config = examples({"per_key": 25, "per_account": 50})

    per_key: int = Field(ge=1, le=MAX_RATE)
    per_account: int = Field(ge=1, le=MAX_RATE)

    def limits(self) -> RateLimits:
        return RateLimits(self.per_key, self.per_account)


class PartnerIn(Strict):
    """Whether an account is a partner agent network (it may take cash deposits: docs/deposits.md)."""

    model_config = examples({"partner": True})

    partner: bool = Field(description="true: the account's keys may open cash-deposit intents and confirm deposits.")


# A fee's amounts: plain non-negative decimal strings (no sign, no exponent), at most the cent.
FeeAmount = Annotated[str, Field(min_length=1, max_length=16, pattern=r"^(0|[1-9][0-9]{0,12})(\.[0-9]{1,2})?$")]
Percent = Annotated[
    str, Field(min_length=1, max_length=8, pattern=r"^(0|[1-9][0-9]{0,2})(\.[0-9]{1,4})?$", description="0 to 100")
]


class FeeRuleIn(Strict):
    """The fee of payments by `method` in `currency`: percent x captured amount + fixed, clamped
    to [minimum, maximum] (docs/pricing.md)."""

    method: PricedMethod
    currency: str = Field(pattern=r"^[A-Z]{3}$", min_length=3, max_length=3)
    percent: Percent
    fixed: FeeAmount
    minimum: FeeAmount = "0.00"
    maximum: FeeAmount | None = None

    @field_validator("percent")
    @classmethod
    def _at_most_all(cls, percent: str) -> str:
        if Decimal(percent) > 100:
            raise PydanticCustomError("invalid_value", "percent is at most 100")
        return percent

    @field_validator("maximum")
    @classmethod
    def _not_below_minimum(cls, maximum: str | None, info: ValidationInfo) -> str | None:
        minimum = info.data.get("minimum")
        if maximum is not None and minimum is not None and Decimal(maximum) < Decimal(minimum):
            raise PydanticCustomError("invalid_value", "maximum is less than minimum ({minimum})", {"minimum": minimum})
        return maximum

    def rule(self) -> FeeRule:
        maximum = Decimal(self.maximum) if self.maximum is not None else None
        return FeeRule(
            self.method, self.currency, Decimal(self.percent), Decimal(self.fixed), Decimal(self.minimum), maximum
        )


class FeeScheduleIn(Strict):
    """An account's whole fee schedule, replacing the one it had (an empty list: no fee at all)."""

    model_config = examples(
        {
            "fees": [
                EXAMPLE_RULE,
                {"method": "card", "currency": "MZN", "percent": "2.9", "fixed": "5.00"},
            ]
        }
    )

    fees: list[FeeRuleIn] = Field(max_length=MAX_RULES)

    @field_validator("fees")
    @classmethod
    def _one_rule_each(cls, fees: list[FeeRuleIn]) -> list[FeeRuleIn]:
        seen: set[tuple[str, str]] = set()
        for rule in fees:
            if (rule.method, rule.currency) in seen:
                raise PydanticCustomError(
                    "invalid_value",
                    "two rules for {method} in {currency}",
                    {"method": rule.method, "currency": rule.currency},
                )
            seen.add((rule.method, rule.currency))
        return fees

    def rules(self) -> tuple[FeeRule, ...]:
        return tuple(rule.rule() for rule in self.fees)
