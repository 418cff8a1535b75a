"""Identifiers: bare ULIDs on the gateway, prefixed ULIDs on the collection surface."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ulid import ULID

_ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
_PREFIX = re.compile(r"^[a-z]{2,4}$")


def new_id() -> str:
    """A new bare ULID, e.g. '01JD3M6Y8Q7T3Y5F0ZC9W3B2KX'."""
    return str(ULID())


def is_ulid(text: object) -> bool:
    """True when `text` is a canonical (upper-case Crockford) ULID."""
    return isinstance(text, str) and bool(_ULID.fullmatch(text))


def new_prefixed_id(prefix: str) -> str:
    """A collection-surface id such as 'cr_01JD3M6Y8Q7T3Y5F0ZC9W3B2KX'."""
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(f"id prefix must be 2-4 lower-case letters, got {prefix!r}")
    return f"{prefix}_{ULID()}"


def has_prefix(text: object, prefix: str) -> bool:
    """True when `text` is `<prefix>_<ULID>`."""
    if not isinstance(text, str) or not text.startswith(prefix + "_"):
        return False
    return is_ulid(text[len(prefix) + 1 :])


def request_fingerprint(data: Any, kind: str = "") -> str:
    """What a merchant's id (payment_id, refund_id, payout_id) was first used for: a hash of the
    request's canonical JSON, so sending the id again with another body can be told apart."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256((f"{kind}:" if kind else "").encode() + canonical.encode()).hexdigest()


def is_uuid(text: object) -> bool:
    """True for a UUID in its canonical lower-case form (the ids derived from an Idempotency-Key)."""
    import uuid

    if not isinstance(text, str):
        return False
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False
