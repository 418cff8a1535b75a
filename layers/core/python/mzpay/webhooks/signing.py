"""Webhook signatures: the ``Service-Signature`` header on every webhook delivery.

Header format::

    Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>

During a secret roll there is one ``v1=`` per valid secret. The secret (``whsec_...``, the whole
string) is the HMAC key as UTF-8 bytes. This module uses only the Python standard library, so
merchants can copy this file into their own code as it is.

Usage (receiver; ``from mzpay.webhooks import ...`` inside mzpay, or a copy of this file)::

    from signing import SignatureError, verify

    try:
        verify(raw_body, request.headers["Service-Signature"], [secret])
    except SignatureError as exc:
        return 400, exc.code  # signature_invalid | signature_timestamp_outside_tolerance

Usage (sender)::

    header = sign(raw_body, [new_secret, old_secret], int(time.time()))

Verify the raw request body exactly as received (bytes), not a re-serialised JSON document.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Iterable

__all__ = ["DEFAULT_TOLERANCE", "SignatureError", "sign", "verify"]

DEFAULT_TOLERANCE = 300  # seconds either side of the receiver's clock

SIGNATURE_INVALID = "signature_invalid"
TIMESTAMP_OUTSIDE_TOLERANCE = "signature_timestamp_outside_tolerance"

_SCHEME = "v1"
_TIMESTAMP = re.compile(r"-?[0-9]+")
_HEX_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


class SignatureError(Exception):
    """A webhook signature that does not verify.

    ``code`` is ``signature_invalid`` or ``signature_timestamp_outside_tolerance``; ``t`` is the
    header's timestamp when it parsed, else None.
    """

    def __init__(self, code: str, message: str, t: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.t = t

    def __repr__(self) -> str:
        return f"SignatureError(code={self.code!r}, message={self.message!r}, t={self.t!r})"


def _payload_bytes(payload: bytes | str) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, bytes | bytearray | memoryview):
        return bytes(payload)
    raise TypeError(f"payload must be bytes or str, not {type(payload).__name__}")


def _secret_list(secrets: Iterable[str]) -> list[str]:
    if isinstance(secrets, str | bytes):
        raise TypeError("secrets must be an iterable of secrets, e.g. [secret], not a single string")
    result = list(secrets)
    if not result:
        raise ValueError("at least one secret is required")
    for secret in result:
        if not isinstance(secret, str) or not secret:
            raise ValueError("each secret must be a non-empty string")
    return result


def _digest(secret: str, t: str, payload: bytes) -> str:
    signed = t.encode("ascii") + b"." + payload
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(payload: bytes | str, secrets: Iterable[str], timestamp: int) -> str:
    """The ``Service-Signature`` header value: ``t=<timestamp>`` then one ``v1=`` per secret, in order.

    >>> sign(b'{"id": "evt_1"}', ["whsec_a"], 1700000000)[:13]
    't=1700000000,'
    """
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise TypeError("timestamp must be an int (unix seconds)")
    body = _payload_bytes(payload)
    t = str(timestamp)
    return ",".join([f"t={t}", *(f"{_SCHEME}={_digest(secret, t, body)}" for secret in _secret_list(secrets))])


def _parse(header: str) -> tuple[str, int, list[str]]:
    """(t as written, t, v1 signatures); SignatureError(signature_invalid) when malformed."""
    if not isinstance(header, str) or not header.strip():
        raise SignatureError(SIGNATURE_INVALID, "The signature header is missing or empty.")
    timestamps: list[str] = []
    signatures: list[str] = []
    for item in header.split(","):
        key, sep, value = item.partition("=")
        if not sep:
            continue  # empty or unknown item
        key, value = key.strip(), value.strip()
        if key == "t":
            timestamps.append(value)
        elif key == _SCHEME:
            signatures.append(value)
        # other schemes (v0=, ...) are ignored
    if not timestamps:
        raise SignatureError(SIGNATURE_INVALID, "The signature header has no timestamp (t=).")
    if len(timestamps) > 1:
        raise SignatureError(SIGNATURE_INVALID, "The signature header has more than one timestamp (t=).")
    raw_t = timestamps[0]
    try:
        if not _TIMESTAMP.fullmatch(raw_t):
            raise ValueError(raw_t)
        t = int(raw_t)
    except ValueError:  # also digit strings past int()'s length limit
        raise SignatureError(SIGNATURE_INVALID, "The signature timestamp (t=) is not an integer.") from None
    if not signatures:
        raise SignatureError(SIGNATURE_INVALID, f"The signature header has no {_SCHEME}= signature.", t)
    return raw_t, t, signatures


def verify(
    payload: bytes | str,
    header: str,
    secrets: Iterable[str],
    tolerance: int = DEFAULT_TOLERANCE,
    now: int | None = None,
) -> int:
    """Check a ``Service-Signature`` header against the raw body; return its timestamp ``t``.

    Passes when any ``v1=`` matches any of ``secrets`` and ``|now - t| <= tolerance``; raises
    SignatureError otherwise (the tolerance is checked first). ``now`` defaults to the clock.
    """
    if tolerance < 0:
        raise ValueError("tolerance must be >= 0")
    keys = _secret_list(secrets)
    body = _payload_bytes(payload)
    raw_t, t, signatures = _parse(header)
    current = int(time.time()) if now is None else now
    if abs(current - t) > tolerance:
        raise SignatureError(
            TIMESTAMP_OUTSIDE_TOLERANCE,
            f"The signature timestamp is more than {tolerance} seconds from the current time.",
            t,
        )
    candidates = [s.lower().encode("ascii") for s in signatures if _HEX_SHA256.fullmatch(s)]
    matched = False
    for secret in keys:
        expected = _digest(secret, raw_t, body).encode("ascii")
        for candidate in candidates:
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise SignatureError(SIGNATURE_INVALID, "No signature matches the payload with the given secrets.", t)
    return t
