"""What each route of the management API answers on success, for its OpenAPI document (`ROUTES`).

The same conventions as the gateway's (mzpay.openapi.gateway): every model refuses keys it does not
name; a key that is always there is required (`X | None` when it may be null); a key present in
some answers only is optional without a default (`sometimes`). Money is a decimal string
("1000.00"), times UTC ISO 8601 with a Z. The models mirror what the use cases answer
(mzpay.cases.access, oauth, psps, bindings, payouts, rate_limits; Account.public, ApiKey.public,
OAuthClient.public); a payout approved or rejected is the gateway's Payout. The answers of webhook
deliveries, dispatch failures, reviews, audits, health and the stack's information are in
mzpay.openapi.management_more; PSP onboarding's in mzpay.openapi.management_psps (a KYB
document's download is its file: no model).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from mzpay.answers.disputes import Dispute
from mzpay.answers.management_audit import IdentityProviderAuditList
from mzpay.openapi.gateway import PaymentSnapshot, Payout
from mzpay.openapi.gateway_batches import PayoutBatch
from mzpay.openapi.gateway_more import (
    ACCOUNT,
    ULID,
    Answer,
    Mode,
    Scope,
    Timestamp,
    examples,
    sometimes,
)
from mzpay.openapi.management_audit import AuditTrailList, AuditTrailRecord
from mzpay.openapi.management_bills import Biller, BillerList, BillProduct, SmsChannel
from mzpay.openapi.management_more import (
    BusinessAccountReviews,
    Health,
    SystemInfo,
    WebhookDelivery,
    WebhookDeliveryList,
    WebhookDispatchFailureList,
    WebhookDispatchReplay,
)
from mzpay.openapi.management_operations import (
    AccountLimits,
    ConnectorBinding,
    ConnectorBindingList,
    PartnerFlag,
    PayoutLimits,
    PilotState,
    PspList,
    PspStatus,
    RateLimits,
    ReconciliationCase,
    ReconciliationCaseList,
    Unbinding,
)
from mzpay.openapi.management_psps import ROUTES as PSP_ROUTES

Region = Literal["mz", "regional-sa"]


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
    name: str = Field(description="Its name.")
    region: Region = Field(description="The service region it is homed in: its data lives there only.")
    status: Literal["active", "suspended"] = Field(description="suspended: its credentials are refused.")
    reason: str = Field(description="Why it was suspended; empty when it never was or was reactivated.")
    created_at: Timestamp = Field(description="When it was created.")
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
    connected: Literal[False] = Field(description="Always false.")


# ---------------------------------------------------------------- API keys
_KEY = {
    "id": ULID,
    "account_id": ACCOUNT,
    "mode": "live",
    "scopes": ["payments:read", "payments:write"],
    "status": "active",
    "hint": "mzp_live_...x9Qa",
    "created_at": "2026-10-01T12:00:00Z",
    "expires_at": None,
    "ip_allowlist": ["203.0.113.0/24"],
    "allowed_customers": [],
    "rolled_to": None,
}


class ApiKey(Answer):
    """An API key as operators see it (never its secret or its hash)."""

    model_config = examples({**_KEY, "status": "revoked"})

    id: str = Field(description="The key's id.")
    account_id: str = Field(description="The account it belongs to.")
    mode: Mode = Field(description="test or live.")
    scopes: list[Scope] = Field(description="What it may do.")
    status: Literal["active", "rolled", "revoked"] = Field(description="rolled: replaced, valid until it expires.")
    hint: str = Field(description="Its prefix, mode and last four characters: safe to show.")
    created_at: Timestamp = Field(description="When it was made.")
    expires_at: Timestamp | None = Field(description="When it stops working; null: never.")
    ip_allowlist: list[str] = Field(description="The addresses or CIDR ranges it is accepted from; empty: any.")
    allowed_customers: list[str] = Field(description="The customer ids it may charge for; empty: any.")
    rolled_to: str | None = Field(description="The key that replaced it, once rolled.")


class NewApiKey(ApiKey):
    """A new API key, with its secret shown this once."""

    model_config = examples({**_KEY, "key": "mzp_live_4Yq8..."})

    key: str = Field(description="The key's secret: shown once, store it now.")


# ---------------------------------------------------------------- OAuth clients
class RsaJwk(Answer):
    """A registered RSA public key (RS256)."""

    kty: Literal["RSA"] = Field(description="RSA.")
    n: str = Field(description="The modulus (base64url).")
    e: str = Field(description="The exponent (base64url).")
    kid: str = sometimes("The key's id, when the registered key had one (at most 128 characters).")


class EcJwk(Answer):
    """A registered EC P-256 public key (ES256)."""

    kty: Literal["EC"] = Field(description="EC.")
    crv: Literal["P-256"] = Field(description="Always P-256.")
    x: str = Field(description="The x coordinate (base64url).")
    y: str = Field(description="The y coordinate (base64url).")
    kid: str = sometimes("The key's id, when the registered key had one (at most 128 characters).")


class RegisteredJwks(Answer):
    """The public keys a client signs its assertions with: only their public members are kept."""

    keys: list[Annotated[RsaJwk | EcJwk, Field(discriminator="kty")]] = Field(description="1 to 5 keys.")


_CLIENT = {
    "client_id": "01JD9D1E2F3G4H5J6K7M8N9P0Q",
    "account_id": ACCOUNT,
    "name": "ERP sync",
    "mode": "live",
    "scopes": ["payments:read", "events:read"],
    "status": "active",
    "token_endpoint_auth_method": "client_secret",
    "secret_hint": "mzs_live_...Tq4w",
    "jwks": None,
    "jwks_uri": None,
    "ip_allowlist": [],
    "created_at": "2026-10-02T08:00:00Z",
    "revoked_at": None,
}


class OAuthClient(Answer):
    """An OAuth 2.0 client-credentials client of an account (never its secret or its hash)."""

    model_config = examples(
        {**_CLIENT, "status": "revoked", "revoked_at": "2026-11-02T10:00:00Z"},
        {
            **_CLIENT,
            "token_endpoint_auth_method": "private_key_jwt",
            "secret_hint": None,
            "jwks": {"keys": [{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2...", "y": "x_FEzRu9...", "kid": "k1"}]},
        },
    )

    client_id: str = Field(description="The client's id (a ULID): client_id at POST /oauth/token.")
    account_id: str = Field(description="The account it acts for.")
    name: str = Field(description="Its name (the mode and 'client' when none was given).")
    mode: Mode = Field(description="The mode its tokens act in.")
    scopes: list[Scope] = Field(description="The scopes it may be granted.")
    status: Literal["active", "revoked"] = Field(description="revoked: its tokens stop working, it gets no new ones.")
    token_endpoint_auth_method: Literal["client_secret", "private_key_jwt"] = Field(
        description="How it authenticates: its secret, or a JWT signed with a registered key."
    )
    secret_hint: str | None = Field(description="Its secret's prefix, mode and last four characters; null: by key.")
    jwks: RegisteredJwks | None = Field(description="Its registered public keys; null: a secret or a jwks_uri.")
    jwks_uri: str | None = Field(description="Where it publishes its public keys; null: none.")
    ip_allowlist: list[str] = Field(description="The addresses or CIDR ranges it is accepted from; empty: any.")
    created_at: Timestamp = Field(description="When it was created.")
    revoked_at: Timestamp | None = Field(description="When it was revoked; null while active.")


class NewOAuthClient(OAuthClient):
    """A new OAuth client; a client that authenticates with a secret has it in this answer only."""

    model_config = examples({**_CLIENT, "client_secret": "mzs_live_7Hc2..."})

    client_secret: str = sometimes("The client's secret, shown once; absent for a private_key_jwt client.")


class OAuthClientList(Answer):
    """An account's OAuth clients."""

    model_config = examples({"data": [_CLIENT]})

    data: list[OAuthClient] = Field(description="Every client of the account, revoked ones too.")


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

    account_id: str = Field(description="The account.")
    mode: Mode = Field(description="The mode whose webhooks it signs.")
    secret_id: str = Field(description="The new secret's id.")
    secret: str = Field(description="The new secret (whsec_...): store it now, it is never shown again.")
    previous_secret_id: str | None = Field(description="The secret it replaces; null when there was none.")
    previous_expires_at: Timestamp | None = Field(description="Until when the previous one still verifies.")
    region: Region = Field(description="The region that holds the secret.")


class OpenApiDocument(RootModel[dict[str, Any]]):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = ConfigDict(
        defer_build=True,
        json_schema_extra={
            "examples": [
                {"openapi": "3.1.0", "info": {"title": "mzpay management API", "version": "1.0.0"}, "paths": {}}
            ]
        },
    )


Success = type[Answer] | type[RootModel[Any]]

# (method, path) -> the model of its success answer; None: a page for people or its files (HTML, CSS, JS).
ROUTES: dict[tuple[str, str], Success | None] = {
    ("GET", "/health"): Health,
    ("GET", "/v1/system/info"): SystemInfo,
    ("POST", "/v1/accounts"): NewAccount,
    ("GET", "/v1/accounts/{account_id}"): Account,
    ("POST", "/v1/accounts/{account_id}/suspend"): Account,
    ("POST", "/v1/accounts/{account_id}/reactivate"): Account,
    ("GET", "/v1/accounts/{account_id}/onboarding-reviews"): BusinessAccountReviews,
    ("POST", "/v1/accounts/{account_id}/connected-accounts"): Connection,
    ("GET", "/v1/accounts/{account_id}/connected-accounts"): ConnectionList,
    ("DELETE", "/v1/accounts/{account_id}/connected-accounts/{connected_account_id}"): Disconnection,
    ("POST", "/v1/accounts/{account_id}/api-keys"): NewApiKey,
    ("POST", "/v1/api-keys/{key_id}/revoke"): ApiKey,
    ("POST", "/v1/accounts/{account_id}/oauth-clients"): NewOAuthClient,
    ("GET", "/v1/accounts/{account_id}/oauth-clients"): OAuthClientList,
    ("POST", "/v1/oauth-clients/{client_id}/revoke"): OAuthClient,
    ("POST", "/v1/accounts/{account_id}/webhook-secrets/roll"): RolledWebhookSecret,
    ("PUT", "/v1/accounts/{account_id}/rate-limits"): RateLimits,
    ("PUT", "/v1/accounts/{account_id}/partner"): PartnerFlag,
    ("PUT", "/v1/accounts/{account_id}/limits"): AccountLimits,
    ("PUT", "/v1/accounts/{account_id}/payout-limits"): PayoutLimits,
    ("GET", "/v1/psps"): PspList,
    ("PUT", "/v1/psps/{psp_id}/availability"): PspStatus,
    ("PUT", "/v1/psps/{psp_id}/pilot"): PilotState,
    ("POST", "/v1/payouts/{payout_id}/approve"): Payout,
    ("POST", "/v1/payouts/{payout_id}/reject"): Payout,
    ("POST", "/v1/payout-batches/{batch_id}/approve"): PayoutBatch,
    ("POST", "/v1/payout-batches/{batch_id}/reject"): PayoutBatch,
    ("POST", "/v1/disputes"): Dispute,
    ("GET", "/v1/disputes/{dispute_id}"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/decide"): Dispute,
    ("POST", "/v1/payments/{payment_id}/confirm"): PaymentSnapshot,
    ("POST", "/v1/payments/{payment_id}/reject"): PaymentSnapshot,
    ("GET", "/v1/reconciliation-cases"): ReconciliationCaseList,
    ("GET", "/v1/reconciliation-cases/{object_id}"): ReconciliationCase,
    ("POST", "/v1/reconciliation-cases/{object_id}/resolve"): ReconciliationCase,
    ("GET", "/v1/accounts/{account_id}/connector-bindings"): ConnectorBindingList,
    ("PUT", "/v1/accounts/{account_id}/connector-bindings/{mode}/{method}"): ConnectorBinding,
    ("DELETE", "/v1/accounts/{account_id}/connector-bindings/{mode}/{method}"): Unbinding,
    ("GET", "/v1/identity-providers/{idp_id}/audit"): IdentityProviderAuditList,
    ("GET", "/v1/audit-records"): AuditTrailList,
    ("GET", "/v1/audit-records/{audit_id}"): AuditTrailRecord,
    ("GET", "/v1/webhook-deliveries/{delivery_id}"): WebhookDelivery,
    ("GET", "/v1/accounts/{account_id}/webhook-deliveries"): WebhookDeliveryList,
    ("POST", "/v1/webhook-deliveries/{delivery_id}/replay"): WebhookDelivery,
    ("GET", "/v1/webhook-dispatch-failures"): WebhookDispatchFailureList,
    ("POST", "/v1/webhook-dispatch-failures/{message_id}/replay"): WebhookDispatchReplay,
    ("POST", "/v1/billers"): Biller,
    ("GET", "/v1/billers"): BillerList,
    ("GET", "/v1/billers/{biller_id}"): Biller,
    ("PATCH", "/v1/billers/{biller_id}"): Biller,
    ("POST", "/v1/billers/{biller_id}/retire"): Biller,
    ("POST", "/v1/billers/{biller_id}/products"): BillProduct,
    ("POST", "/v1/billers/{biller_id}/products/{product_id}/retire"): BillProduct,
    ("PUT", "/v1/accounts/{account_id}/sms-channel"): SmsChannel,
    ("DELETE", "/v1/accounts/{account_id}/sms-channel"): SmsChannel,
    **PSP_ROUTES,
    ("GET", "/openapi.json"): OpenApiDocument,
    ("GET", "/docs"): None,
    ("GET", "/docs/{asset}"): None,
}


def models() -> list[type[BaseModel]]:
    """Every model of a success answer, once each."""
    return list({model: None for model in ROUTES.values() if model is not None})
