"""Webhook signing secrets per (account, mode): rolling keeps the previous one valid for an
overlap, so receivers can deploy the new secret without missing a delivery."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

PREFIX = "whsec_"
ROLL_OVERLAP = timedelta(hours=24)


def generate_secret() -> str:
    return PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class SecretVersion:
    secret_id: str
    ciphertext: str  # KMS-encrypted secret, base64
    created_at: datetime
    expires_at: datetime | None  # None: the current secret


def after_roll(versions: list[SecretVersion], new: SecretVersion, now: datetime) -> list[SecretVersion]:
    """The new secret first; the previous current one valid for ROLL_OVERLAP; expired ones gone."""
    kept: list[SecretVersion] = [new]
    for version in versions:
        if version.expires_at is None:
            kept.append(SecretVersion(version.secret_id, version.ciphertext, version.created_at, now + ROLL_OVERLAP))
        elif version.expires_at > now:
            kept.append(version)
    return kept


def valid_versions(versions: list[SecretVersion], now: datetime) -> list[SecretVersion]:
    """Secrets a delivery is signed with (one v1 each) and a verification may accept."""
    return [v for v in versions if v.expires_at is None or v.expires_at > now]
