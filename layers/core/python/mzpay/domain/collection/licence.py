"""The system licence of the collection surface (see docs/collection.md).

A licence is a JWT signed by the licence issuer: `jti` (the licence id), `sub` (whom it is issued
to), `iss`, `iat`, `exp`, `capabilities` (string[]) and `metadata` (map, optional). Pure rules:
reading the issuer's public key from configuration, verifying a licence key, its status at a
moment, and the capability a route needs. No storage, no HTTP.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any

REQUIRED_CLAIMS = ("jti", "sub", "iss", "iat", "exp", "capabilities")
MAX_KEY_LENGTH = 16 * 1024
# Algorithms a licence may be signed with, by the issuer key's type (never HMAC, never none).
_ALGORITHMS = {
    "rsa": ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
    "ec": ["ES256", "ES384", "ES512"],
    "ed25519": ["EdDSA"],
}
_PEM_BODY = re.compile(r"-----BEGIN PUBLIC KEY-----(.*?)-----END PUBLIC KEY-----", re.DOTALL)


class LicenceStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    INVALID = "invalid"


class IssuerKeyError(ValueError):
    """The configured licence issuer key is missing or is not a usable public key."""


@dataclass(frozen=True)
class IssuerKey:
    """The licence issuer's public key, as configuration gives it."""

    key: Any  # a cryptography public key
    algorithms: tuple[str, ...]
    fingerprint: str  # SHA-256 of the DER SubjectPublicKeyInfo, hex: which key verified a stored licence


def _der(text: str) -> bytes:
    """The DER bytes of a PEM public key whose line breaks may have become spaces or literal
    '\\n' (a CloudFormation parameter is one line), or of bare base64 DER."""
    match = _PEM_BODY.search(text)
    body = match.group(1) if match else text
    body = re.sub(r"\\n|\s", "", body)
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise IssuerKeyError("the licence issuer key is not a PEM or base64 public key") from exc


@lru_cache(maxsize=4)
def load_issuer_key(text: str) -> IssuerKey:
    """Parse the `LicenceIssuerPublicKey` setting (RSA, EC or Ed25519 public key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    if not text.strip():
        raise IssuerKeyError("no licence issuer key is configured (LicenceIssuerPublicKey)")
    der = _der(text.strip())
    try:
        key = serialization.load_der_public_key(der)
    except ValueError as exc:
        raise IssuerKeyError("the licence issuer key is not a public key") from exc
    if isinstance(key, rsa.RSAPublicKey):
        kind = "rsa"
    elif isinstance(key, ec.EllipticCurvePublicKey):
        kind = "ec"
    elif isinstance(key, ed25519.Ed25519PublicKey):
        kind = "ed25519"
    else:
        raise IssuerKeyError("the licence issuer key must be RSA, EC or Ed25519")
    return IssuerKey(key, tuple(_ALGORITHMS[kind]), hashlib.sha256(der).hexdigest())


@dataclass(frozen=True)
class Licence:
    """What a licence key says, once its claims are complete."""

    licence_id: str
    issued_to: str
    issuer: str
    issued_at: datetime
    expires_at: datetime
    capabilities: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)

    def status_at(self, now: datetime) -> LicenceStatus:
        return LicenceStatus.ACTIVE if now < self.expires_at else LicenceStatus.EXPIRED

    def allows(self, capability: str) -> bool:
        return capability in self.capabilities

    def view(self, status: LicenceStatus) -> dict[str, Any]:
        """The spec's Licence object."""
        return {
            "id": self.licence_id,
            "status": status.value,
            "issued_to": self.issued_to,
            "issuer": self.issuer,
            "issued_at": _iso(self.issued_at),
            "expires_at": _iso(self.expires_at),
            "capabilities": list(self.capabilities),
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class Verdict:
    """What verifying a licence key found: the licence (None when its claims cannot be read),
    its status, why it is not active (a stable reason) and a message for people."""

    licence: Licence | None
    status: LicenceStatus
    reason: str | None
    message: str

    @property
    def valid(self) -> bool:
        return self.status is LicenceStatus.ACTIVE


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _timestamp(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def licence_from_claims(claims: dict[str, Any]) -> Licence | None:
    """The licence the claims describe, or None when a required claim is missing or mistyped."""
    if any(name not in claims for name in REQUIRED_CLAIMS):
        return None
    issued_at, expires_at = _timestamp(claims["iat"]), _timestamp(claims["exp"])
    capabilities, metadata = claims["capabilities"], claims.get("metadata", {})
    texts = (claims["jti"], claims["sub"], claims["iss"])
    if (
        issued_at is None
        or expires_at is None
        or not all(isinstance(text, str) and text for text in texts)
        or not isinstance(capabilities, list)
        or not all(isinstance(c, str) and c for c in capabilities)
        or not isinstance(metadata, dict)
    ):
        return None
    return Licence(
        licence_id=claims["jti"],
        issued_to=claims["sub"],
        issuer=claims["iss"],
        issued_at=issued_at,
        expires_at=expires_at,
        capabilities=tuple(dict.fromkeys(capabilities)),
        metadata=metadata,
    )


def verify_licence_key(licence_key: str, issuer_key: IssuerKey, issuer: str, now: datetime) -> Verdict:
    """Verify `licence_key` against the issuer's key and name; its status at `now`.

    Signature, algorithm and issuer failures make it `invalid` (its claims, read without trust,
    still describe it when they are complete); a verified licence past `exp` is `expired`."""
    import jwt

    invalid = LicenceStatus.INVALID
    try:
        header = jwt.get_unverified_header(licence_key)
        unverified = jwt.decode(licence_key, options={"verify_signature": False})
    except jwt.PyJWTError:
        return Verdict(None, invalid, "malformed", "The licence key is not a signed JWT.")
    described = licence_from_claims(unverified)
    if header.get("alg") not in issuer_key.algorithms:
        return Verdict(described, invalid, "unsupported_algorithm", "The licence key's algorithm is not accepted.")
    try:
        claims = jwt.decode(
            licence_key,
            issuer_key.key,
            algorithms=[header["alg"]],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False},
        )
    except jwt.PyJWTError:
        return Verdict(described, invalid, "invalid_signature", "The licence key's signature does not verify.")
    licence = licence_from_claims(claims)
    if licence is None:
        missing = ", ".join(REQUIRED_CLAIMS)
        return Verdict(None, invalid, "invalid_claims", f"A licence key carries {missing} (and metadata, a map).")
    if licence.issuer != issuer:
        return Verdict(licence, invalid, "wrong_issuer", "The licence key was issued by another issuer.")
    if licence.status_at(now) is LicenceStatus.EXPIRED:
        return Verdict(licence, LicenceStatus.EXPIRED, "expired", "The licence expired.")
    return Verdict(licence, LicenceStatus.ACTIVE, None, "The licence key is valid.")
