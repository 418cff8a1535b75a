"""The system licence over HTTP (regional-sa; every test leaves the demo licence active): the
state table, what 400/409/404 say, validation without activation, the gate on other routes,
expiry, capabilities, and concurrent activations. Calls are the installation administrator's
(the demo block's collection_admin_token) unless a test says otherwise."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
import requests

from devstack.launcher import RunningStack
from devstack.licence import generate_issuer_key, issue_licence
from tests.e2e.collection_client import CHALLENGE, Collection, assert_error, assert_ok

pytestmark = pytest.mark.e2e
NO_LICENCE = "No licence is active; activate one with POST /v1/license/activate."


@pytest.fixture
def sa(stack: RunningStack) -> Iterator[Collection]:
    client = Collection(stack, "regional-sa")
    client.token = client.admin  # managing the licence is the administrator's
    client.ensure_licence()
    yield client
    client.call("POST", "/v1/license/deactivate", {})
    client.ensure_licence()


def deactivate(client: Collection) -> None:
    assert assert_ok(client.call("POST", "/v1/license/deactivate", {})) == {"object": "bool", "success": True}


def licence_view(key: str, client: Collection, status: str) -> dict[str, Any]:
    """The Licence object of a key this test issued (read from its claims)."""
    claims = jwt.decode(key, options={"verify_signature": False})

    def iso(epoch: int) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))

    return {
        "id": claims["jti"],
        "status": status,
        "issued_to": claims["sub"],
        "issuer": claims["iss"],
        "issued_at": iso(claims["iat"]),
        "expires_at": iso(claims["exp"]),
        "capabilities": claims["capabilities"],
        "metadata": claims["metadata"],
    }


def test_the_demo_licence_is_active_and_a_second_activation_is_409(sa: Collection) -> None:
    body = assert_ok(sa.call("GET", "/v1/license"))
    assert body == {"object": "license", "license": licence_view(sa.demo["license_key"], sa, "active")}
    assert body["license"]["metadata"] == {"region": "regional-sa"}
    again = sa.call("POST", "/v1/license/activate", {"license_key": sa.demo["license_key"]})
    assert_error(again, 409, "already_exists", "A licence is already active; deactivate it first.")
    other = sa.call("POST", "/v1/license/activate", {"license_key": sa.licence()})
    assert_error(other, 409, "already_exists", "A licence is already active; deactivate it first.")


def test_deactivated_the_surface_answers_license_invalid_except_licence_routes_health_and_version(
    sa: Collection,
) -> None:
    deactivate(sa)
    assert_error(sa.call("GET", "/v1/license"), 404, "not_found", "No licence is active.")
    assert_error(sa.call("POST", "/v1/license/deactivate", {}), 404, "not_found", "No licence is active.")
    for method, path in [
        ("GET", "/v1/system/config/supported-docs"),
        ("GET", "/v1/system/accountopening/checklist"),
        ("GET", "/v1/identity_providers"),
        ("GET", "/v1/devices/" + "a" * 64),
    ]:
        assert_error(sa.call(method, path), 401, "license_invalid", NO_LICENCE)
        assert_error(sa.call(method, path, token=None), 401, "license_invalid", NO_LICENCE)  # licence first
    assert_error(sa.call("POST", "/v1/identity_providers", {"nonsense": 1}), 401, "license_invalid", NO_LICENCE)
    assert sa.call("GET", "/v1/version", token=None).status_code == 200
    assert sa.call("GET", "/health", token=None).status_code == 200
    validated = assert_ok(sa.call("POST", "/v1/license/validate", {"license_key": sa.demo["license_key"]}))
    assert validated["valid"] is True


def test_activation_answers_the_key_and_the_licence_then_routes_serve(sa: Collection) -> None:
    deactivate(sa)
    key = sa.licence(issued_to="Banco Beira", metadata={"tier": "gold"})
    body = assert_ok(sa.call("POST", "/v1/license/activate", {"license_key": key}))
    assert body == {"object": "license_key", "license_key": key, "license": licence_view(key, sa, "active")}
    assert assert_ok(sa.call("GET", "/v1/license")) == {"object": "license", "license": licence_view(key, sa, "active")}
    assert assert_ok(sa.call("GET", "/v1/system/config/supported-docs"))["object"] == "supported_documents"


@pytest.mark.parametrize(
    ("make_key", "reason", "message"),
    [
        (lambda c: "not-a-jwt", "malformed", "The licence key is not a signed JWT."),
        (
            lambda c: issue_licence(generate_issuer_key()[0], issued_to="x"),
            "invalid_signature",
            "The licence key's signature does not verify.",
        ),
        (
            lambda c: c.licence(issued_at=int(time.time()) - 7200, lifetime_seconds=3600),
            "expired",
            "The licence expired.",
        ),
        (lambda c: c.licence(issuer="someone-else"), "wrong_issuer", "The licence key was issued by another issuer."),
        (
            lambda c: c.licence(extra_claims={"capabilities": "all"}),
            "invalid_claims",
            "A licence key carries jti, sub, iss, iat, exp, capabilities (and metadata, a map).",
        ),
    ],
    ids=["malformed", "bad-signature", "expired", "wrong-issuer", "bad-claims"],
)
def test_an_invalid_key_is_400_and_activates_nothing(sa: Collection, make_key: Any, reason: str, message: str) -> None:
    deactivate(sa)
    response = sa.call("POST", "/v1/license/activate", {"license_key": make_key(sa)})
    assert_error(
        response,
        400,
        "validation_error",
        f"The licence key is not valid: {message}",
        {"errors": [{"field": "license_key", "code": reason, "message": message}]},
    )
    assert_error(sa.call("GET", "/v1/license"), 404, "not_found", "No licence is active.")


def test_an_activation_without_a_key_is_a_validation_error(sa: Collection) -> None:
    response = sa.call("POST", "/v1/license/activate", {})
    assert_error(
        response,
        400,
        "validation_error",
        "The request has invalid fields: license_key. A body of this request looks like "  # the model's example
        '{"license_key": "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJlc2NvbGEtbWFwdXRvIn0.c2lnbmF0dXJl"}.',
        {"errors": [{"field": "license_key", "code": "required", "message": "license_key is required"}]},
    )


def test_validate_reports_each_status_without_activating(sa: Collection) -> None:
    def validation(key: str) -> Any:
        return assert_ok(sa.call("POST", "/v1/license/validate", {"license_key": key}))

    def reported(valid: bool, message: str, view: Any) -> dict[str, Any]:
        return {"object": "license_validation", "valid": valid, "message": message, "license": view}

    good = sa.licence()
    assert validation(good) == reported(True, "The licence key is valid.", licence_view(good, sa, "active"))
    expired = sa.licence(issued_at=int(time.time()) - 7200, lifetime_seconds=3600)
    assert validation(expired) == reported(False, "The licence expired.", licence_view(expired, sa, "expired"))
    forged = issue_licence(generate_issuer_key()[0], issued_to="Forger")
    assert validation(forged) == reported(
        False, "The licence key's signature does not verify.", licence_view(forged, sa, "invalid")
    )
    assert validation("x.y.z") == reported(False, "The licence key is not a signed JWT.", None)
    # nothing of it was activated: the demo licence is still the active one
    assert (
        assert_ok(sa.call("GET", "/v1/license"))["license"]["id"]
        == licence_view(sa.demo["license_key"], sa, "active")["id"]
    )


def test_an_expired_licence_reads_expired_gates_with_license_expired_and_can_be_replaced(sa: Collection) -> None:
    deactivate(sa)
    short = sa.licence(lifetime_seconds=3)
    assert_ok(sa.call("POST", "/v1/license/activate", {"license_key": short}))
    assert_ok(sa.call("GET", "/v1/system/accountopening/checklist"))
    view = licence_view(short, sa, "expired")
    expires = jwt.decode(short, options={"verify_signature": False})["exp"]
    time.sleep(max(0.0, expires - time.time()) + 1.1)
    assert assert_ok(sa.call("GET", "/v1/license")) == {"object": "license", "license": view}
    assert_error(
        sa.call("GET", "/v1/system/accountopening/checklist"),
        401,
        "license_expired",
        "The licence expired; activate a new one with POST /v1/license/activate.",
        {"license_id": view["id"], "expired_at": view["expires_at"]},
    )
    fresh = sa.licence()
    assert_ok(sa.call("POST", "/v1/license/activate", {"license_key": fresh}))  # an expired one is replaced
    assert assert_ok(sa.call("GET", "/v1/license"))["license"] == licence_view(fresh, sa, "active")


def test_a_licence_without_a_routes_capability_is_403_naming_it(sa: Collection) -> None:
    deactivate(sa)
    narrow = sa.licence(capabilities=["identity_provider:read", "kyc:read"])
    assert_ok(sa.call("POST", "/v1/license/activate", {"license_key": narrow}))
    assert assert_ok(sa.call("GET", "/v1/identity_providers"))["object"] == "list"
    assert_error(
        sa.call("GET", "/v1/devices/" + "b" * 64),
        403,
        "forbidden",
        "The licence does not include the capability device:read.",
        {"capability": "device:read"},
    )
    assert_error(
        sa.call("POST", "/v1/identity_providers", {}),
        403,
        "forbidden",
        "The licence does not include the capability identity_provider:write.",
        {"capability": "identity_provider:write"},
    )


def test_licence_routes_need_a_token_and_its_permission(sa: Collection) -> None:
    assert_error(
        sa.call("GET", "/v1/license", token=None),
        401,
        "unauthorized",
        "An access token is required: Authorization: Bearer <access token>.",
        {"reason": "missing"},
        CHALLENGE,
    )
    reader = sa.mint_admin(scope="license:read")
    assert assert_ok(sa.call("GET", "/v1/license", token=reader))["object"] == "license"
    assert_error(
        sa.call("POST", "/v1/license/deactivate", {}, token=reader),
        403,
        "forbidden",
        "The access token lacks the permission license:write.",
        {"permission": "license:write"},
    )
    business = sa.mint(scope="license:read license:write")  # acts for the demo account
    assert assert_ok(sa.call("GET", "/v1/license", token=business))["object"] == "license"  # reads stay open
    assert_error(
        sa.call("POST", "/v1/license/deactivate", {}, token=business),
        403,
        "forbidden",
        "The permission license:write is the installation administrator's: a token acting for a business "
        "account (account_id) never holds it.",
        {"permission": "license:write"},
    )


def test_concurrent_activations_exactly_one_wins(sa: Collection) -> None:
    deactivate(sa)
    keys = [sa.licence(issued_to=f"Racer {i}") for i in range(8)]
    barrier = threading.Barrier(len(keys))
    answers: list[requests.Response | None] = [None] * len(keys)

    def activate(index: int) -> None:
        barrier.wait()
        answers[index] = sa.call("POST", "/v1/license/activate", {"license_key": keys[index]})

    threads = [threading.Thread(target=activate, args=(i,)) for i in range(len(keys))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(a.status_code for a in answers if a is not None)
    assert statuses == [200] + [409] * (len(keys) - 1)
    winner = next(i for i, a in enumerate(answers) if a is not None and a.status_code == 200)
    assert assert_ok(sa.call("GET", "/v1/license"))["license"] == licence_view(keys[winner], sa, "active")
