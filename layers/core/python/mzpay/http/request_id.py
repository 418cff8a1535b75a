"""X-Request-ID: keep a well-formed incoming one, else use API Gateway's, else make one."""

from __future__ import annotations

import contextvars
import re
from typing import Any

from mzpay.domain.common.ids import new_id

HEADER = "X-Request-ID"
_WELL_FORMED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}$")
_current: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def is_well_formed(value: object) -> bool:
    """1-128 characters of letters, digits and `._:-`, starting with a letter or digit."""
    return isinstance(value, str) and bool(_WELL_FORMED.fullmatch(value))


def header_value(event: dict[str, Any], name: str) -> str | None:
    """A request header from a REST (v1) proxy event, matched case-insensitively."""
    wanted = name.lower()
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == wanted and isinstance(value, str):
            return value
    for key, values in (event.get("multiValueHeaders") or {}).items():
        if key.lower() == wanted and values:
            return str(values[-1])
    return None


def resolve_request_id(event: dict[str, Any]) -> str:
    """The request id of this invocation: the caller's if well formed, else API Gateway's
    (so it matches gateway responses and access logs), else a new ULID."""
    incoming = header_value(event, HEADER)
    if incoming is not None and is_well_formed(incoming):
        return incoming
    platform_id = (event.get("requestContext") or {}).get("requestId")
    if isinstance(platform_id, str) and is_well_formed(platform_id):
        return platform_id
    return new_id()


def set_current(request_id: str) -> None:
    """Remember the request id of the invocation in progress."""
    _current.set(request_id)


def current() -> str:
    """The request id of the invocation in progress ('' outside one)."""
    return _current.get()


def collection_request_id(request_id: str) -> str:
    """The collection surface writes request ids as `req_...` (spec pattern req_*)."""
    return request_id if request_id.startswith("req_") else f"req_{request_id}"
