"""Who may call a collection-surface route (see docs/collection.md, "Access").

Two layers, checked in this order: the system licence must be active (401 license_invalid or
license_expired), the request must carry a valid access token of a configured identity provider
(401 unauthorized); then the licence must hold the route's capability and the token the route's
permission (403 forbidden, naming which). A capability and a permission share one name
(`device:write`): the licence says what this installation may do, the token what this identity
may do. Pure rules: no storage, no HTTP.

Two kinds of principal (docs/access.md, "Who may do what on the collection surface"): a token
naming an `account_id` acts for that business account (a *business*); a token of the
installation's bootstrap issuer naming no account is the installation's *administrator*. The
installation permissions (INSTALLATION_PERMISSIONS) are an administrator's only: a business token
never holds them, whatever its claims list.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

# Claims of an access token (docs/collection.md): `sub` is the identity; `account_id` the
# business account it acts for (optional); permissions are the union of the space-separated
# `scope` (RFC 9068) and the `permissions` array (as Auth0 and others write them).
ACCOUNT_CLAIM = "account_id"
PERMISSIONS_CLAIM = "permissions"
SCOPE_CLAIM = "scope"

LICENCE_READ = "license:read"
LICENCE_WRITE = "license:write"
IDENTITY_PROVIDER_READ = "identity_provider:read"
IDENTITY_PROVIDER_WRITE = "identity_provider:write"
DEVICE_READ = "device:read"
DEVICE_WRITE = "device:write"
# A reviewer of business accounts (approve, reject, suspend, reactivate): a token permission only,
# no licence capability (docs/onboarding.md).
ACCOUNT_REVIEW = "account:review"
# The bootstrap provider's name in Identity.provider (registered providers are named by their id).
CONFIGURED = "configured"
ADMINISTRATOR = "administrator"
BUSINESS = "business"
# Installation-wide powers: identity providers (read too: they name other businesses' bindings),
# activating and deactivating the licence, and reviewing business accounts. license:read stays a
# business permission (the licence's status and capabilities are not secret, and a business reads
# them to understand a license_expired answer).
INSTALLATION_PERMISSIONS = frozenset({LICENCE_WRITE, IDENTITY_PROVIDER_READ, IDENTITY_PROVIDER_WRITE, ACCOUNT_REVIEW})
# Capabilities the spec shows on licences, and the ones this surface's routes need so far.
KNOWN_CAPABILITIES = (
    "customer:read",
    "customer:write",
    "kyc:read",
    "kyc:write",
    "transaction:create",
    IDENTITY_PROVIDER_READ,
    IDENTITY_PROVIDER_WRITE,
    DEVICE_READ,
    DEVICE_WRITE,
    "collection_request:read",
    "collection_request:write",
    "collection_method:read",
    "collection_method:write",
)


# Which business must be `active` for a route to run (docs/onboarding.md, "Suspended means
# stopped"): the one the caller's token acts for (checked before the route, with the licence and
# the token), or the one whose collection request the route serves a payer (no token: checked
# by the use case, which finds the request first).
CALLER_ACTIVE = "caller"
PAYEE_ACTIVE = "payee"
BUSINESS_GATES = (CALLER_ACTIVE, PAYEE_ACTIVE)


@dataclass(frozen=True)
class RouteAccess:
    """What a route needs. `capability` is checked against the licence, `permission` against
    the token; a route that needs no licence (the licence routes, health, version) has none.
    `business` names the business that must be active (CALLER_ACTIVE, PAYEE_ACTIVE), if any."""

    licence: bool = True
    token: bool = True
    capability: str | None = None
    permission: str | None = None
    business: str | None = None

    def __post_init__(self) -> None:
        if self.capability and not self.licence:
            raise ValueError("a capability is a licence's: the route must need a licence")
        if self.permission and not self.token:
            raise ValueError("a permission is a token's: the route must need a token")
        if self.business is not None and self.business not in BUSINESS_GATES:
            raise ValueError(f"business is one of {BUSINESS_GATES}")
        if self.business == CALLER_ACTIVE and not self.token:
            raise ValueError("the caller's business is a token's: the route must need a token")


def active_business(access: RouteAccess) -> RouteAccess:
    """`access`, and the business the caller's token acts for must be active (403 otherwise)."""
    return replace(access, business=CALLER_ACTIVE)


def serves_payee(access: RouteAccess) -> RouteAccess:
    """`access` of a payer's route, and the business whose request it serves must be active."""
    return replace(access, business=PAYEE_ACTIVE)


OPEN = RouteAccess(licence=False, token=False)
SIGNED_IN = RouteAccess()


def guarded(name: str) -> RouteAccess:
    """A licensed route whose capability and permission are both `name`."""
    return RouteAccess(capability=name, permission=name)


def licence_admin(permission: str) -> RouteAccess:
    """A licence route: reachable without a licence (or nobody could activate one), signed in."""
    return RouteAccess(licence=False, permission=permission)


@dataclass(frozen=True)
class Identity:
    """The caller an access token names."""

    subject: str
    issuer: str
    account_id: str | None
    permissions: frozenset[str]
    provider: str  # CONFIGURED (the stack's bootstrap provider) or an identity provider's id

    @property
    def kind(self) -> str:
        """ADMINISTRATOR: the bootstrap issuer's token naming no account; else BUSINESS (a token of
        a registered provider always names an account it is bound to: sign-in checks it)."""
        return ADMINISTRATOR if self.account_id is None and self.provider == CONFIGURED else BUSINESS

    def holds(self, permission: str) -> bool:
        """Whether this identity may use `permission`: listed in its claims, and for an
        installation permission, an administrator's token."""
        return self.refusal(permission) is None

    def refusal(self, permission: str) -> str | None:
        """Why this identity may not use `permission` (a 403 message), or None when it may."""
        if permission in INSTALLATION_PERMISSIONS and self.kind != ADMINISTRATOR:
            return (
                f"The permission {permission} is the installation administrator's: a token acting for "
                "a business account (account_id) never holds it."
            )
        if permission not in self.permissions:
            return f"The access token lacks the permission {permission}."
        return None

    def actor(self) -> dict[str, Any]:
        """Who did something, for audit records: the kind of principal, and the issuer, subject and
        account of its token (the same subject from two issuers is two actors)."""
        return {"kind": self.kind, "subject": self.subject, "issuer": self.issuer, "account_id": self.account_id}


class InvalidClaims(ValueError):
    """A signed token whose claims do not name an identity."""


def identity_from_claims(claims: dict[str, Any], provider: str) -> Identity:
    """The identity of a verified token's claims."""
    subject, issuer = claims.get("sub"), claims.get("iss")
    if not isinstance(subject, str) or not subject or not isinstance(issuer, str):
        raise InvalidClaims("the token names no subject")
    account = claims.get(ACCOUNT_CLAIM)
    if account is not None and (not isinstance(account, str) or not account):
        raise InvalidClaims(f"{ACCOUNT_CLAIM} must be a non-empty string")
    scope = claims.get(SCOPE_CLAIM, "")
    listed = claims.get(PERMISSIONS_CLAIM, [])
    if not isinstance(scope, str) or not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise InvalidClaims(f"{SCOPE_CLAIM} must be a string and {PERMISSIONS_CLAIM} a list of strings")
    permissions = frozenset(filter(None, scope.split())) | frozenset(filter(None, listed))
    return Identity(subject, issuer, account, permissions, provider)
