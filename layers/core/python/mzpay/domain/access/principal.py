"""Who a merchant request acts as, and the refusals every layer may raise about it (a key
of the wrong mode, a missing scope, a customer the key may not act for)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from mzpay.domain.common.errors import ServiceError, invalid_field

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
    customer_id: str | None = None  # the customer the request names (?customer_id=), if any

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


class Held(Protocol):
    """An entity held by one account in one mode."""

    @property
    def account_id(self) -> str: ...

    @property
    def mode(self) -> str: ...


H = TypeVar("H", bound=Held)


def own(principal: Principal, entity: H | None, what: str) -> H:
    """`entity` when it is the acting account's in the principal's mode: 404 not_found ("No such
    `what`.") for none or another account's, 401 wrong_environment for the other mode's."""
    if entity is None or entity.account_id != principal.acting_account_id:
        raise ServiceError(404, "not_found", f"No such {what}.")
    if entity.mode != principal.mode:
        raise wrong_environment(principal.mode, entity.mode)
    return entity


def insufficient_scope(scope: str) -> ServiceError:
    return ServiceError(403, "insufficient_scope", f"This API key lacks the scope {scope}.", missing_scope=scope)


MAX_CUSTOMER_ID = 100  # as a charge's customer.id


def ensure_customer_allowed(principal: Principal, customer_id: str) -> None:
    """A key restricted to some customers may act only for them (and ?customer_id= is an id:
    recorded on what the request creates, so bounded)."""
    if not 0 < len(customer_id) <= MAX_CUSTOMER_ID:
        message = f"1 to {MAX_CUSTOMER_ID} characters"
        raise invalid_field("customer_id", message)
    if principal.allowed_customers and customer_id not in principal.allowed_customers:
        raise ServiceError(403, "customer_not_allowed", "This API key is restricted to other customers.")


# What a key restricted to customers may call (method, route template): the routes whose
# resources record their customer and are found only for it (payments, refunds, payouts), the
# key's own, and the list of methods. Every other route acts for the whole account (its balance,
# events, settings, batches, bills, deposits...) and is refused to such a key: a route added
# later is refused until it records and checks its customer (docs/access.md, "Restricted keys").
CUSTOMER_ROUTES = frozenset(
    {
        ("GET", "/methods"),
        ("GET", "/v1/api-keys/current"),
        ("POST", "/v1/api-keys/{key_id}/roll"),
        ("POST", "/charges"),
        ("POST", "/charges/{payment_id}/capture"),
        ("POST", "/charges/{payment_id}/void"),
        ("POST", "/charges/{payment_id}/complete-action"),
        ("GET", "/payments/{payment_id}"),
        ("GET", "/v1/payments/{payment_id}"),
        ("GET", "/v1/payments/{payment_id}/receipt"),
        ("POST", "/v1/payments"),
        ("POST", "/v1/payments/{payment_id}/cancel"),
        ("POST", "/refunds"),
        ("POST", "/v1/payments/{payment_id}/refund"),
        ("GET", "/v1/refunds/{refund_id}"),
        ("POST", "/payouts"),
        ("POST", "/v1/payouts"),
        ("GET", "/payouts/{payout_id}"),
        ("GET", "/v1/payouts/{payout_id}"),
        ("POST", "/v1/payouts/{payout_id}/cancel"),
        # the lists show such a key only its customers' objects (mzpay.cases.listings)
        ("GET", "/v1/payments"),
        ("GET", "/v1/payments/{payment_id}/refunds"),
        ("GET", "/v1/refunds"),
        ("GET", "/v1/payouts"),
    }
)


# Of those, the routes that create a resource for a customer (a refund is its payment's customer's).
CUSTOMER_CREATES = frozenset(
    {("POST", "/charges"), ("POST", "/v1/payments"), ("POST", "/payouts"), ("POST", "/v1/payouts")}
)
_NAME_ONE = "This API key is restricted to customers: name one of them with ?customer_id=."


def ensure_route_for_customers(principal: Principal, method: str, route: str) -> None:
    """A key restricted to customers calls only CUSTOMER_ROUTES, and names one of its customers
    (?customer_id=) on a create; else 403 customer_not_allowed, before any route runs (so no
    idempotency record or anything else is written)."""
    if not principal.allowed_customers:
        return
    if (method.upper(), route) not in CUSTOMER_ROUTES:
        raise ServiceError(
            403,
            "customer_not_allowed",
            "This API key is restricted to customers, and this route acts for the whole account.",
        )
    if (method.upper(), route) in CUSTOMER_CREATES and principal.customer_id is None:
        raise ServiceError(403, "customer_not_allowed", _NAME_ONE)


def customer_of_create(principal: Principal, named: str | None = None) -> str | None:
    """The customer a new resource is for, recorded on it: `named` in the body, or the request's
    ?customer_id= (the same one when both are sent, else 400 invalid_request). A key restricted
    to customers must name one of them: 403 customer_not_allowed without one, as for another's
    (the request is valid for any other key; it is this key that may not make it)."""
    chosen = principal.customer_id
    if named is not None:
        if chosen is not None and named != chosen:
            message = "customer.id and ?customer_id= name different customers"
            raise invalid_field("customer.id", message)
        chosen = named
    if principal.allowed_customers:
        if chosen is None:
            raise ServiceError(403, "customer_not_allowed", _NAME_ONE)
        ensure_customer_allowed(principal, chosen)
    return chosen


def ensure_customer_visible(principal: Principal, customer_id: str | None, not_found: ServiceError) -> None:
    """A key restricted to customers finds only their resources: any other (of another customer,
    or of none) is `not_found`, as another account's would be."""
    if principal.allowed_customers and customer_id not in principal.allowed_customers:
        raise not_found
