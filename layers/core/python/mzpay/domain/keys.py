"""API keys: format, checksum, modes, scopes, and what a key may do at a given time.

A key reads `mzp_<mode>_<random><checksum>`: 32 random base62 characters, then 6 base62
characters of CRC32 over everything before them. A typo is caught by the checksum before any
lookup (`invalid_api_key`), and secret scanners can recognise the prefix.
"""

from __future__ import annotations

import re
import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime

PREFIX = "mzp"
MODES = ("test", "live")
RANDOM_LENGTH = 32
CHECKSUM_LENGTH = 6
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SHAPE = re.compile(rf"{PREFIX}_(test|live)_([0-9A-Za-z]{{{RANDOM_LENGTH}}})([0-9A-Za-z]{{{CHECKSUM_LENGTH}}})")

# What a key may be allowed to do. Keys get DEFAULT_SCOPES unless created with a list.
SCOPES = (
    "payments:read",
    "payments:write",
    "refunds:write",
    "payouts:read",
    "payouts:write",
    "events:read",
    "balance:read",
    "api_keys:write",
    "accounts:write",
)
DEFAULT_SCOPES = tuple(scope for scope in SCOPES if scope != "accounts:write")
ROLL_OVERLAP_SECONDS = 24 * 3600
MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 3600


class KeyStatus:
    ACTIVE = "active"
    ROLLED = "rolled"
    REVOKED = "revoked"


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, digit = divmod(number, 62)
        digits.append(_BASE62[digit])
    return "".join(reversed(digits))


def checksum(body: str) -> str:
    """Six base62 characters of CRC32 over `body` (the key without its checksum)."""
    return _base62(zlib.crc32(body.encode("ascii")), CHECKSUM_LENGTH)


def generate_key(mode: str) -> str:
    """A new secret key of `mode` (shown to its owner once, stored only as a keyed hash)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    body = f"{PREFIX}_{mode}_" + "".join(secrets.choice(_BASE62) for _ in range(RANDOM_LENGTH))
    return body + checksum(body)


def looks_like_key(token: str) -> bool:
    """True when `token` claims to be one of our keys (carries the prefix)."""
    return token.startswith(f"{PREFIX}_")


def key_mode(token: str) -> str | None:
    """The mode of a well-formed key whose checksum verifies, else None."""
    match = _SHAPE.fullmatch(token)
    if match is None or checksum(token[:-CHECKSUM_LENGTH]) != match.group(3):
        return None
    return match.group(1)


def redacted(token: str) -> str:
    """What may be shown or logged of a key: its prefix, mode and last four characters."""
    head = token[: len(PREFIX) + 6]
    return f"{head}...{token[-4:]}"


def unknown_scopes(scopes: list[str] | tuple[str, ...]) -> list[str]:
    return [scope for scope in scopes if scope not in SCOPES]


@dataclass(frozen=True)
class KeyUse:
    """Whether a stored key may be used now, and if not, why (a request error code)."""

    allowed: bool
    code: str = ""


def key_use(status: str, expires_at: datetime | None, now: datetime) -> KeyUse:
    """Active keys work until expires_at; a rolled key works until its overlap ends (its
    expires_at); a revoked key is as if it never existed."""
    if status == KeyStatus.REVOKED:
        return KeyUse(False, "unauthorized")
    if expires_at is not None and now >= expires_at:
        return KeyUse(False, "key_expired")
    return KeyUse(True)


def key_hash(token: str, pepper: str) -> str:
    """The keyed hash a key is stored and looked up by (HMAC-SHA256 with the stack's pepper)."""
    import hashlib
    import hmac

    return hmac.new(pepper.encode(), token.encode(), hashlib.sha256).hexdigest()
