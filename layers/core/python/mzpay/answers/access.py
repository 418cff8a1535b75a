"""The answers about a merchant's access: its API keys (ApiKey.public), the account's endpoint for
its own events, client certificates and mutual TLS, and OAuth access tokens."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import (
    ACCOUNT,
    ULID,
    AccountId,
    Answer,
    BelongsTo,
    MadeAt,
    Mode,
    TestOrLive,
    Timestamp,
    examples,
    sometimes,
)
from mzpay.domain.access.keys import SCOPES

Scope = Annotated[str, Field(json_schema_extra={"enum": list(SCOPES)})]  # what a key or client may hold


KEY = {
    "id": ULID,
    "account_id": ACCOUNT,
    "mode": "test",
    "scopes": ["payments:read", "payments:write"],
    "status": "active",
    "hint": "mzp_test_...x9Qa",
    "created_at": "2026-10-01T12:00:00Z",
    "expires_at": None,
    "ip_allowlist": [],
    "allowed_customers": [],
    "rolled_to": None,
}


class ApiKey(Answer):
    """An API key as its owner sees it (never its secret): the calling key, for GET /v1/api-keys/current."""

    model_config = examples(KEY)

    id: str = Field(description="The key's id.")
    account_id: BelongsTo
    mode: TestOrLive
    scopes: list[Scope] = Field(description="What it may do.")
    status: Literal["active", "rolled", "revoked"] = Field(description="rolled: replaced, valid until it expires.")
    hint: str = Field(description="Its prefix, mode and last four characters: safe to show.")
    created_at: MadeAt
    expires_at: Timestamp | None = Field(description="When it stops working; null: never.")
    ip_allowlist: list[str] = Field(description="The addresses or CIDR ranges it is accepted from; empty: any.")
    allowed_customers: list[str] = Field(description="The customer ids it may charge for; empty: any.")
    rolled_to: str | None = Field(description="The key that replaced it, once rolled.")


class RolledFrom(Answer):
    """The key that was rolled."""

    id: str = Field(description="Its id.")
    expires_at: Timestamp = Field(description="When it stops working.")


class RolledApiKey(ApiKey):
    """The key that replaces a rolled one, with its secret shown this once."""

    model_config = examples(
        {
            **KEY,
            "id": "01JD9C2D3E4F5G6H7J8K9M0N1P",
            "created_at": "2026-11-03T09:00:00Z",
            "key": "mzp_test_4Yq8...",
            "rolled": {"id": ULID, "expires_at": "2026-11-04T09:00:00Z"},
        }
    )

    key: str = Field(description="The new key's secret: shown once, store it now.")
    rolled: RolledFrom = Field(description="The old key and when it stops working.")


class WebhookEndpoint(Answer):
    """Where the account's own events (api_key.revoked, ...) are posted, in the key's mode."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "mode": "live",
            "url": "https://merchant.example/mzpay/events",
            "updated_at": "2026-11-01T08:00:00Z",
        }
    )

    account_id: AccountId
    mode: Mode = Field(description="The key's mode: each mode has its own endpoint.")
    url: str | None = Field(description="The endpoint; null: none set.")
    updated_at: Timestamp | None = Field(description="When it was set; null: none set.")


class ClientCertificate(Answer):
    """A new client certificate for mutual TLS, with the CA that issued it."""

    model_config = examples(
        {
            "id": "9f2c" + "0" * 60,
            "account_id": ACCOUNT,
            "fingerprint_sha256": "9f2c" + "0" * 60,
            "serial_number": "5d1e0b7c",
            "subject": f"CN={ACCOUNT}",
            "not_before": "2026-11-03T09:00:00Z",
            "not_after": "2027-12-05T09:00:00Z",
            "status": "active",
            "created_at": "2026-11-03T09:00:00Z",
            "certificate": "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n",
            "ca_certificate": "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n",
        }
    )

    id: str = Field(description="Its id: the SHA-256 fingerprint.")
    account_id: str = Field(description="The account it identifies.")
    fingerprint_sha256: str = Field(description="The SHA-256 of its DER, in hex.")
    serial_number: str = Field(description="Its serial number, in hex.")
    subject: str = Field(description="Its subject (RFC 4514).")
    not_before: Timestamp = Field(description="Valid from.")
    not_after: Timestamp = Field(description="Valid until.")
    status: Literal["active", "revoked"] = Field(description="active for a new certificate.")
    created_at: Timestamp = Field(description="When it was issued.")
    certificate: str = Field(description="The certificate (PEM).")
    ca_certificate: str = Field(description="The issuing CA's certificate (PEM).")
    private_key: str = sometimes("The private key (PEM) made for you, shown once; absent when you sent a CSR.")


class MtlsSetting(Answer):
    """Whether every request of the account needs one of its client certificates (mutual TLS)."""

    model_config = examples({"account_id": ACCOUNT, "required": True})

    account_id: AccountId
    required: bool = Field(description="true: requests without one of its certificates are refused.")


# ---------------------------------------------------------------- OAuth, secret scanning, webhooks
class OAuthToken(Answer):
    """An OAuth 2.0 access token (RFC 6749 5.1), used like an API key."""

    model_config = examples(
        {"access_token": "mzt_test_8Kq...", "token_type": "Bearer", "expires_in": 3600, "scope": "payments:read"}
    )

    access_token: str = Field(description="The token: send it as Authorization: Bearer.")
    token_type: Literal["Bearer"] = Field(description="Always Bearer.")
    expires_in: int = Field(description="Seconds it is valid for.")
    scope: str = Field(description="The scopes granted, space-separated.")
    cnf: dict[str, str] | None = Field(
        default=None,
        description='Over mutual TLS: `{"x5t#S256": <base64url SHA-256 of the certificate\'s DER>}` (RFC 8705).',
    )
