"""The resolver factory's conventions: error shapes, request ids, validation, faults."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Annotated, Any

import pytest
from aws_lambda_powertools.event_handler.openapi.params import Body
from botocore.exceptions import ClientError, EndpointConnectionError
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.money.amounts import collection_money, is_currency_code
from mzpay.http.errors import FieldError, ServiceError, Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from mzpay.observability import logger
from tests.events import rest_event
from tests.expected import problem

API_GATEWAY_REQUEST_ID = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


class MoneyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    amount: str
    currency: str

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        if not is_currency_code(value):
            raise PydanticCustomError("invalid_currency", "currency must be 3 upper-case letters")
        return value


class ThingIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    money: MoneyIn


class ParcelIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"weight": "1.5", "unit": "kg"}]})
    weight: str
    unit: str | None = None


class ShipmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"parcel": {"weight": "1.5"}}]})
    parcel: ParcelIn | None = None
    count: int = Field(default=1, ge=1, le=9)
    notes: list[str] = Field(default=[], max_length=2)


def build(surface: Surface) -> Any:
    app = create_resolver(surface)

    @app.post("/v1/shipments")
    def create_shipment(shipment: Annotated[ShipmentIn | None, Body()] = None) -> dict[str, Any]:
        return {"count": (shipment or ShipmentIn()).count}  # an optional body, as a capture's

    @app.post("/v1/things")
    def create_thing(thing: Annotated[ThingIn, Body()]) -> dict[str, Any]:
        return {"name": thing.name}

    @app.get("/v1/things/<thing_id>")
    def read_thing(thing_id: str) -> dict[str, Any]:
        if thing_id == "missing":
            raise ServiceError(404, "not_found", "No such thing.")
        if thing_id == "limited":
            raise ServiceError(422, "limit_exceeded", "Over the daily ceiling.", rule="daily", rejection_id="01J")
        if thing_id == "bad-field":
            raise ServiceError(
                400, "invalid_phone", "Bad phone.", errors=[FieldError("phone", "invalid_phone", "nope")]
            )
        if thing_id == "boom":
            raise RuntimeError("secret internal detail: table mzpay-mz-PaymentsTable")
        if thing_id == "aws-down":
            raise EndpointConnectionError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")
        if thing_id == "throttled":
            raise ClientError(
                {
                    "Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"},
                    "ResponseMetadata": {"HTTPStatusCode": 400},
                },
                "PutItem",
            )
        if thing_id == "denied":
            raise ClientError(
                {
                    "Error": {"Code": "AccessDeniedException", "Message": "no"},
                    "ResponseMetadata": {"HTTPStatusCode": 400},
                },
                "PutItem",
            )
        return {"id": thing_id}

    @app.get("/v1/money")
    def money() -> dict[str, Any]:
        return {"amount": collection_money(Decimal("1234567890123.10"), "MZN")}

    return lambda_handler(app)


def event(method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return rest_event(
        method,
        path,
        headers={"Content-Type": "application/json", **(headers or {})},
        body=body,
        context={
            "requestId": API_GATEWAY_REQUEST_ID,
            "stage": "prod",
            "resourcePath": path,
            "httpMethod": method,
            "identity": {"sourceIp": "198.51.100.7"},
        },
    )


def header(response: dict[str, Any], name: str) -> str | None:
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return str(values[-1])
    for key, value in (response.get("headers") or {}).items():
        if key.lower() == name.lower():
            return str(value)
    return None


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """What the structured logger writes during the test (one JSON object a line)."""
    stream = io.StringIO()
    handler = logger.registered_handler
    previous = handler.setStream(stream)  # type: ignore[attr-defined]
    yield stream
    handler.setStream(previous)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def gateway() -> Any:
    return build(Surface.GATEWAY)


@pytest.fixture(scope="module")
def collection() -> Any:
    return build(Surface.COLLECTION)


def call(handler: Any, *args: Any, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    response = handler(event(*args, **kwargs), None)
    return response, json.loads(response["body"])


def test_unknown_route_is_a_not_found_problem_document(gateway: Any) -> None:
    response, body = call(gateway, "GET", "/v1/nothing")
    assert response["statusCode"] == 404
    assert header(response, "Content-Type") == "application/problem+json"
    assert header(response, "X-Request-ID") == API_GATEWAY_REQUEST_ID
    assert body == problem(404, "Not Found", "not_found", "No route for GET /v1/nothing.")


def test_wrong_method_is_a_not_found_problem_document_like_api_gateway(gateway: Any) -> None:
    response, body = call(gateway, "DELETE", "/v1/things")
    assert response["statusCode"] == 404
    assert body == problem(404, "Not Found", "not_found", "No route for DELETE /v1/things.")


def test_unparseable_json_is_invalid_request(gateway: Any) -> None:
    response, body = call(gateway, "POST", "/v1/things", body='{"name": "x",')
    assert response["statusCode"] == 400
    assert body == problem(400, "Bad Request", "invalid_request", "The request body is not valid JSON.")


def test_validation_failure_lists_one_error_per_failed_field(gateway: Any) -> None:
    response, body = call(gateway, "POST", "/v1/things", body=json.dumps({"money": {"amount": 5, "extra": 1}}))
    assert response["statusCode"] == 400
    assert body["code"] == "invalid_request"
    assert body["error"] == {"code": "invalid_request", "message": body["detail"]}
    assert [(e["field"], e["code"]) for e in body["errors"]] == [
        ("name", "required"),
        ("money.amount", "invalid_type"),
        ("money.currency", "required"),
        ("money.extra", "unknown_field"),
    ]
    assert [e["message"] for e in body["errors"]] == [
        "name is required",
        "money.amount must be a string",
        "money.currency is required",
        "money.extra is not a field of this request",
    ]


def test_a_wrong_shape_is_answered_with_the_expected_one_in_the_services_words(gateway: Any) -> None:
    """A capture-like near miss ({"parcel": "1.5"}): the field names the object it expects, with
    its fields and example, and the detail shows the body's example; never pydantic's text."""
    response, body = call(gateway, "POST", "/v1/shipments", body=json.dumps({"parcel": "1.5"}))
    assert response["statusCode"] == 400
    assert body["code"] == "invalid_request"
    assert body["detail"] == (
        'The request has invalid fields: parcel. A body of this request looks like {"parcel": {"weight": "1.5"}}.'
    )
    assert body["errors"] == [
        {
            "field": "parcel",
            "code": "invalid_type",
            "message": "parcel must be an object with the fields weight (required) and unit, "
            'e.g. {"weight": "1.5", "unit": "kg"}',
        }
    ]


@pytest.mark.parametrize(
    ("payload", "field", "code", "message"),
    [
        ({"count": 0}, "count", "invalid_value", "count must be at least 1"),
        ({"count": 10}, "count", "invalid_value", "count must be at most 9"),
        ({"count": "many"}, "count", "invalid_value", "count must be a whole number"),
        ({"notes": "x"}, "notes", "invalid_type", "notes must be an array"),
        ({"notes": ["a", "b", "c"]}, "notes", "invalid_value", "notes must have at most 2 items"),
        ({"parcel": {"weight": 2}}, "parcel.weight", "invalid_type", "parcel.weight must be a string"),
    ],
)
def test_validation_messages_are_the_services_words(
    gateway: Any, payload: dict[str, Any], field: str, code: str, message: str
) -> None:
    response, body = call(gateway, "POST", "/v1/shipments", body=json.dumps(payload))
    assert response["statusCode"] == 400
    assert body["errors"] == [{"field": field, "code": code, "message": message}]
    assert "Input should" not in json.dumps(body)


def test_a_single_domain_field_code_becomes_the_problem_code(gateway: Any) -> None:
    payload = {"name": "x", "money": {"amount": "1.00", "currency": "mzn"}}
    response, body = call(gateway, "POST", "/v1/things", body=json.dumps(payload))
    assert response["statusCode"] == 400
    assert body["code"] == "invalid_currency"
    assert body["errors"] == [
        {"field": "money.currency", "code": "invalid_currency", "message": "currency must be 3 upper-case letters"}
    ]


def test_api_error_extensions_become_problem_members(gateway: Any) -> None:
    response, body = call(gateway, "GET", "/v1/things/limited")
    assert response["statusCode"] == 422
    assert body == problem(
        422, "Unprocessable Content", "limit_exceeded", "Over the daily ceiling.", rule="daily", rejection_id="01J"
    )


def test_api_error_field_errors_are_listed(gateway: Any) -> None:
    response, body = call(gateway, "GET", "/v1/things/bad-field")
    assert response["statusCode"] == 400
    assert body["errors"] == [{"field": "phone", "code": "invalid_phone", "message": "nope"}]


def test_unexpected_exception_is_500_without_internals_and_logged_with_request_id(
    gateway: Any, log_lines: io.StringIO
) -> None:
    response, body = call(gateway, "GET", "/v1/things/boom", headers={"X-Request-ID": "trace-500"})
    assert response["statusCode"] == 500
    assert body == problem(500, "Internal Server Error", "internal_error", "The service failed to process the request.")
    assert "secret internal detail" not in response["body"]
    logged = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    errors = [entry for entry in logged if entry.get("level") == "ERROR"]
    assert errors, "the exception must be logged"
    assert errors[-1]["request_id"] == "trace-500"
    assert "secret internal detail" in errors[-1]["exception"]


@pytest.mark.parametrize("thing_id", ["aws-down", "throttled"])
def test_dependency_fault_is_503_with_retry_after(gateway: Any, thing_id: str) -> None:
    response, body = call(gateway, "GET", f"/v1/things/{thing_id}")
    assert response["statusCode"] == 503
    assert header(response, "Retry-After") == "1"
    assert body["code"] == "service_unavailable"
    assert body["status"] == 503


def test_a_non_retryable_aws_error_is_a_500(gateway: Any) -> None:
    response, body = call(gateway, "GET", "/v1/things/denied")
    assert response["statusCode"] == 500
    assert body["code"] == "internal_error"


def test_well_formed_incoming_request_id_is_kept(gateway: Any) -> None:
    response, _ = call(gateway, "GET", "/v1/things/abc", headers={"x-request-id": "client-trace_01:abc.def"})
    assert response["statusCode"] == 200
    assert header(response, "X-Request-ID") == "client-trace_01:abc.def"


@pytest.mark.parametrize("incoming", ["", "has space", "x" * 129, "-leading-dash", "naïve", "a\nb", "abc\n"])
def test_malformed_incoming_request_id_is_replaced_by_api_gateways(gateway: Any, incoming: str) -> None:
    response, _ = call(gateway, "GET", "/v1/things/abc", headers={"X-Request-ID": incoming})
    assert header(response, "X-Request-ID") == API_GATEWAY_REQUEST_ID


def test_request_id_is_generated_when_the_event_has_none(gateway: Any) -> None:
    bare = event("GET", "/v1/things/abc")
    bare["requestContext"] = {}
    response = gateway(bare, None)
    generated = header(response, "X-Request-ID")
    assert generated is not None and len(generated) == 26  # a ULID


def test_collection_errors_use_the_collection_shape(collection: Any) -> None:
    response, body = call(collection, "GET", "/v1/things/missing", headers={"X-Request-ID": "abc123"})
    assert response["statusCode"] == 404
    assert header(response, "Content-Type") == "application/json"
    assert header(response, "X-Request-ID") == "abc123"
    assert body == {"code": "not_found", "message": "No such thing.", "request_id": "req_abc123", "metadata": {}}


def test_collection_request_id_keeps_an_existing_req_prefix(collection: Any) -> None:
    _, body = call(collection, "GET", "/v1/nothing", headers={"X-Request-ID": "req_01JD3M6Y8Q"})
    assert body["request_id"] == "req_01JD3M6Y8Q"


def test_collection_validation_failure_is_validation_error_with_field_metadata(collection: Any) -> None:
    response, body = call(collection, "POST", "/v1/things", body=json.dumps({"money": {}}))
    assert response["statusCode"] == 400
    assert body["code"] == "validation_error"
    assert body["request_id"] == f"req_{API_GATEWAY_REQUEST_ID}"
    assert [(e["field"], e["code"]) for e in body["metadata"]["errors"]] == [
        ("name", "required"),
        ("money.amount", "required"),
        ("money.currency", "required"),
    ]


def test_collection_extensions_go_to_metadata(collection: Any) -> None:
    _, body = call(collection, "GET", "/v1/things/limited")
    assert body["metadata"] == {"rule": "daily", "rejection_id": "01J"}


def test_collection_unexpected_exception_is_processing_error(collection: Any) -> None:
    response, body = call(collection, "GET", "/v1/things/boom")
    assert response["statusCode"] == 500
    assert body["code"] == "processing_error"
    assert "secret" not in body["message"]


def test_collection_money_is_serialized_exactly_as_a_json_number(collection: Any) -> None:
    response = collection(event("GET", "/v1/money"), None)
    assert response["statusCode"] == 200
    assert response["body"] == '{"amount":{"currency":"MZN","value":1234567890123.10}}'


def test_openapi_document_lists_the_declared_routes() -> None:
    app = create_resolver(Surface.GATEWAY)

    @app.get("/v1/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    schema = json.loads(app.get_openapi_json_schema(title="t", version="1.0.0"))
    assert list(schema["paths"]) == ["/v1/ping"]
    assert list(schema["paths"]["/v1/ping"]) == ["get"]
