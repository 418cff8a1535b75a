"""What the live connectors' HTTP calls share: no redirects followed, bodies read as JSON objects,
elapsed time for the logs."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from mzpay.observability import logger


class NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirected POST would be replayed as a GET without its body: surface the 3xx instead.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def json_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object; {} for anything else (an HTML error page, bad UTF-8)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def elapsed_ms(started: float) -> int:
    """Milliseconds since `started` (a time.monotonic() reading)."""
    return round((time.monotonic() - started) * 1000)


def json_request(url: str, method: str, headers: dict[str, str], body: dict[str, str] | None) -> urllib.request.Request:
    """A request to `url` with `headers`, and `body` as JSON when there is one."""
    data = None
    if body is not None:
        headers = {**headers, "Content-Type": "application/json"}
        data = json.dumps(body).encode()
    return urllib.request.Request(url, data=data, method=method, headers=headers)


def exchange(
    opener: urllib.request.OpenerDirector, request: urllib.request.Request, timeout: float
) -> tuple[int, bytes]:
    """The HTTP status and body of the answer to `request` (a non-2xx answer too: it still says
    why). Raises OSError or HTTPException when no answer came (timeout, refused, reset)."""
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        try:
            return error.code, error.read()
        except (OSError, http.client.HTTPException):
            return error.code, b""
        finally:
            error.close()


def call_json(
    opener: urllib.request.OpenerDirector,
    timeout: float,
    name: str,
    operation: str,
    request: urllib.request.Request,
    log: dict[str, Any],
    summary: Callable[[dict[str, Any]], dict[str, Any]],
    to: Any = logger,
) -> tuple[int, dict[str, Any]] | None:
    """One call to provider `name`: the HTTP status and the body as a JSON object, or None when
    no answer came. Logs the outcome to `to` (the connector's logger) with `log` and the answer's
    `summary` (the caller's choice of fields: never a secret, a token or a number)."""
    started = time.monotonic()
    try:
        status, raw = exchange(opener, request, timeout)
    except (OSError, http.client.HTTPException) as error:  # timeout, refused, reset: outcome unknown
        to.warning(
            f"{name} {operation} ended without an answer",
            extra={**log, "error": type(error).__name__, "elapsed_ms": elapsed_ms(started)},
        )
        return None
    answer = json_object(raw)
    to.info(
        f"{name} {operation} answered",
        extra={**log, "http_status": status, **summary(answer), "elapsed_ms": elapsed_ms(started)},
    )
    return status, answer
