"""One place decides what an AWS exception is (mzpay.store.aws): a lost conditional write, a fault
of AWS (503 + Retry-After), or a bug (500). Exceptions are built as botocore builds them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ParamValidationError,
    ReadTimeoutError,
)

from mzpay.http.errors import ServiceError, Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from mzpay.store import aws
from mzpay.store.idempotency import IdempotencyStore, IdempotencyUnavailable
from tests.events import rest_event

ENDPOINT = "https://dynamodb.af-south-1.amazonaws.com"


def client_error(code: str, status: int = 400, operation: str = "PutItem", **extra: Any) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}, **extra}, operation
    )


def cancelled(*codes: str) -> ClientError:
    reasons = [{"Code": c} for c in codes]
    return client_error("TransactionCanceledException", operation="TransactWriteItems", CancellationReasons=reasons)


FAULTS = {
    "read timeout": ReadTimeoutError(endpoint_url=ENDPOINT),
    "connect timeout": ConnectTimeoutError(endpoint_url=ENDPOINT),
    "endpoint unreachable": EndpointConnectionError(endpoint_url=ENDPOINT),
    "connection closed": ConnectionClosedError(endpoint_url=ENDPOINT),
    "throttled": client_error("ThrottlingException"),
    "provisioned throughput": client_error("ProvisionedThroughputExceededException"),
    "request limit": client_error("RequestLimitExceeded"),
    "internal server error": client_error("InternalServerError", 500),
    "service unavailable": client_error("ServiceUnavailable", 503),
    "any 5xx": client_error("SomethingNew", 502),
    "kms internal": client_error("KMSInternalException", operation="Decrypt"),
    "transaction in progress": client_error("TransactionInProgressException"),
    "transaction conflict only": cancelled("None", "TransactionConflict"),
}

NOT_FAULTS = {
    "conditional check": client_error("ConditionalCheckFailedException"),
    "transaction condition": cancelled("None", "ConditionalCheckFailed"),
    "access denied": client_error("AccessDeniedException"),
    "validation": client_error("ValidationException"),
    "bad parameters": ParamValidationError(report="Invalid type for parameter Item"),
    "a bug": KeyError("status"),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_every_kind_of_aws_fault_is_a_dependency_fault_and_never_a_conditional_failure(name: str) -> None:
    exc = FAULTS[name]
    assert aws.is_dependency_fault(exc) is True
    assert aws.is_conditional_failure(exc) is False  # a timeout has no `response`: it must not crash here


@pytest.mark.parametrize("name", sorted(NOT_FAULTS))
def test_what_retrying_cannot_fix_is_not_a_dependency_fault(name: str) -> None:
    assert aws.is_dependency_fault(NOT_FAULTS[name]) is False


def test_lost_conditional_writes_are_recognised_alone_and_in_transactions() -> None:
    assert aws.is_conditional_failure(NOT_FAULTS["conditional check"])
    assert aws.is_conditional_failure(NOT_FAULTS["transaction condition"])
    assert not aws.is_conditional_failure(cancelled("None", "TransactionConflict"))
    assert aws.error_code(ReadTimeoutError(endpoint_url=ENDPOINT)) == ""
    assert aws.error_code(client_error("ThrottlingException")) == "ThrottlingException"


def test_a_timeout_carries_no_usable_response() -> None:
    """The shipped defect: requests-style exceptions carry `response = None`."""
    exc = ReadTimeoutError(endpoint_url=ENDPOINT)
    assert getattr(exc, "response", "absent") is None


def _app_raising(surface: Surface, exc: BaseException) -> Any:
    app = create_resolver(surface)

    @app.get("/v1/thing")
    def thing() -> dict[str, Any]:
        try:
            raise exc
        except Exception as raised:  # the shape of every store: re-raise unless a lost condition
            if aws.is_conditional_failure(raised):
                raise ServiceError(409, "invalid_state", "lost") from raised
            raise

    return lambda_handler(app)


def _get(handler: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    event = rest_event(
        "GET", "/v1/thing", context={"requestId": "rid-1", "stage": "prod", "identity": {"sourceIp": "198.51.100.7"}}
    )
    response = handler(event, None)
    return response, json.loads(response["body"])


def _header(response: dict[str, Any], name: str) -> str | None:
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return str(values[-1])
    return None


@pytest.mark.parametrize("surface", list(Surface))
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_store_call_that_hits_an_aws_fault_answers_503_with_retry_after(surface: Surface, name: str) -> None:
    response, body = _get(_app_raising(surface, FAULTS[name]))
    assert response["statusCode"] == 503
    assert _header(response, "Retry-After") == "1"
    assert _header(response, "X-Request-ID") == "rid-1"
    if surface is Surface.COLLECTION:
        assert body["code"] == "service_unavailable" and body["request_id"].startswith("req_")
    elif surface is Surface.OAUTH:  # the token endpoint: OAuth's format and code, never cached
        assert body == {
            "error": "temporarily_unavailable",
            "error_description": "A dependency of the service is unavailable; retry.",
        }
        assert _header(response, "WWW-Authenticate") == 'Basic realm="mzpay"'
        assert _header(response, "Cache-Control") == "no-store"
    else:
        assert (body["status"], body["code"]) == (503, "service_unavailable")


def test_the_idempotency_store_turns_a_timeout_into_unavailable_not_a_crash() -> None:
    class TimingOutTable:
        def put_item(self, **_: Any) -> None:
            raise ReadTimeoutError(endpoint_url=ENDPOINT)

    store = IdempotencyStore.__new__(IdempotencyStore)
    store.table = TimingOutTable()
    with pytest.raises(IdempotencyUnavailable):
        store.claim("acc#test#k", "print", 30)


class BatchGetClient:
    """A DynamoDB client whose BatchGetItem leaves keys unprocessed for its first `throttled` calls."""

    def __init__(self, throttled: int) -> None:
        self.throttled = throttled
        self.calls: list[dict[str, Any]] = []

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(RequestItems)
        keys = RequestItems["T"]["Keys"]
        if len(self.calls) <= self.throttled:
            return {"Responses": {"T": [keys[0]]}, "UnprocessedKeys": {"T": {"Keys": keys[1:], "ConsistentRead": True}}}
        return {"Responses": {"T": keys}, "UnprocessedKeys": {}}


def test_batch_get_asks_again_for_the_keys_dynamodb_left_unprocessed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aws.time, "sleep", lambda _seconds: None)
    client = BatchGetClient(throttled=1)
    keys = [{"pk": "a"}, {"pk": "b"}, {"pk": "c"}]
    assert aws.batch_get(client, {"T": {"Keys": keys, "ConsistentRead": True}}) == {"T": keys}
    assert [call["T"]["Keys"] for call in client.calls] == [keys, keys[1:]]


def test_batch_get_left_throttled_is_a_dependency_fault_not_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aws.time, "sleep", lambda _seconds: None)
    client = BatchGetClient(throttled=10)
    keys = [{"pk": "a"}, {"pk": "b"}, {"pk": "c"}, {"pk": "d"}]
    with pytest.raises(ClientError) as raised:
        aws.batch_get(client, {"T": {"Keys": keys, "ConsistentRead": True}})
    assert len(client.calls) == aws.BATCH_GET_ATTEMPTS
    assert aws.is_dependency_fault(raised.value) and not aws.is_conditional_failure(raised.value)
