"""Who calls the gateway: admitting a request from the authorizer's context, and the
refusals an authorizer hands to API Gateway (mzpay.http.principal, mzpay.http.authorizers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mzpay.domain.access.principal import CUSTOMER_CREATES, CUSTOMER_ROUTES, customer_of_create, ensure_customer_visible
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.http import principal as principal_module
from mzpay.http.authorizers import refuse
from mzpay.http.principal import Principal, admit, merchant, refusal_context
from tests.expected import policy, problem

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
WWW = {"WWW-Authenticate": 'Bearer realm="mzpay"'}
METHOD_ARN = "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/POST/v1/payments"
MERCHANT = {
    "account_id": "01JACCOUNT0000000000000000",
    "mode": "test",
    "scopes": "payments:read payments:write",
    "key_id": "01JKEY000000000000000000000",
    "allowed_customers": "",
    "expires_at": "",
}


@pytest.fixture(autouse=True)
def no_principal() -> Iterator[None]:
    principal_module._current.set(None)
    yield
    principal_module._current.set(None)


def event(authorizer: dict[str, Any] | None, query: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "resource": "/v1/payments/{payment_id}",  # a route a key restricted to customers may call
        "path": "/v1/payments/01JPAYMENT0000000000000000",
        "httpMethod": "GET",
        "headers": {},
        "queryStringParameters": query,
        "requestContext": {"requestId": "r-1", "stage": "prod", "authorizer": authorizer},
    }


def merchant_event(query: dict[str, str] | None = None, **context: str) -> dict[str, Any]:
    return event({**MERCHANT, **context}, query)


def raised(call: Any, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    with pytest.raises(ServiceError) as caught:
        call(*args, **kwargs)
    error = caught.value
    return (error.status, error.code, error.message, error.errors, error.headers, error.extensions)


def wrong_region(message: str) -> ServiceError:
    """The refusal of a key whose tenant is served in regional-sa."""
    peer = {"Service-Region": "regional-sa", "Service-Region-Url": "https://gw.sa.example"}
    return ServiceError(
        421, "wrong_region", message, headers=peer, region="regional-sa", base_url=peer["Service-Region-Url"]
    )


# ---------------------------------------------------------------- refusals from the authorizer
@pytest.mark.parametrize(
    "error",
    [
        ServiceError(401, "invalid_api_key", "The API key is malformed.", headers=WWW),
        ServiceError(401, "key_expired", "This API key has expired.", headers=WWW),
        wrong_region("This tenant is served in region regional-sa."),
        ServiceError(418, "teapot", "No headers, no extensions."),
    ],
)
def test_a_refusal_is_raised_exactly_as_the_authorizer_gave_it(error: ServiceError) -> None:
    answer = raised(admit, event({"refusal": refusal_context(error)}, {"mode": "live"}))
    assert answer == (error.status, error.code, error.message, (), error.headers, error.extensions)
    with pytest.raises(ServiceError):
        merchant()


def test_refusal_context_is_json_of_the_whole_error() -> None:
    error = ServiceError(421, "wrong_region", "Elsewhere.", headers={"Service-Region": "mz"}, region="mz")
    assert json.loads(refusal_context(error)) == {
        "status": 421,
        "code": "wrong_region",
        "message": "Elsewhere.",
        "headers": {"Service-Region": "mz"},
        "extensions": {"region": "mz"},
    }


# ---------------------------------------------------------------- merchants
def test_a_merchant_context_becomes_the_principal() -> None:
    admit(
        merchant_event(
            scopes="payments:read  refunds:write accounts:write",
            allowed_customers="cus_1,cus_2,",
            expires_at="2026-03-02T00:00:00Z",
        ),
        now=NOW,
    )
    expected = Principal(
        account_id="01JACCOUNT0000000000000000",
        mode="test",
        scopes=frozenset({"payments:read", "refunds:write", "accounts:write"}),
        key_id="01JKEY000000000000000000000",
        allowed_customers=frozenset({"cus_1", "cus_2"}),
        expires_at=datetime(2026, 3, 2, 0, 0, 0, tzinfo=UTC),
        acting_account_id="01JACCOUNT0000000000000000",
    )
    assert merchant() == expected
    assert merchant("refunds:write") == expected


def test_a_merchant_context_without_expiry_or_restrictions() -> None:
    admit(merchant_event(), now=NOW)
    assert merchant() == Principal(
        account_id="01JACCOUNT0000000000000000",
        mode="test",
        scopes=frozenset({"payments:read", "payments:write"}),
        key_id="01JKEY000000000000000000000",
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id="01JACCOUNT0000000000000000",
    )


def test_admit_without_now_uses_the_clock() -> None:
    admit(merchant_event(expires_at="2999-01-01T00:00:00Z"))
    assert merchant().expires_at == datetime(2999, 1, 1, tzinfo=UTC)
    assert raised(admit, merchant_event(expires_at="2000-01-01T00:00:00Z"))[:2] == (401, "key_expired")


def test_a_missing_scope_is_insufficient_scope() -> None:
    admit(merchant_event(), now=NOW)
    assert raised(merchant, "refunds:write") == (
        403,
        "insufficient_scope",
        "This API key lacks the scope refunds:write.",
        (),
        {},
        {"missing_scope": "refunds:write"},
    )


@pytest.mark.parametrize("expires_at", ["2026-03-01T12:00:00Z", "2026-03-01T11:59:59Z", "2026-03-01T12:00:00+00:00"])
def test_an_expired_key_is_refused(expires_at: str) -> None:
    assert raised(admit, merchant_event(expires_at=expires_at), now=NOW) == (
        401,
        "key_expired",
        "This API key has expired.",
        (),
        WWW,
        {},
    )
    assert raised(merchant)[:2] == (401, "unauthorized")  # nothing of the refused request remains


def test_a_key_expiring_after_now_is_admitted() -> None:
    admit(merchant_event(expires_at="2026-03-01T12:00:01Z"), now=NOW)
    assert merchant().expires_at == datetime(2026, 3, 1, 12, 0, 1, tzinfo=UTC)


def test_another_mode_is_wrong_environment() -> None:
    assert raised(admit, merchant_event({"mode": "live"}), now=NOW) == (
        401,
        "wrong_environment",
        "A test key cannot reach live data; use a live key.",
        (),
        WWW,
        {},
    )


def test_the_same_mode_is_admitted() -> None:
    admit(merchant_event({"mode": "test"}), now=NOW)
    assert merchant().mode == "test"


def test_acting_for_another_account_needs_accounts_write() -> None:
    assert raised(admit, merchant_event({"account_id": "01JOTHER"}), now=NOW) == (
        403,
        "insufficient_scope",
        "This API key lacks the scope accounts:write.",
        (),
        {},
        {"missing_scope": "accounts:write"},
    )


def test_acting_for_another_account_with_accounts_write() -> None:
    asked: list[tuple[str, str]] = []
    event = merchant_event({"account_id": "01JOTHER"}, scopes="payments:read accounts:write")
    admit(event, now=NOW, may_act_for=lambda caller, named: asked.append((caller, named)))
    principal = merchant("payments:read")
    assert (principal.account_id, principal.acting_account_id) == ("01JACCOUNT0000000000000000", "01JOTHER")
    assert asked == [("01JACCOUNT0000000000000000", "01JOTHER")]  # the connection is checked once


def test_acting_for_an_account_that_is_not_connected_is_refused_before_any_route() -> None:
    def not_connected(caller: str, named: str) -> None:
        raise ServiceError(404, "not_found", "No such account.")

    event = merchant_event({"account_id": "01JOTHER"}, scopes="payments:read accounts:write")
    assert raised(admit, event, now=NOW, may_act_for=not_connected) == (
        404,
        "not_found",
        "No such account.",
        (),
        {},
        {},
    )
    assert raised(merchant)[:2] == (401, "unauthorized")  # no principal was admitted


def test_the_scope_is_checked_before_the_connection_is_read() -> None:
    def unread(caller: str, named: str) -> None:
        raise AssertionError("the directory must not be read without accounts:write")

    assert raised(admit, merchant_event({"account_id": "01JOTHER"}), now=NOW, may_act_for=unread)[:2] == (
        403,
        "insufficient_scope",
    )


def test_naming_the_own_account_needs_no_extra_scope() -> None:
    def unread(caller: str, named: str) -> None:
        raise AssertionError("naming the own account reads nothing")

    admit(merchant_event({"account_id": "01JACCOUNT0000000000000000"}), now=NOW, may_act_for=unread)
    assert merchant().acting_account_id == "01JACCOUNT0000000000000000"


def test_a_customer_outside_the_allowed_list_is_refused() -> None:
    assert raised(admit, merchant_event({"customer_id": "cus_3"}, allowed_customers="cus_1,cus_2"), now=NOW) == (
        403,
        "customer_not_allowed",
        "This API key is restricted to other customers.",
        (),
        {},
        {},
    )


def test_a_customer_in_the_allowed_list_is_admitted() -> None:
    admit(merchant_event({"customer_id": "cus_2"}, allowed_customers="cus_1,cus_2"), now=NOW)
    assert merchant().allowed_customers == frozenset({"cus_1", "cus_2"})


def test_any_customer_is_allowed_when_the_list_is_empty() -> None:
    admit(merchant_event({"customer_id": "cus_anyone"}), now=NOW)
    assert merchant().allowed_customers == frozenset()


@pytest.mark.parametrize(
    "authorizer", [None, {}, {"role": "operator", "source_ip": "10.0.0.1"}, {"principalId": "x", "mode": "test"}]
)
def test_without_a_merchant_context_merchant_is_unauthorized(authorizer: dict[str, Any] | None) -> None:
    admit(merchant_event(), now=NOW)  # a previous request's principal must not survive
    admit(event(authorizer), now=NOW)
    assert raised(merchant) == (401, "unauthorized", "An API key is required.", (), WWW, {})
    assert raised(merchant, "payments:read")[:2] == (401, "unauthorized")


def test_an_event_without_request_context_is_not_a_merchant() -> None:
    admit({"path": "/health"})
    assert raised(merchant)[:2] == (401, "unauthorized")


# ---------------------------------------------------------------- mzpay.http.authorizers.refuse
def test_a_403_refusal_is_a_deny_carrying_the_problem_document() -> None:
    error = ServiceError(403, "ip_not_allowed", "This API key may not be used from this address.", rule="ip")
    answer = refuse({"methodArn": METHOD_ARN}, "01JKEY", error)
    assert set(answer) == {"principalId", "policyDocument", "context"}
    assert answer["principalId"] == "01JKEY"
    assert answer["policyDocument"] == policy("Deny")
    assert set(answer["context"]) == {"problem"}
    assert json.loads(answer["context"]["problem"]) == problem(
        403, "Forbidden", "ip_not_allowed", "This API key may not be used from this address.", rule="ip"
    )
    assert " " not in answer["context"]["problem"].replace("This API key may not be used from this address.", "")


@pytest.mark.parametrize(
    "error",
    [
        ServiceError(401, "invalid_api_key", "Mistyped.", headers=WWW),
        wrong_region("Served in regional-sa."),
    ],
)
def test_other_refusals_are_an_allow_whose_refusal_admit_raises(error: ServiceError) -> None:
    answer = refuse({"methodArn": METHOD_ARN}, "anonymous", error)
    assert answer == {
        "principalId": "anonymous",
        "policyDocument": policy("Allow"),
        "context": {"refusal": refusal_context(error)},
    }
    # API Gateway hands the context to the function as requestContext.authorizer (plus principalId)
    request = event({**answer["context"], "principalId": "anonymous"})
    assert raised(admit, request, now=NOW) == (
        error.status,
        error.code,
        error.message,
        (),
        error.headers,
        error.extensions,
    )


# ---------------------------------------------------------------- keys restricted to customers (issue 30.6)
def routed(method: str, resource: str, query: dict[str, str] | None = None, **context: str) -> dict[str, Any]:
    return {**merchant_event(query, **context), "httpMethod": method, "resource": resource}


def gateway_operations() -> set[tuple[str, str]]:
    document = json.loads((ROOT / "docs" / "openapi" / "gateway.json").read_text())
    verbs = ("get", "put", "post", "delete", "patch")
    return {(m.upper(), path) for path, item in document["paths"].items() for m in item if m in verbs}


def test_the_routes_of_restricted_keys_are_routes_of_the_gateway() -> None:
    """Every entry names a real route (a renamed route cannot linger here), and the creates are among them."""
    assert gateway_operations() >= CUSTOMER_ROUTES
    assert CUSTOMER_CREATES <= CUSTOMER_ROUTES


def test_every_other_gateway_route_is_refused_to_a_restricted_key_whatever_customer_it_names() -> None:
    """Listed from the gateway's OpenAPI document (generated from the route table): a route added
    later is refused to a restricted key until it is made to record and check its customer."""
    others = sorted(gateway_operations() - CUSTOMER_ROUTES)
    assert ("GET", "/v1/balance") in others and ("POST", "/v1/payout-batches") in others
    for method, resource in others:
        restricted = routed(method, resource, {"customer_id": "cus_1"}, allowed_customers="cus_1")
        assert raised(admit, restricted, now=NOW) == (
            403,
            "customer_not_allowed",
            "This API key is restricted to customers, and this route acts for the whole account.",
            (),
            {},
            {},
        ), (method, resource)
        admit(routed(method, resource), now=NOW)  # an unrestricted key passes the gate


@pytest.mark.parametrize(("method", "resource"), sorted(CUSTOMER_CREATES))
def test_a_restricted_key_names_its_customer_on_every_create(method: str, resource: str) -> None:
    assert raised(admit, routed(method, resource, allowed_customers="cus_1"), now=NOW) == (
        403,
        "customer_not_allowed",
        "This API key is restricted to customers: name one of them with ?customer_id=.",
        (),
        {},
        {},
    )
    admit(routed(method, resource, {"customer_id": "cus_1"}, allowed_customers="cus_1"), now=NOW)
    assert merchant().customer_id == "cus_1"


def test_a_customer_id_is_bounded() -> None:
    assert raised(admit, merchant_event({"customer_id": "c" * 101}), now=NOW) == (
        400,
        "invalid_request",
        "customer_id: 1 to 100 characters.",
        (FieldError("customer_id", "invalid_value", "1 to 100 characters"),),
        {},
        {},
    )


def test_the_customer_of_a_create_is_the_bodys_or_the_querys_and_one_of_the_keys() -> None:
    admit(merchant_event({"customer_id": "cus_1"}, allowed_customers="cus_1,cus_2"), now=NOW)
    assert customer_of_create(merchant()) == "cus_1"
    assert customer_of_create(merchant(), "cus_1") == "cus_1"
    assert raised(customer_of_create, merchant(), "cus_2")[:3] == (
        400,
        "invalid_request",
        "customer.id: customer.id and ?customer_id= name different customers.",
    )
    admit(merchant_event(allowed_customers="cus_1"), now=NOW)
    assert raised(customer_of_create, merchant(), "cus_9")[:3] == (
        403,
        "customer_not_allowed",
        "This API key is restricted to other customers.",
    )
    assert raised(customer_of_create, merchant())[:2] == (403, "customer_not_allowed")
    admit(merchant_event(), now=NOW)
    assert customer_of_create(merchant()) is None  # an unrestricted key may name none


def test_a_restricted_key_sees_only_its_customers_resources() -> None:
    gone = ServiceError(404, "not_found", "No such payment.")
    admit(merchant_event(allowed_customers="cus_1"), now=NOW)
    ensure_customer_visible(merchant(), "cus_1", gone)
    for other in ("cus_2", None):
        with pytest.raises(ServiceError) as caught:
            ensure_customer_visible(merchant(), other, gone)
        assert caught.value is gone
    admit(merchant_event(), now=NOW)
    ensure_customer_visible(merchant(), None, gone)  # an unrestricted key sees every customer's
