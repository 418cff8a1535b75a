"""API keys: format, checksum, modes, scopes, and what a key may do at a given time.

A key reads `mzp_<mode>_<random><checksum>`: 32 random base62 characters, then 6 base62
characters of CRC32 over everything before them. A typo is caught by the checksum before any
lookup (`invalid_api_key`), and secret scanners can recognise the prefix. OAuth credentials have
the same shape under their own prefixes: `mzs_` a client secret, `mzt_` an access token.
"""

from __future__ import annotations

import re
import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.network import parse_allowlist

PREFIX = "mzp"
CLIENT_SECRET_PREFIX = "mzs"
ACCESS_TOKEN_PREFIX = "mzt"
MODES = ("test", "live")
RANDOM_LENGTH = 32
CHECKSUM_LENGTH = 6
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SHAPE = re.compile(rf"(mz[pst])_(test|live)_([0-9A-Za-z]{{{RANDOM_LENGTH}}})([0-9A-Za-z]{{{CHECKSUM_LENGTH}}})")

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


def generate_key(mode: str, prefix: str = PREFIX) -> str:
    """A new secret of `mode` (shown to its owner once, stored only as a keyed hash): an API key,
    or with `prefix` a client secret or an access token."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    body = f"{prefix}_{mode}_" + "".join(secrets.choice(_BASE62) for _ in range(RANDOM_LENGTH))
    return body + checksum(body)


def looks_like_key(token: str) -> bool:
    """True when `token` claims to be one of our keys (carries the prefix)."""
    return token.startswith(f"{PREFIX}_")


def credential(token: str) -> tuple[str, str] | None:
    """(prefix, mode) of a well-formed credential of ours (key, client secret, access token)
    whose checksum verifies, else None: decided offline, without any lookup."""
    match = _SHAPE.fullmatch(token)
    if match is None or checksum(token[:-CHECKSUM_LENGTH]) != match.group(4):
        return None
    return match.group(1), match.group(2)


def key_mode(token: str) -> str | None:
    """The mode of a well-formed API key whose checksum verifies, else None."""
    found = credential(token)
    return found[1] if found is not None and found[0] == PREFIX else None


def token_mode(token: str) -> str | None:
    """The mode of a well-formed access token whose checksum verifies, else None."""
    found = credential(token)
    return found[1] if found is not None and found[0] == ACCESS_TOKEN_PREFIX else None


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


USE_RECORDED_EVERY = timedelta(hours=1)  # a key's last use is written at most this often


def use_to_record(last_used_at: datetime | None, now: datetime) -> bool:
    """Whether the authorizer writes a key's use now: never recorded, or last written an hour or
    more ago. A key's last use is therefore known within the hour (plus the authorizer cache's
    lifetime): enough for "is this key still used?", at one write per key per hour."""
    return last_used_at is None or now - last_used_at >= USE_RECORDED_EVERY


def key_hash(token: str, pepper: str) -> str:
    """The keyed hash a key is stored and looked up by (HMAC-SHA256 with the stack's pepper)."""
    import hashlib
    import hmac

    return hmac.new(pepper.encode(), token.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class KeyGrant:
    """What a key may do: its scopes and restrictions (empty restriction = unrestricted)."""

    key_id: str
    scopes: frozenset[str]
    allowed_customers: frozenset[str] = frozenset()
    ip_allowlist: tuple[str, ...] = ()
    expires_at: datetime | None = None


def _inside(target: tuple[str, ...], caller: tuple[str, ...]) -> bool:
    """Every network of `target` lies inside one network of `caller` (same IP version)."""
    outer = parse_allowlist(",".join(caller))
    return all(
        any(net.version == out.version and net.subnet_of(out) for out in outer)  # type: ignore[arg-type]
        for net in parse_allowlist(",".join(target))
    )


def roll_refusal(caller: KeyGrant, target: KeyGrant) -> ServiceError | None:
    """Why `caller` may not roll `target` (a key of the same account and mode), or None.

    A key may always roll itself. Another key only when the roll cannot give the caller more than
    it has: the target's scopes are a subset of the caller's, and each restriction of the caller
    binds the target at least as tightly: restricted customers -> the target is restricted to a
    non-empty subset of them; an IP allowlist -> every target network lies inside it; an expiry
    -> the target expires no later. Otherwise 403 insufficient_scope: `missing_scope` names the
    first scope (in SCOPES order) the caller lacks, or `restriction` names the field it fails.
    """
    if target.key_id == caller.key_id:
        return None
    for scope in sorted(target.scopes, key=lambda s: (SCOPES.index(s) if s in SCOPES else len(SCOPES), s)):
        if scope not in caller.scopes:
            return ServiceError(
                403, "insufficient_scope", f"This API key lacks the scope {scope}.", missing_scope=scope
            )
    if caller.allowed_customers and not (
        target.allowed_customers and target.allowed_customers <= caller.allowed_customers
    ):
        return _restricted("allowed_customers", "is restricted to customers the key to roll is not limited to")
    if caller.ip_allowlist and not (target.ip_allowlist and _inside(target.ip_allowlist, caller.ip_allowlist)):
        return _restricted("ip_allowlist", "has an IP allowlist the key to roll is not confined to")
    if caller.expires_at is not None and (target.expires_at is None or target.expires_at > caller.expires_at):
        return _restricted("expires_at", "expires before the key to roll")
    return None


def _restricted(field: str, why: str) -> ServiceError:
    return ServiceError(
        403,
        "insufficient_scope",
        f"This API key {why} ({field}); roll it with a key at least as broad, or ask an operator.",
        restriction=field,
    )


class Granted(TypedDict):
    """What a new credential (an API key, an OAuth client) records of what it is granted: the
    account it acts for (and that account's home region), the mode and the scopes."""

    account_id: str
    home_region: str
    mode: str
    scopes: list[str]


def granted(account_id: str, home_region: str, mode: str, scopes: list[str]) -> Granted:
    return {"account_id": account_id, "home_region": home_region, "mode": mode, "scopes": scopes}
