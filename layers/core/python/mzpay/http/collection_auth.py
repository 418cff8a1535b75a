"""Access to the collection surface, checked in the function before any route runs (before
body validation too): licence, access token, the licence's capability, the token's permission
(mzpay.domain.collection.access). See docs/collection.md, "Where access is checked".

Routes are declared with `CollectionRoutes`, which records each route's RouteAccess next to
its declaration; a resource the table does not name needs a licence and a token.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from mzpay import deps
from mzpay.connectors.oidc import Provider, audience, configured_provider, unauthorized, verify_access_token
from mzpay.domain.collection.access import CALLER_ACTIVE, SIGNED_IN, Identity, RouteAccess
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators.audit import Actor
from mzpay.http.authorizers import bearer_token, source_ip

_current: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("collection_caller", default=None)


@dataclass(frozen=True)
class Caller:
    """Who calls (None on routes without a token) and from which address."""

    identity: Identity | None
    source_ip: str

    def signed_in(self) -> Identity:
        if self.identity is None:
            raise unauthorized("missing")
        return self.identity

    def account_id(self) -> str:
        """The account the identity acts for; 403 forbidden when its token names none."""
        identity = self.signed_in()
        if identity.account_id is None:
            raise ServiceError(403, "forbidden", "The access token names no account (claim account_id).")
        return identity.account_id


def caller() -> Caller:
    """The caller of the current request (after `admit`)."""
    current = _current.get()
    if current is None:
        raise unauthorized("missing")
    return current


def reviewer(_event: Any) -> Actor:
    """Who acts on an audited collection route (mzpay.http.audit): the kind of principal
    (administrator or business) and its token's subject, issuer and account."""
    current = _current.get()
    identity = current.identity if current is not None else None
    source_ip = current.source_ip if current is not None else ""
    if identity is None:
        return Actor("anonymous", "anonymous", source_ip)
    return Actor(identity.kind, identity.subject, source_ip, identity.issuer, identity.account_id)


def _resource(path: str) -> str:
    """Powertools' /v1/x/<id> -> API Gateway's /v1/x/{id}."""
    return "/".join(
        "{" + part[1:-1] + "}" if part.startswith("<") and part.endswith(">") else part for part in path.split("/")
    )


class CollectionRoutes:
    """Declares routes on the resolver together with what each needs."""

    def __init__(
        self,
        app: APIGatewayRestResolver,
        require_licence: Callable[[], Any],
        require_business: Callable[[str], Any] | None = None,
    ) -> None:
        """`require_licence()` answers the active licence or raises (the licence use case's
        `require_active`, wired by the function); `require_business(account_id)` raises unless
        that business is active (mzpay.steps.business.require_active), for the routes whose
        RouteAccess.business is CALLER_ACTIVE."""
        self.app = app
        self.require_licence = require_licence
        self.require_business = require_business
        self.access: dict[tuple[str, str], RouteAccess] = {}

    def _route(self, method: str, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        """`options` go to the resolver's route (e.g. `responses` for the OpenAPI document)."""
        self.access[(method, _resource(path))] = access
        return getattr(self.app, method.lower())(path, **options)  # type: ignore[no-any-return]

    def get(self, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        return self._route("GET", path, access, **options)

    def post(self, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        return self._route("POST", path, access, **options)

    def put(self, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        return self._route("PUT", path, access, **options)

    def patch(self, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        return self._route("PATCH", path, access, **options)

    def delete(self, path: str, access: RouteAccess, **options: Any) -> Callable[..., Any]:
        return self._route("DELETE", path, access, **options)

    def admit(self, event: dict[str, Any]) -> None:
        """Before the route: check what it needs and remember the caller (ServiceError if not)."""
        _current.set(None)
        method = str(event.get("httpMethod") or "").upper()
        access = self.access.get((method, str(event.get("resource") or "")), SIGNED_IN)
        active = self.require_licence() if access.licence else None
        identity = None
        if access.token:
            token = bearer_token(event)
            if token is None:
                raise unauthorized("missing")
            identity = verify_access_token(token, provider_for, api_audience=audience())
            _current.set(Caller(identity, source_ip(event)))  # who is refused below, for the audit trail
        if access.capability and active is not None and not active.allows(access.capability):
            raise ServiceError(
                403,
                "forbidden",
                f"The licence does not include the capability {access.capability}.",
                capability=access.capability,
            )
        refusal = identity.refusal(access.permission) if access.permission and identity is not None else None
        if refusal is not None:
            raise ServiceError(403, "forbidden", refusal, permission=access.permission)
        current = Caller(identity, source_ip(event))
        if access.business == CALLER_ACTIVE:
            if self.require_business is None:
                raise RuntimeError("a route needs an active business, but no check is wired")
            self.require_business(current.account_id())
        _current.set(current)


def provider_for(issuer: str) -> Provider | None:
    """The configured provider whose issuer is `issuer`: the stack's bootstrap provider, or an
    `oidc` identity provider created through the API (trusted only for the accounts bound to it)."""
    configured = configured_provider()
    if configured is not None and issuer == configured.issuer:
        return configured
    pointer = deps.identity_providers().by_issuer(issuer)
    if pointer is None or pointer.get("type") != "oidc" or not pointer.get("jwks_uri"):
        return None
    bound = frozenset(str(account) for account in pointer.get("account_ids") or ())
    return Provider(issuer, str(pointer["jwks_uri"]), str(pointer["idp_id"]), bound)
