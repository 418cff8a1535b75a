"""Suspended means stopped (docs/onboarding.md): every collection route that moves money,
registers customers, payment methods or KYC material, creates or changes collection requests or
methods, or serves a payer's payment, declares the active-business gate next to its route
(RouteAccess.business); a route without it must be on the reviewed allow-list below. The routes
are read from every collection function's route table, so a new route without the gate (or a
listing here) fails this test."""

from __future__ import annotations

from typing import Any

import pytest

from devstack.modules import load_module
from mzpay.domain.collection.access import (
    CALLER_ACTIVE,
    PAYEE_ACTIVE,
    RouteAccess,
    active_business,
    guarded,
    serves_payee,
)
from mzpay.domain.common.errors import ServiceError
from mzpay.http.collection_auth import CollectionRoutes
from tests.unit.test_template import FUNCTIONS, ROOT, template_routes

GROUPS = {
    "collection_system": "CollectionSystemFunction",
    "collection_identity": "CollectionIdentityFunction",
    "collection_onboarding": "CollectionOnboardingFunction",
    "collection_kyc": "CollectionKycFunction",
    "collection_partners": "CollectionPartnersFunction",
    "collection_requests": "CollectionRequestsFunction",
    "collection_transactions": "CollectionTransactionsFunction",
}

# Writes that stay open to a business that is not active, and why (reviewed: none moves money,
# registers a customer or a payment method, issues a request or serves a payer).
EXEMPT_WRITES = {
    # onboarding: how a business becomes (or comes back to being) active
    ("POST", "/v1/account/onboarding/initialize"): "onboarding",
    ("PUT", "/v1/account/onboarding/details"): "onboarding",
    ("POST", "/v1/account/onboarding/finish"): "onboarding",
    ("POST", "/v1/files"): "onboarding (the logo and documents of the details)",
    ("PATCH", "/v1/account/settings"): "the business's settings (its messages' language), from onboarding on; no money",
    # the reviewers' and the installation's administration, acting for no business
    ("POST", "/v1/accounts/{account_id}/approve"): "reviewer",
    ("POST", "/v1/accounts/{account_id}/reject"): "reviewer",
    ("POST", "/v1/accounts/{account_id}/suspend"): "reviewer",
    ("POST", "/v1/accounts/{account_id}/reactivate"): "reviewer",
    ("POST", "/v1/license/activate"): "installation administration",
    ("POST", "/v1/license/deactivate"): "installation administration",
    ("POST", "/v1/license/validate"): "installation administration (a check, changes nothing)",
    ("POST", "/v1/identity_providers"): "installation administration",
    ("PUT", "/v1/identity_providers"): "installation administration",
    ("DELETE", "/v1/identity_providers"): "installation administration",
    # sign-in material and lookups
    ("POST", "/v1/devices/trust"): "a device the business's people sign in from; no money, no payer",
    ("POST", "/v1/partners/get-logo"): "a lookup of a card scheme's logo by BIN; changes nothing",
}
# Payer routes (no token) that only read, and why they stay open (docs/collection-requests.md).
EXEMPT_PAYER_READS = {
    ("GET", "/v1/kulpay/collection-requests/list-by-phone-number/{phone_number}"): "a read; takes no payment",
    ("GET", "/v1/kulpay/collection-requests/get-request/{request_id}"): "a read; takes no payment",
    ("GET", "/pay/assets/copy.js"): "a static file (the payment link page's copy buttons); takes no payment",
}
# The routes that must carry the gate (the list), named so that dropping one fails loudly.
MUST_BE_GATED = {
    ("POST", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}/transactions"): CALLER_ACTIVE,
    ("POST", "/v1/customers"): CALLER_ACTIVE,
    ("PUT", "/v1/customers/{customer_id}"): CALLER_ACTIVE,  # the payer directory's changes
    ("DELETE", "/v1/customers/{customer_id}"): CALLER_ACTIVE,
    ("POST", "/v1/customers/{customer_id}/payment_methods"): CALLER_ACTIVE,
    ("POST", "/v1/collection-requests"): CALLER_ACTIVE,
    ("POST", "/v1/payments"): CALLER_ACTIVE,  # a payment received, recorded against a request
    ("POST", "/v1/bank-statements"): CALLER_ACTIVE,  # a statement's lines applied as payments
    ("POST", "/v1/bank-statement-lines/{line_id}/assign"): CALLER_ACTIVE,
    ("POST", "/v1/collection-methods"): CALLER_ACTIVE,
    ("GET", "/pay/{request_id}"): PAYEE_ACTIVE,
}


def declared() -> dict[tuple[str, str], RouteAccess]:
    """Every collection route and what it needs, from the functions' route tables."""
    found: dict[tuple[str, str], RouteAccess] = {}
    for group in GROUPS:
        module = load_module(ROOT / "functions" / group / "app.py", f"gate_check_{group}")
        found |= module.routes.access
    return found


ROUTES = declared()


def test_the_route_tables_are_the_templates_collection_routes() -> None:
    assert set(GROUPS.values()) == {name for name in FUNCTIONS if name.startswith("Collection")}
    assert set(ROUTES) == set().union(*(template_routes(name) for name in GROUPS.values()))


@pytest.mark.parametrize("route", sorted(ROUTES), ids=" ".join)
def test_every_write_and_every_payer_route_is_gated_or_listed_exempt(route: tuple[str, str]) -> None:
    method, _path = route
    access = ROUTES[route]
    if route in EXEMPT_WRITES or route in EXEMPT_PAYER_READS:
        assert access.business is None, f"{route} is gated: take it off the exempt lists"
    elif not access.token and access.licence:  # a payer's route
        assert access.business == PAYEE_ACTIVE, f"{route} serves a payer without the gate (or list it exempt)"
    elif method != "GET":
        assert access.business == CALLER_ACTIVE, f"{route} changes state without the gate (or list it exempt)"
    else:  # a business reads its own data whatever its status (what it was paid, what it owes)
        assert access.business is None, f"{route} is a read: reads stay open"


def test_the_routes_that_move_money_register_customers_or_serve_payers_are_gated() -> None:
    assert {route: ROUTES[route].business for route in MUST_BE_GATED} == MUST_BE_GATED
    assert set(EXEMPT_WRITES) <= set(ROUTES) and set(EXEMPT_PAYER_READS) <= set(ROUTES)  # no stale entries


def test_the_gate_is_declared_on_the_route_access() -> None:
    assert active_business(guarded("x")) == RouteAccess(capability="x", permission="x", business=CALLER_ACTIVE)
    assert serves_payee(RouteAccess(token=False)) == RouteAccess(token=False, business=PAYEE_ACTIVE)
    with pytest.raises(ValueError):
        RouteAccess(token=False, business=CALLER_ACTIVE)  # the caller's business is a token's
    with pytest.raises(ValueError):
        RouteAccess(business="anyone")


class App:
    """Just enough of a resolver to declare routes on."""

    def __getattr__(self, _name: str) -> Any:
        return lambda *_a, **_k: lambda f: f


def event(path: str, method: str = "POST") -> dict[str, Any]:
    return {"httpMethod": method, "resource": path, "headers": {}, "requestContext": {"identity": {}}}


def test_admit_asks_for_the_callers_business_only_on_gated_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    from mzpay.domain.collection.access import Identity
    from mzpay.http import collection_auth

    asked: list[str] = []

    def require_business(account_id: str) -> None:
        asked.append(account_id)
        if account_id == "acct_suspended":
            raise ServiceError(403, "forbidden", "suspended", account_status="suspended")

    routes = CollectionRoutes(App(), lambda: None, require_business)  # type: ignore[arg-type]
    routes.post("/v1/gated", active_business(RouteAccess(licence=False)))
    routes.get("/v1/read", RouteAccess(licence=False))
    identity = Identity("sub", "iss", "acct_suspended", frozenset(), "configured")
    monkeypatch.setattr(collection_auth, "bearer_token", lambda _e: "token")
    monkeypatch.setattr(collection_auth, "verify_access_token", lambda *_a, **_k: identity)
    routes.admit(event("/v1/read", "GET"))
    assert asked == []
    with pytest.raises(ServiceError) as refused:
        routes.admit(event("/v1/gated"))
    assert (refused.value.status, refused.value.code, refused.value.extensions) == (
        403,
        "forbidden",
        {"account_status": "suspended"},
    )
    assert asked == ["acct_suspended"]
    # a token naming no account cannot pass a business's gate
    monkeypatch.setattr(
        collection_auth, "verify_access_token", lambda *_a, **_k: Identity("sub", "iss", None, frozenset(), "c")
    )
    with pytest.raises(ServiceError) as nobody:
        routes.admit(event("/v1/gated"))
    assert (nobody.value.status, nobody.value.code) == (403, "forbidden")
    assert asked == ["acct_suspended"]
