"""API Gateway (REST) proxy events for calling a function's handler in-process, written once for
the unit and integration tests."""

from __future__ import annotations

import json
from typing import Any

CONTEXT = {"requestId": "r-1", "stage": "prod", "identity": {"sourceIp": "198.51.100.7"}}


def rest_event(
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    resource: str | None = None,
    query: dict[str, str] | None = None,
    path_parameters: dict[str, str] | None = None,
    context: dict[str, Any] | None = None,
    base64_encoded: bool = False,
) -> dict[str, Any]:
    """The event API Gateway hands a function for one request: `resource` is the declared route
    (the path unless given), `context` the requestContext (CONTEXT unless given)."""
    headers = dict(headers or {})
    return {
        "resource": resource or path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
        "pathParameters": path_parameters,
        "stageVariables": None,
        "requestContext": dict(CONTEXT) if context is None else context,
        "body": body,
        "isBase64Encoded": base64_encoded,
    }


def json_post(path: str, payload: Any) -> dict[str, Any]:
    """A POST of `payload` as JSON to `path`."""
    return rest_event("POST", path, headers={"Content-Type": "application/json"}, body=json.dumps(payload))


STAGE = "arn:aws:execute-api:af-south-1:123456789012:abc123/prod"


def authorizer_event(method: str, path: str, authorization: str | None, source_ip: str) -> dict[str, Any]:
    """The event API Gateway hands a REQUEST authorizer for `method` `path` (of the STAGE API) from
    `source_ip`, with an Authorization header unless it is None."""
    headers = {"Authorization": authorization} if authorization is not None else {}
    return {
        "type": "REQUEST",
        "methodArn": f"{STAGE}/{method}{path}",
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "requestContext": {"identity": {"sourceIp": source_ip}, "requestId": "r-1", "stage": "prod"},
    }
