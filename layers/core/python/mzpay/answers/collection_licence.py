"""The collection API's answers about the system licence, as mzpay.collection.licence returns
them (the licence itself is mzpay.domain.collection.licence.Licence.view)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import AlwaysTrue, Answer, BoolAnswer, Timestamp, examples

_LICENCE = {
    "id": "lic_2026_0042",
    "status": "active",
    "issued_to": "Banco Exemplo SA",
    "issuer": "mzpay-licensing",
    "issued_at": "2026-01-01T00:00:00Z",
    "expires_at": "2027-01-01T00:00:00Z",
    "capabilities": ["collection_request:read", "collection_request:write"],
    "metadata": {"tier": "enterprise"},
}


class License(Answer):
    """The system licence: what it allows and until when."""

    id: str = Field(description="The licence's id (its jti).")
    status: Literal["active", "expired", "invalid"] = Field(description="Its status now.")
    issued_to: str = Field(description="Whom it was issued to.")
    issuer: str = Field(description="Who issued it.")
    issued_at: Timestamp = Field(description="When it was issued.")
    expires_at: Timestamp = Field(description="When it expires.")
    capabilities: list[str] = Field(description="The capabilities it grants (each route needs one).")
    metadata: dict[str, Any] = Field(description="The issuer's metadata (empty: none).")


class ActivatedLicense(Answer):
    """The licence key activated."""

    model_config = examples({"object": "license_key", "license_key": "eyJhbGciOiJFUzI1NiJ9...", "license": _LICENCE})

    object: Literal["license_key"] = Field(description="Always license_key.")
    license_key: str = Field(description="The key activated.")
    license: License = Field(description="What it says (active).")


class CurrentLicense(Answer):
    """The activated licence, verified again now."""

    model_config = examples({"object": "license", "license": _LICENCE})

    object: Literal["license"] = Field(description="Always license.")
    license: License = Field(
        description="The licence and its status now: active, expired, or invalid (no longer verifies)."
    )


class LicenseDeactivated(BoolAnswer):
    """The licence removed: licensed routes are refused until another is activated."""

    model_config = examples({"object": "bool", "success": True})

    success: AlwaysTrue


class LicenseValidation(Answer):
    """The verdict on a licence key, not activated (always 200)."""

    model_config = examples(
        {"object": "license_validation", "valid": True, "message": "The licence key is valid.", "license": _LICENCE},
        {
            "object": "license_validation",
            "valid": False,
            "message": "The licence key is not a signed JWT.",
            "license": None,
        },
    )

    object: Literal["license_validation"] = Field(description="Always license_validation.")
    valid: bool = Field(description="true: it could be activated now.")
    message: str = Field(description="The verdict in plain words.")
    license: License | None = Field(description="What it says, when its claims read; else null.")
