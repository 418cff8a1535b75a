"""API errors and their wire shapes.

Gateway and management: RFC 9457 problem documents with `code`, per-field `errors[]` and the
legacy `error: {code, message}` envelope. Collection surface: `{code, message, request_id,
metadata}`. The gateway's token endpoint (surface `oauth`): OAuth 2.0's `{error,
error_description}` (RFC 6749 5.2). Handlers and the core raise `ServiceError`; the resolver
renders it for its surface.
"""

from __future__ import annotations

from enum import StrEnum
from http import HTTPStatus
from typing import Any

from mzpay.domain.common.errors import FieldError, ServiceError

__all__ = ["FieldError", "ServiceError", "Surface", "collection_error", "oauth_error", "problem_document"]

PROBLEM_CONTENT_TYPE = "application/problem+json"
# RFC 9110 reason phrases where Python's (before 3.13) still use the older names.
_TITLES = {413: "Content Too Large", 422: "Unprocessable Content"}
JSON_CONTENT_TYPE = "application/json"


class Surface(StrEnum):
    """Which API a resolver serves; it decides the error shape and the generic codes."""

    GATEWAY = "gateway"
    COLLECTION = "collection"
    MANAGEMENT = "management"
    OAUTH = "oauth"

    @property
    def uses_problem_documents(self) -> bool:
        return self in (Surface.GATEWAY, Surface.MANAGEMENT)

    def validation_code(self) -> str:
        return "validation_error" if self is Surface.COLLECTION else "invalid_request"

    def internal_code(self) -> str:
        return {Surface.COLLECTION: "processing_error", Surface.OAUTH: "server_error"}.get(self, "internal_error")

    def unavailable_code(self) -> str:
        """A dependency fault's code (503): OAuth names it temporarily_unavailable."""
        return "temporarily_unavailable" if self is Surface.OAUTH else "service_unavailable"


def problem_document(error: ServiceError) -> dict[str, Any]:
    """The gateway's problem document for `error`."""
    try:
        title = _TITLES.get(error.status) or HTTPStatus(error.status).phrase
    except ValueError:
        title = "Error"
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": title,
        "status": error.status,
        "code": error.code,
        "detail": error.message,
    }
    if error.errors:
        body["errors"] = [item.as_dict() for item in error.errors]
    body.update(error.extensions)
    body["error"] = {"code": error.code, "message": error.message}
    return body


def oauth_error(error: ServiceError) -> dict[str, Any]:
    """The token endpoint's error body for `error` (RFC 6749 5.2)."""
    return {"error": error.code, "error_description": error.message}


def collection_error(error: ServiceError, request_id: str) -> dict[str, Any]:
    """The collection surface's error body for `error`."""
    metadata: dict[str, Any] = dict(error.extensions)
    if error.errors:
        metadata["errors"] = [item.as_dict() for item in error.errors]
    return {"code": error.code, "message": error.message, "request_id": request_id, "metadata": metadata}
