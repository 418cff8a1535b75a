"""Lambda REQUEST authorizers: reading the request, and the answers API Gateway understands.

Allow: an IAM policy for the whole API (so a cached answer serves every route) plus the
context handlers receive. Refusals: see `refuse`. No or unknown credentials: raise
`Unauthorized`, which API Gateway answers with the UNAUTHORIZED gateway response.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mzpay.domain.common.errors import ServiceError
from mzpay.http.errors import problem_document
from mzpay.http.principal import refusal_context
from mzpay.http.request_id import header_value, resolve_request_id
from mzpay.observability import correlate, count


class Unauthorized(Exception):
    """API Gateway maps exactly this message to its 401 UNAUTHORIZED response."""

    def __init__(self) -> None:
        super().__init__("Unauthorized")


def answer(authorize: Callable[[dict[str, Any]], dict[str, Any]], event: dict[str, Any]) -> dict[str, Any]:
    """An authorizer's Lambda answer to `event`: its log lines carry the request id the API
    answers with (the function behind it logs the same), and a refusal is counted by its code
    (AuthorizerRefusals; `unauthorized` for no or unknown credentials)."""
    request_id = resolve_request_id(event)
    correlate(request_id, request_id=request_id)
    try:
        return authorize(event)
    except Unauthorized:
        count("AuthorizerRefusals", code="unauthorized")
        raise


def bearer_token(event: dict[str, Any]) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, else None."""
    value = header_value(event, "Authorization") or ""
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def source_ip(event: dict[str, Any]) -> str:
    return str(((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp") or "")


def client_certificate(event: dict[str, Any]) -> str | None:
    """The PEM of the certificate the client presented (API Gateway mutual TLS), else None."""
    identity = (event.get("requestContext") or {}).get("identity") or {}
    pem = (identity.get("clientCert") or {}).get("clientCertPem")
    return pem if isinstance(pem, str) and pem else None


def api_wildcard_arn(method_arn: str) -> str:
    """arn:...:apiId/stage/GET/v1/x -> arn:...:apiId/stage/*: the policy covers the whole API."""
    head, _, rest = method_arn.partition("/")
    stage = rest.split("/", 1)[0] if rest else "*"
    return f"{head}/{stage}/*"


def _policy(effect: str, event: dict[str, Any]) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Action": "execute-api:Invoke", "Effect": effect, "Resource": api_wildcard_arn(event["methodArn"])}
        ],
    }


def allow(event: dict[str, Any], principal: str, context: dict[str, str | int | bool]) -> dict[str, Any]:
    """Let the request through; `context` reaches the handler as requestContext.authorizer."""
    return {"principalId": principal, "policyDocument": _policy("Allow", event), "context": context}


def refuse(event: dict[str, Any], principal: str, error: ServiceError) -> dict[str, Any]:
    """Refuse with `error`. API Gateway gives each gateway response type one status, so a 403
    is a Deny whose context carries the whole problem document (the ACCESS_DENIED gateway
    response writes it out), and any other status (401 with a specific code, 421) is an Allow
    whose context carries the refusal, answered by the function before any route runs."""
    count("AuthorizerRefusals", code=error.code)
    if error.status == 403:
        return {
            "principalId": principal,
            "policyDocument": _policy("Deny", event),
            "context": {"problem": json.dumps(problem_document(error), separators=(",", ":"))},
        }
    return {
        "principalId": principal,
        "policyDocument": _policy("Allow", event),
        "context": {"refusal": refusal_context(error)},
    }
