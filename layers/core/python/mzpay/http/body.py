"""Bytes screened before any work (every API, before any route, validation or idempotency record):
a body must be what its content type says, decodable, and bounded in depth. What is not gets
400 invalid_request in the surface's shape, instead of a crash deep inside a library.

- a base64 body (binary media types) that is not base64;
- a text body that is not UTF-8, or holds a lone surrogate (raw, or escaped in JSON as "\\ud800":
  no store can keep it, so retrying could never succeed);
- a JSON body that does not parse (with a JSON media type, or none and a body that starts as
  JSON), holds NaN or Infinity, or a number longer than MAX_JSON_NUMBER characters (Python
  refuses integers of 4,300+ digits with an error no parser expects: that was a 500);
- JSON nested deeper than MAX_JSON_DEPTH;
- multipart/form-data without a boundary, or whose body does not end its parts with the closing
  delimiter (`--<boundary>--`): a truncated upload is refused, never stored as a shorter file.
"""

from __future__ import annotations

import base64
import binascii
import json
from email.message import Message
from typing import Any

from mzpay.domain.common.errors import ServiceError

MAX_JSON_DEPTH = 32  # objects and arrays inside each other; no request of the API needs more than 6
MAX_JSON_NUMBER = 64  # characters of one JSON number (sign, digits, point, exponent); money needs < 20


def _refusal(message: str) -> ServiceError:
    return ServiceError(400, "invalid_request", message)


# Bodies taken as raw bytes (an invoice PDF, a PSP's KYB documents and logo).
BINARY_MEDIA_TYPES = frozenset({"application/pdf", "image/png", "image/jpeg"})


def content_type(event: dict[str, Any]) -> str:
    """The request's Content-Type header as sent ("" when none)."""
    headers = event.get("headers") or {}
    return next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")


def raw_body(event: dict[str, Any]) -> bytes:
    """The request's body as bytes: base64-decoded when API Gateway encoded it (binary media
    types: a multipart upload), else the text as UTF-8. `screen` has already refused bad base64."""
    body = event.get("body") or ""
    return base64.b64decode(str(body)) if event.get("isBase64Encoded") else str(body).encode()


def _content_type(event: dict[str, Any]) -> tuple[str, dict[str, str]]:
    value = content_type(event)
    message = Message()
    message["content-type"] = value or "application/octet-stream"
    params = {str(k).lower(): str(v) for k, v in message.get_params(failobj=[])[1:]}
    return (value.split(";", 1)[0].strip().lower(), params)


_UNCLOSED = "The multipart body is truncated: it does not end with its closing boundary (--<boundary>--)."


def _closed(raw: bytes, boundary: str) -> bool:
    """True when the multipart body holds its close delimiter `--boundary--` (RFC 2046 5.1.1; an
    epilogue may follow it). A sender picks a boundary that no part contains, so a body cut
    short anywhere before its end lacks it."""
    return b"--" + boundary.encode("utf-8", "surrogateescape") + b"--" in raw


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _screen_json(value: Any) -> str | None:
    """Why a parsed JSON document is refused (depth, lone surrogates), or None; iterative, so a
    deep document cannot exhaust the stack here."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > MAX_JSON_DEPTH:
                return f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels."
            for key, inner in item.items():
                if _has_surrogate(key):
                    return "The JSON body holds a lone surrogate (\\ud800-\\udfff), which is not text."
                stack.append((inner, depth + 1))
        elif isinstance(item, list):
            if depth > MAX_JSON_DEPTH:
                return f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels."
            stack.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, str) and _has_surrogate(item):
            return "The JSON body holds a lone surrogate (\\ud800-\\udfff), which is not text."
    return None


class _Refused(ValueError):
    """A JSON number or constant the screen refuses while parsing."""


def _number(text: str) -> str:
    if len(text) > MAX_JSON_NUMBER:
        raise _Refused(f"A JSON number is at most {MAX_JSON_NUMBER} characters long.")
    return text


def _constant(text: str) -> None:
    raise _Refused(f"{text} is not a JSON number.")


def parse_screened(text: str) -> Any:
    """`text` parsed as JSON the way the screen reads it: numbers are kept as their text (so none
    is converted before its length is checked); raises ValueError on anything refused."""
    return json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_constant)


def screen(event: dict[str, Any]) -> ServiceError | None:
    """The refusal of the request's body, or None when it may be read."""
    body = event.get("body")
    if body is None or body == "":
        return None
    media, params = _content_type(event)
    if media.startswith("multipart/") and not params.get("boundary"):
        return _refusal("A multipart body needs a boundary parameter in its Content-Type.")
    if event.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(str(body), validate=True)
        except (binascii.Error, ValueError):
            return _refusal("The request body is not valid base64.")
        if media.startswith("multipart/") and not _closed(raw, params["boundary"]):
            return _refusal(_UNCLOSED)
        if media.startswith("multipart/") or media in BINARY_MEDIA_TYPES:
            return None  # binary parts are the point of multipart; PDFs and images are binary
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _refusal("The request body is not valid UTF-8.")
    else:
        text = str(body)
        if media.startswith("multipart/") and not _closed(text.encode("utf-8", "surrogateescape"), params["boundary"]):
            return _refusal(_UNCLOSED)
    if _has_surrogate(text):
        return _refusal("The request body is not valid UTF-8 (it holds a lone surrogate).")
    if media == "application/json" or media.endswith("+json") or (not media and text.lstrip()[:1] in ("{", "[")):
        try:
            document = parse_screened(text)
        except RecursionError:
            return _refusal(f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels.")
        except _Refused as refused:
            return _refusal(str(refused))
        except ValueError:
            return _refusal("The request body is not valid JSON.")
        reason = _screen_json(document)
        if reason is not None:
            return _refusal(reason)
    return None
