"""Who a merchant request acts as, and the refusals every layer may raise about it (a key
of the wrong mode, a missing scope, a customer the key may not act for)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mzpay.domain.errors import ServiceError

WWW_AUTHENTICATE = 'Bearer realm="mzpay"'


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

    @classmethod
    def of_account(cls, account_id: str, mode: str) -> Principal:
        """The account itself, with no key: how the collection surface reaches the gateway for a
        business (a payment link's checkout, a customer's transaction)."""
        return cls(
            account_id=account_id,
            mode=mode,
            scopes=frozenset(),
            key_id="",
            allowed_customers=frozenset(),
            expires_at=None,
            acting_account_id=account_id,
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


def ensure_customer_allowed(principal: Principal, customer_id: str) -> None:
    """A key restricted to some customers may act only for them."""
    if principal.allowed_customers and customer_id not in principal.allowed_customers:
        raise ServiceError(403, "customer_not_allowed", "This API key is restricted to other customers.")
