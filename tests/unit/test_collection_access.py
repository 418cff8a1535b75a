"""Who may call a collection route: claims -> identity, route requirements, and every route of
the collection function declaring what it needs."""

from __future__ import annotations

import pytest

from devstack.modules import load_module
from mzpay.domain.collection.access import (
    CONFIGURED,
    INSTALLATION_PERMISSIONS,
    OPEN,
    SIGNED_IN,
    InvalidClaims,
    RouteAccess,
    guarded,
    identity_from_claims,
    licence_admin,
)
from tests.unit.test_template import ROOT, template_routes


def test_permissions_are_scope_and_the_permissions_array_together() -> None:
    identity = identity_from_claims(
        {"sub": "ana", "iss": "https://idp", "scope": "a:read  b:write", "permissions": ["c:read"], "account_id": "x"},
        "configured",
    )
    assert identity.permissions == {"a:read", "b:write", "c:read"}
    assert (identity.subject, identity.account_id, identity.provider) == ("ana", "x", "configured")
    assert identity.actor() == {"kind": "business", "subject": "ana", "issuer": "https://idp", "account_id": "x"}
    assert identity_from_claims({"sub": "svc", "iss": "i"}, "idp_1").permissions == frozenset()


INSTALLATION = ("license:write", "identity_provider:read", "identity_provider:write", "account:review")
EVERYTHING = " ".join((*INSTALLATION, "license:read", "device:read"))


def test_only_a_bootstrap_token_without_an_account_is_the_administrator() -> None:
    admin = identity_from_claims({"sub": "root", "iss": "https://boot", "scope": EVERYTHING}, CONFIGURED)
    business = identity_from_claims(
        {"sub": "ana", "iss": "https://boot", "scope": EVERYTHING, "account_id": "a"}, CONFIGURED
    )
    registered = identity_from_claims({"sub": "root", "iss": "https://idp", "scope": EVERYTHING}, "idp_01X")
    assert (admin.kind, business.kind, registered.kind) == ("administrator", "business", "business")
    assert frozenset(INSTALLATION) == INSTALLATION_PERMISSIONS
    for permission in INSTALLATION:
        assert admin.holds(permission) and admin.refusal(permission) is None
        for other in (business, registered):
            assert not other.holds(permission)  # whatever the claims list
            assert other.refusal(permission) == (
                f"The permission {permission} is the installation administrator's: a token acting for a "
                "business account (account_id) never holds it."
            )
    assert business.holds("license:read") and business.holds("device:read")  # business permissions stay
    narrow = identity_from_claims({"sub": "root", "iss": "https://boot", "scope": "license:read"}, CONFIGURED)
    assert narrow.refusal("account:review") == "The access token lacks the permission account:review."
    assert admin.actor() == {"kind": "administrator", "subject": "root", "issuer": "https://boot", "account_id": None}


@pytest.mark.parametrize(
    "claims",
    [
        {"iss": "i"},
        {"sub": "", "iss": "i"},
        {"sub": "a", "iss": "i", "account_id": 7},
        {"sub": "a", "iss": "i", "scope": ["x"]},
        {"sub": "a", "iss": "i", "permissions": "x"},
        {"sub": "a", "iss": "i", "permissions": [1]},
    ],
)
def test_claims_that_name_no_identity_are_refused(claims: dict[str, object]) -> None:
    with pytest.raises(InvalidClaims):
        identity_from_claims(claims, "configured")


def test_a_capability_needs_a_licence_and_a_permission_a_token() -> None:
    with pytest.raises(ValueError):
        RouteAccess(licence=False, capability="x")
    with pytest.raises(ValueError):
        RouteAccess(token=False, permission="x")
    assert guarded("device:read") == RouteAccess(capability="device:read", permission="device:read")
    assert licence_admin("license:write") == RouteAccess(licence=False, permission="license:write")


def test_every_collection_route_declares_what_it_needs_and_only_health_version_and_docs_are_open() -> None:
    declared = {}
    for group in ("collection_system", "collection_identity"):
        module = load_module(ROOT / "functions" / group / "app.py", f"access_check_{group}")
        declared |= module.routes.access
    assert set(declared) == template_routes("CollectionSystemFunction") | template_routes("CollectionIdentityFunction")
    documentation = {("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/docs/{asset}")}
    assert {route for route, access in declared.items() if access == OPEN} == {
        ("GET", "/health"),
        ("GET", "/v1/version"),
        *documentation,
    }
    assert {route for route, access in declared.items() if not access.licence} == {
        *documentation,
        ("GET", "/health"),
        ("GET", "/v1/version"),
        ("GET", "/v1/license"),
        ("POST", "/v1/license/activate"),
        ("POST", "/v1/license/deactivate"),
        ("POST", "/v1/license/validate"),
    }
    assert declared[("GET", "/v1/system/config/supported-docs")] == SIGNED_IN
    assert declared[("DELETE", "/v1/identity_providers")] == guarded("identity_provider:write")
    assert declared[("POST", "/v1/devices/trust")] == guarded("device:write")
