"""The system licence: activate, read, deactivate, validate, and the gate every licensed route
passes (docs/collection.md, "Licence").

The issuer's public key and name come from the stack's configuration (LicenceIssuerPublicKey,
LicenceIssuer). The activated licence is re-verified on every read, so a licence stops being
active the moment it expires or the configured issuer key changes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers.collection_licence import (
    ActivatedLicense,
    CurrentLicense,
    License,
    LicenseDeactivated,
    LicenseValidation,
)
from mzpay.config import settings
from mzpay.deps import remembered
from mzpay.domain.collection.licence import (
    IssuerKeyError,
    LicenceStatus,
    Verdict,
    load_issuer_key,
    verify_licence_key,
)
from mzpay.domain.common.errors import FieldError, ServiceError

DEFAULT_ISSUER = "mzpay-licensing"
_EPOCH = datetime.fromtimestamp(0, UTC)


def _issuer_key_text() -> str:
    return settings().licence_issuer_public_key


def _issuer() -> str:
    return settings().licence_issuer or DEFAULT_ISSUER


@remembered(maxsize=256)
def _verified(licence_key: str, key_text: str, issuer: str) -> Verdict:
    """The verdict on a key regardless of time (expiry is applied by `verdict`); cached,
    because the activated key is verified on every licensed request."""
    try:
        issuer_key = load_issuer_key(key_text)
    except IssuerKeyError as exc:
        return Verdict(None, LicenceStatus.INVALID, "no_issuer_key", f"The licence cannot be verified: {exc}.")
    return verify_licence_key(licence_key, issuer_key, issuer, _EPOCH)


def verdict(licence_key: str, now: datetime) -> Verdict:
    """What `licence_key` is worth at `now` under this stack's configuration."""
    found = _verified(licence_key, _issuer_key_text(), _issuer())
    if found.valid and found.licence is not None and found.licence.status_at(now) is LicenceStatus.EXPIRED:
        return Verdict(found.licence, LicenceStatus.EXPIRED, "expired", "The licence expired.")
    return found


def _fingerprint() -> str:
    return load_issuer_key(_issuer_key_text()).fingerprint


def activate(licence_key: str, subject: str, source_ip: str, now: datetime | None = None) -> ActivatedLicense:
    """Activate `licence_key`: 400 when it is not a valid licence, 409 already_exists while
    another licence is active (an expired or no longer verifiable one is replaced)."""
    now = now or datetime.now(UTC)
    found = verdict(licence_key, now)
    if not found.valid or found.licence is None:
        raise ServiceError(
            400,
            "validation_error",
            f"The licence key is not valid: {found.message}",
            errors=[FieldError("license_key", str(found.reason), found.message)],
        )
    licence = found.licence
    fingerprint = _fingerprint()
    record: dict[str, Any] = {
        "license_key": licence_key,
        "license_id": licence.licence_id,
        "expires_epoch": int(licence.expires_at.timestamp()),
        "issuer_key": fingerprint,
        "activated_at": now.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "activated_by": subject,
        "activated_ip": source_ip,
    }
    if not deps.licences().activate(record, int(now.timestamp()), fingerprint):
        raise ServiceError(409, "already_exists", "A licence is already active; deactivate it first.")
    return ActivatedLicense(
        object="license_key",
        license_key=licence_key,
        license=License.model_validate(licence.view(LicenceStatus.ACTIVE)),
    )


def _activated(now: datetime) -> Verdict | None:
    item = deps.licences().read()
    return None if item is None else verdict(str(item["license_key"]), now)


def _none_active() -> ServiceError:
    return ServiceError(404, "not_found", "No licence is active.")


def current(now: datetime | None = None) -> CurrentLicense:
    """The activated licence with its status now; 404 not_found when none is."""
    found = _activated(now or datetime.now(UTC))
    if found is None:
        raise _none_active()
    if found.licence is None:  # stored, but its claims no longer read (never stored so)
        raise ServiceError(401, "license_invalid", found.message)
    return CurrentLicense(object="license", license=License.model_validate(found.licence.view(found.status)))


def deactivate() -> LicenseDeactivated:
    """Remove the activated licence; 404 not_found when none is (of two at once, one wins)."""
    if deps.licences().deactivate() is None:
        raise _none_active()
    return LicenseDeactivated(object="bool", success=True)


def validate(licence_key: str, now: datetime | None = None) -> LicenseValidation:
    """Validate without activating: always 200, `valid` says the verdict."""
    found = verdict(licence_key, now or datetime.now(UTC))
    return LicenseValidation(
        object="license_validation",
        valid=found.valid,
        message=found.message,
        license=License.model_validate(found.licence.view(found.status)) if found.licence else None,
    )


def require_active(now: datetime | None = None) -> Any:
    """The active licence, else 401 license_invalid (none, or it no longer verifies) or 401
    license_expired."""
    now = now or datetime.now(UTC)
    found = _activated(now)
    if found is None:
        raise ServiceError(401, "license_invalid", "No licence is active; activate one with POST /v1/license/activate.")
    if found.status is LicenceStatus.EXPIRED and found.licence is not None:
        raise ServiceError(
            401,
            "license_expired",
            "The licence expired; activate a new one with POST /v1/license/activate.",
            license_id=found.licence.licence_id,
            expired_at=found.licence.view(found.status)["expires_at"],
        )
    if found.status is not LicenceStatus.ACTIVE or found.licence is None:
        raise ServiceError(401, "license_invalid", f"The activated licence is not valid: {found.message}")
    return found.licence
