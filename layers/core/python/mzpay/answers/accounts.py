"""The management API's answers about accounts, their platform connections, API keys and webhook
signing secrets (mzpay.cases.access: Account.public, Connection.public, ApiKey.public)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers import access
from mzpay.answers.base import (
    ACCOUNT,
    AccountId,
    AlwaysFalse,
    Answer,
    CreatedAt,
    ItsName,
    Mode,
    Region,
    Timestamp,
    examples,
)

# ---------------------------------------------------------------- accounts
_ACCOUNT = {
    "id": ACCOUNT,
    "name": "Loja Ana",
    "region": "mz",
    "status": "active",
    "reason": "",
    "created_at": "2026-10-01T12:00:00Z",
    "updated_at": "2026-10-01T12:00:00Z",
}


class Account(Answer):
    """An account: one merchant (tenant), homed in one service region."""

    model_config = examples(
        _ACCOUNT,
        {**_ACCOUNT, "status": "suspended", "reason": "Chargeback review", "updated_at": "2026-11-02T09:00:00Z"},
    )

    id: str = Field(description="The account's id (a ULID).")
    name: ItsName
    region: Region = Field(description="The service region it is homed in: its data lives there only.")
    status: Literal["active", "suspended"] = Field(description="suspended: its credentials are refused.")
    reason: str = Field(description="Why it was suspended; empty when it never was or was reactivated.")
    created_at: CreatedAt
    updated_at: Timestamp = Field(description="When its status last changed.")


class WebhookSecretShown(Answer):
    """A webhook signing secret, shown this once."""

    secret_id: str = Field(description="The secret's id (a ULID).")
    secret: str = Field(description="The secret (whsec_...): store it now, it is never shown again.")


class WebhookSecretsShown(Answer):
    """The first webhook signing secret of each mode."""

    test: WebhookSecretShown = Field(description="The secret that signs test-mode webhooks.")
    live: WebhookSecretShown = Field(description="The secret that signs live-mode webhooks.")


class NewAccount(Account):
    """A new active account, with its first webhook signing secret per mode (shown this once)."""

    model_config = examples(
        {
            **_ACCOUNT,
            "webhook_secrets": {
                "test": {"secret_id": "01JC0A1C5N6P7Q8R9S0T1V2W3X", "secret": "whsec_3fJ9..."},
                "live": {"secret_id": "01JC0A1C6A7B8C9D0E1F2G3H4J", "secret": "whsec_Qm2x..."},
            },
        }
    )

    webhook_secrets: WebhookSecretsShown = Field(description="The signing secrets, by mode.")


# ---------------------------------------------------------------- platform connections
_CONNECTION = {
    "platform_account_id": ACCOUNT,
    "connected_account_id": "01JC0B2C3D4E5F6G7H8J9K0M1N",
    "region": "mz",
    "created_at": "2026-10-05T08:00:00Z",
}


class Connection(Answer):
    """A platform account may act for a connected account (`?account_id=` on the gateway)."""

    model_config = examples(_CONNECTION)

    platform_account_id: str = Field(description="The platform that acts.")
    connected_account_id: str = Field(description="The account it acts for.")
    region: Region = Field(description="The region both accounts are homed in.")
    created_at: Timestamp = Field(description="When an operator connected them.")


class ConnectionList(Answer):
    """The accounts a platform account may act for."""

    model_config = examples({"connected_accounts": [_CONNECTION]})

    connected_accounts: list[Connection] = Field(description="Every connection of the platform.")


class Disconnection(Answer):
    """A connection removed: from the next request on, the platform's `?account_id=` for it is 404."""

    model_config = examples(
        {"platform_account_id": ACCOUNT, "connected_account_id": "01JC0B2C3D4E5F6G7H8J9K0M1N", "connected": False}
    )

    platform_account_id: str = Field(description="The platform.")
    connected_account_id: str = Field(description="The account it no longer acts for.")
    connected: AlwaysFalse


# ---------------------------------------------------------------- API keys
# The owner's example key (access.KEY), live and with an allowlist.
_KEY = {**access.KEY, "mode": "live", "hint": "mzp_live_...x9Qa", "ip_allowlist": ["203.0.113.0/24"]}


class ApiKey(access.ApiKey):
    """An API key as operators see it (never its secret or its hash)."""

    model_config = examples({**_KEY, "status": "revoked"})


class ListedApiKey(ApiKey):
    """An API key in its account's list (the console's account page), with its last use."""

    last_used_at: Timestamp | None = Field(description="Its last use, within the hour; null: none recorded.")


class ApiKeyList(Answer):
    """An account's API keys, newest first (the console's account page)."""

    data: list[ListedApiKey] = Field(description="The keys, newest first.")


class NewApiKey(ApiKey):
    """A new API key, with its secret shown this once."""

    model_config = examples({**_KEY, "key": "mzp_live_4Yq8..."})

    key: str = Field(description="The key's secret: shown once, store it now.")


# ---------------------------------------------------------------- webhook secrets and limits
class RolledWebhookSecret(Answer):
    """A new webhook signing secret of one mode, shown this once; the previous one stays valid a while."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "mode": "live",
            "secret_id": "01JD9E1F2G3H4J5K6M7N8P9Q0R",
            "secret": "whsec_Z8m1...",
            "previous_secret_id": "01JC0A1C6A7B8C9D0E1F2G3H4J",
            "previous_expires_at": "2026-11-03T10:00:00Z",
            "region": "mz",
        }
    )

    account_id: AccountId
    mode: Mode = Field(description="The mode whose webhooks it signs.")
    secret_id: str = Field(description="The new secret's id.")
    secret: str = Field(description="The new secret (whsec_...): store it now, it is never shown again.")
    previous_secret_id: str | None = Field(description="The secret it replaces; null when there was none.")
    previous_expires_at: Timestamp | None = Field(description="Until when the previous one still verifies.")
    region: Region = Field(description="The region that holds the secret.")
