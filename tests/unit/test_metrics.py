"""Business counts as CloudWatch embedded-metric-format lines (mzpay.observability.count), and the
authorizers' refusals counted by code with the request id as their log lines' correlation id;
the EMF output is captured from stdout, as CloudWatch Logs reads it."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mzpay import deps
from mzpay.http.authorizers import Unauthorized, answer
from mzpay.http.merchant_auth import authorize_merchant
from mzpay.http.operator_auth import authorize_operator
from mzpay.observability import COUNTS, count


def emitted(out: str) -> list[dict[str, Any]]:
    """The EMF lines of `out`: {metric name, namespace, dimensions, value}."""
    found = []
    for line in out.splitlines():
        if not line.startswith('{"_aws"'):
            continue
        document = json.loads(line)
        (directive,) = document["_aws"]["CloudWatchMetrics"]
        ((metric,),) = [directive["Metrics"]]
        (dimensions,) = directive["Dimensions"]
        found.append(
            {
                "name": metric["Name"],
                "unit": metric["Unit"],
                "namespace": directive["Namespace"],
                "dimensions": {name: document[name] for name in dimensions},
                "value": document[metric["Name"]],
            }
        )
    return found


def logged(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith('{"level"')]


@pytest.fixture(autouse=True)
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "management-authorizer")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "mzpay")
    deps.reset()
    yield
    deps.reset()


def authorizer_event(token: str | None, ip: str = "203.0.113.7", request_id: str = "req-01") -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return {
        "type": "REQUEST",
        "methodArn": "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/GET/v1/system/info",
        "headers": headers,
        "requestContext": {"requestId": "apigw-req-1", "identity": {"sourceIp": ip}},
        "path": "/v1/system/info",
        "httpMethod": "GET",
    } | ({"headers": {**headers, "X-Request-ID": request_id}} if request_id else {})


def test_a_count_is_one_emf_line_in_the_namespace_with_the_service_and_its_dimensions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    count("Charges", outcome="succeeded", mode="live")
    assert emitted(capsys.readouterr().out) == [
        {
            "name": "Charges",
            "unit": "Count",
            "namespace": "mzpay",
            "dimensions": {"outcome": "succeeded", "mode": "live", "service": "management-authorizer"},
            "value": [1.0],
        }
    ]


def test_a_count_takes_exactly_its_declared_dimensions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="Charges takes the dimensions"):
        count("Charges", outcome="succeeded")
    with pytest.raises(KeyError):
        count("Undeclared", outcome="x")
    assert emitted(capsys.readouterr().out) == []
    assert set(COUNTS) == {
        "Charges",
        "PaymentOutcomes",
        "Refunds",
        "Payouts",
        "WebhookAttempts",
        "WebhookDeliveries",
        "AuthorizerRefusals",
        "Messages",
        "AuditWriteFailures",
    }


def test_an_operator_call_without_a_token_is_counted_unauthorized_and_logged_with_its_request_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(Unauthorized):
        answer(authorize_operator, authorizer_event(None, request_id="01JREQ0000000000000000000A"))
    out = capsys.readouterr().out
    assert [(m["name"], m["dimensions"]) for m in emitted(out)] == [
        ("AuthorizerRefusals", {"code": "unauthorized", "service": "management-authorizer"})
    ]


def test_an_operator_call_from_outside_the_allowlist_is_counted_by_its_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "10.0.0.0/8")
    deps.reset()
    refused = answer(authorize_operator, authorizer_event("any-token", ip="203.0.113.7"))
    assert refused["policyDocument"]["Statement"][0]["Effect"] == "Deny"
    assert json.loads(refused["context"]["problem"])["code"] == "ip_not_allowed"
    assert [(m["name"], m["dimensions"]["code"]) for m in emitted(capsys.readouterr().out)] == [
        ("AuthorizerRefusals", "ip_not_allowed")
    ]


def test_a_mistyped_api_key_is_counted_invalid_api_key(capsys: pytest.CaptureFixture[str]) -> None:
    from mzpay.domain.access.keys import generate_key

    key = generate_key("live")
    mistyped = key[:-1] + ("a" if key[-1] != "a" else "b")  # the checksum no longer matches
    refused = answer(authorize_merchant, authorizer_event(mistyped))
    assert json.loads(refused["context"]["refusal"])["code"] == "invalid_api_key"
    assert [(m["name"], m["dimensions"]["code"]) for m in emitted(capsys.readouterr().out)] == [
        ("AuthorizerRefusals", "invalid_api_key")
    ]


def test_the_authorizers_log_lines_carry_the_request_id_the_api_answers() -> None:
    from mzpay.observability import logger

    calls: list[str] = []

    def authorize(event: dict[str, Any]) -> dict[str, Any]:
        logger.info("checking")
        calls.append(event["path"])
        return {"principalId": "x"}

    buffer = io.StringIO()
    handler = logger.registered_handler  # the Logger writes to the stream it was made with
    previous = handler.setStream(buffer)
    try:
        allowed = answer(authorize, authorizer_event("t", request_id="01JREQ0000000000000000000B"))
    finally:
        handler.setStream(previous)
    assert allowed == {"principalId": "x"} and calls == ["/v1/system/info"]
    (line,) = logged(buffer.getvalue())
    assert (line["message"], line["correlation_id"], line["request_id"]) == (
        "checking",
        "01JREQ0000000000000000000B",
        "01JREQ0000000000000000000B",
    )
