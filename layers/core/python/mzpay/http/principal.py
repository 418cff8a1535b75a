"""Who is calling the gateway, as the authorizer established it, and the per-request rules
that a cached authorizer answer cannot decide (expiry, ?mode=, ?account_id= with its
connection, ?customer_id=).

Handlers call `merchant(scope)` and never parse keys.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mzpay.domain.access.principal import (
    WWW_AUTHENTICATE,
    Principal,
    ensure_customer_allowed,
    ensure_route_for_customers,
    wrong_environment,
)
from mzpay.domain.common.errors import ServiceError

_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar("principal", default=None)


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
    (the gateway wires `mzpay.cases.access.ensure_may_act_for`: a connected account of this
    region, active; without it no other account is reachable)."""
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
        if may_act_for is None:  # a surface that wired no connections reaches no other account
            raise ServiceError(404, "not_found", "No such account.")
        may_act_for(principal.account_id, account_id)
        principal = Principal(**{**principal.__dict__, "acting_account_id": account_id})
    customer_id = query.get("customer_id")
    if customer_id is not None:
        ensure_customer_allowed(principal, customer_id)
        principal = Principal(**{**principal.__dict__, "customer_id": customer_id})
    ensure_route_for_customers(principal, str(event.get("httpMethod") or ""), str(event.get("resource") or ""))
    _current.set(principal)


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

        checked.mzpay_scope = scope  # type: ignore[attr-defined]  # http.marks: the OpenAPI document's
        return checked

    return decorate
