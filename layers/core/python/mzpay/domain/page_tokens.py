"""Opaque page tokens: a list's DynamoDB start key as URL-safe base64 of compact JSON. A token is
taken back only when it decodes to a flat object of strings that the list itself accepts, so a
caller can neither craft a key into another list nor make a read fail on a malformed one."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable


def encode(key: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def decode(token: str, valid: Callable[[dict[str, str]], bool]) -> dict[str, str] | None:
    """The start key `token` holds when `valid` accepts it; None for anything else."""
    try:
        key = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if isinstance(key, dict) and all(isinstance(v, str) for v in key.values()) and valid(key):
            return key
    except (ValueError, binascii.Error, KeyError, TypeError):
        pass
    return None
