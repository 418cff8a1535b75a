"""Sealed page tokens: a list's position that the service must be able to trust (a running
balance, say), as URL-safe base64 of compact JSON and an HMAC-SHA256 tag of it under a key only
the service holds. A token whose tag does not match, or that does not decode to an object, opens
to None: the caller cannot forge a position nor alter one."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

MAX_SEALED = 2048
TAG_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _tag(key: bytes, body: str) -> bytes:
    return hmac.new(key, body.encode(), hashlib.sha256).digest()[:TAG_BYTES]


def seal(payload: dict[str, Any], key: bytes) -> str:
    """`payload` (JSON-able) as a token only `key` opens."""
    body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    return f"{body}.{_b64(_tag(key, body))}"


def unseal(token: str, key: bytes) -> dict[str, Any] | None:
    """The payload `token` holds when `key` sealed it; None for anything else."""
    if len(token) > MAX_SEALED or token.count(".") != 1:
        return None
    body, tag = token.split(".")
    try:
        if not hmac.compare_digest(_unb64(tag), _tag(key, body)):
            return None
        payload = json.loads(_unb64(body))
    except (ValueError, binascii.Error):
        return None
    return payload if isinstance(payload, dict) else None
