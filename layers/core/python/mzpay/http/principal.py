"""Who is calling the gateway, as the authorizer established it, and the per-request rules
that a cached authorizer answer cannot decide (expiry, ?mode=, ?account_id= with its
connection, ?customer_id=).

Handlers call `merchant(scope)` and never parse keys.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mzpay.domain.errors import ServiceError

WWW_AUTHENTICATE = 'Bearer realm="mzpay"'
_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar("principal", default=None)


@dataclass(frozen=True)
class Principal:
    """The merchant behind a request: account, mode and what the key may do."""

    account_id: str
    mode: str
    scopes: frozenset[str]
    key_id: str
    allowed_customers: frozenset[str]
    expires_at: datetime | None
    acting_account_id: str  # the account the request acts for (another one with accounts:write)

    @classmethod
    def from_context(cls, context: dict[str, Any]) -> Principal:
        expires = context.get("expires_at") or ""
        return cls(
            account_id=str(context["account_id"]),
            mode=str(context["mode"]),
            scopes=frozenset(str(context.get("scopes") or "").split()),
            key_id=str(context["key_id"]),
            allowed_customers=frozenset(filter(None, str(context.get("allowed_customers") or "").split(","))),
            expires_at=datetime.fromisoformat(expires.replace("Z", "+00:00")) if expires else None,
            acting_account_id=str(context["account_id"]),
        )

    def require(self, scope: str) -> Principal:
        if scope not in self.scopes:
            raise insufficient_scope(scope)
        return self


def wrong_environment(key_mode: str, data_mode: str) -> ServiceError:
    return ServiceError(
        401,
        "wrong_environment",
        f"A {key_mode} key cannot reach {data_mode} data; use a {data_mode} key.",
        headers={"WWW-Authenticate": WWW_AUTHENTICATE},
    )


def insufficient_scope(scope: str) -> ServiceError:
    return ServiceError(403, "insufficient_scope", f"This API key lacks the scope {scope}.", missing_scope=scope)


def refusal_context(error: ServiceError) -> str:
    """How an authorizer hands a refusal to the function (see mzpay.http.authorizers.refuse)."""
    return json.dumps(
        {
            "status": error.status,
            "code": error.code,
            "message": error.message,
            "headers": error.headers,
            "extensions": error.extensions,
        }
    )


def _refusal(text: str) -> ServiceError:
    data = json.loads(text)
    return ServiceError(
        data["status"], data["code"], data["message"], headers=data.get("headers"), **data.get("extensions", {})
    )


def admit(
    event: dict[str, Any], now: datetime | None = None, may_act_for: Callable[[str, str], None] | None = None
) -> None:
    """Before any route runs: answer the authorizer's refusal, or check the request against
    the merchant's key and remember the principal for `merchant()`. `may_act_for(caller account,
    named account)` raises unless the caller may act for the account it names with ?account_id=
    (default: `mzpay.access.ensure_may_act_for`, a connected account of this region, active)."""
    _current.set(None)
    context = (event.get("requestContext") or {}).get("authorizer") or {}
    if context.get("refusal"):
        raise _refusal(str(context["refusal"]))
    if "account_id" not in context or "mode" not in context:
        return  # not a merchant route (health, operator routes)
    principal = Principal.from_context(context)
    now = now or datetime.now(UTC)
    if principal.expires_at is not None and now >= principal.expires_at:
        raise ServiceError(
            401, "key_expired", "This API key has expired.", headers={"WWW-Authenticate": WWW_AUTHENTICATE}
        )
    query = event.get("queryStringParameters") or {}
    mode = query.get("mode")
    if mode is not None and mode != principal.mode:
        raise wrong_environment(principal.mode, mode)
    account_id = query.get("account_id")
    if account_id is not None and account_id != principal.account_id:
        principal.require("accounts:write")
        if may_act_for is None:
            from mzpay.access import ensure_may_act_for  # the directory, read only when one is named

            may_act_for = ensure_may_act_for
        may_act_for(principal.account_id, account_id)
        principal = Principal(**{**principal.__dict__, "acting_account_id": account_id})
    customer_id = query.get("customer_id")
    if customer_id is not None:
        ensure_customer_allowed(principal, customer_id)
    _current.set(principal)


def ensure_customer_allowed(principal: Principal, customer_id: str) -> None:
    """A key restricted to some customers may act only for them."""
    if principal.allowed_customers and customer_id not in principal.allowed_customers:
        raise ServiceError(403, "customer_not_allowed", "This API key is restricted to other customers.")


def current_merchant() -> Principal | None:
    """The calling merchant after `admit`, or None on a route without one (health, checkout)."""
    return _current.get()


def merchant(scope: str | None = None) -> Principal:
    """The calling merchant (after `admit`), holding `scope` if one is named."""
    principal = _current.get()
    if principal is None:
        raise ServiceError(
            401, "unauthorized", "An API key is required.", headers={"WWW-Authenticate": WWW_AUTHENTICATE}
        )
    return principal.require(scope) if scope else principal


def requires(scope: str) -> Any:
    """Route decorator: the calling merchant's key must hold `scope` (checked before anything
    else runs, so a refusal is never kept as an idempotent answer)."""
    import functools

    def decorate(route: Any) -> Any:
        @functools.wraps(route)
        def checked(*args: Any, **kwargs: Any) -> Any:
            merchant(scope)
            return route(*args, **kwargs)

        return checked

    return decorate
