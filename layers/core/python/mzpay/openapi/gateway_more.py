"""The base of the gateway's answer models (`Answer`, the wire types, `sometimes`) and the answers
of its smaller routes: health, methods, balance, name lookups, events, API keys, the account's
endpoint, mutual TLS, the OAuth token, the secret-scanning labels, the webhook check (and its 401
`SignatureRefusal`) and the OpenAPI document. Payments, refunds, payouts and the route table:
mzpay.openapi.gateway."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from mzpay.answers.base import Answer, Mode, Timestamp, examples, sometimes
from mzpay.domain.keys import SCOPES

__all__ = ["Answer", "Mode", "Timestamp", "examples", "sometimes"]  # the base, for the other answer modules

DecimalText = Annotated[str, Field(pattern=r"^(0|[1-9]\d*)(\.\d+)?$")]  # money: "150.00", never a JSON number
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
Scope = Annotated[str, Field(json_schema_extra={"enum": list(SCOPES)})]  # what a key or client may hold
ULID = "01JD8Z5K3M2N4P6Q7R8S9T0VWX"
ACCOUNT = "01JC0A1B2C3D4E5F6G7H8J9K0M"


class Amount(Answer):
    """An amount of money and its currency."""

    amount: DecimalText = Field(description='A decimal string with the currency\'s fraction digits, e.g. "150.00".')
    currency: Currency = Field(description="The ISO 4217 currency code, e.g. MZN.")


# ---------------------------------------------------------------- health and methods
class Health(Answer):
    """The API is up: which API, region and build answered."""

    model_config = examples({"status": "ok", "api": "gateway", "service_region": "mz", "version": "0.1.0"})

    status: Literal["ok"] = Field(description="Always ok.")
    api: Literal["gateway"] = Field(description="The API that answered.")
    service_region: Literal["mz", "regional-sa"] = Field(description="The region that answered.")
    version: str = Field(description="The service's version.")


class MethodLimit(Answer):
    """The amounts a method takes in one currency."""

    min_amount: DecimalText = Field(description="The smallest amount.")
    max_amount: DecimalText = Field(description="The largest amount.")


class MethodInfo(Answer):
    """A payment method the gateway offers."""

    method: Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"] = Field(
        description="The source.type that selects it."
    )
    networks: list[Literal["mpesa", "emola", "mkesh"]] = Field(description="Its networks (mobile wallets only).")
    currencies: list[Currency] = Field(description="The currencies it takes.")
    limits: dict[Currency, MethodLimit] = Field(description="Per currency, the amounts it takes.")


class MethodList(Answer):
    """The payment methods, their networks, currencies and limits."""

    model_config = examples(
        {
            "methods": [
                {
                    "method": "mobile_wallet",
                    "networks": ["mpesa", "emola", "mkesh"],
                    "currencies": ["MZN"],
                    "limits": {"MZN": {"min_amount": "1.00", "max_amount": "125000.00"}},
                }
            ]
        }
    )

    methods: list[MethodInfo] = Field(description="Every method.")


# ---------------------------------------------------------------- balance and name lookups
class CurrencyBalance(Answer):
    """The balance in one currency."""

    currency: Currency = Field(description="The currency.")
    available: DecimalText = Field(description="What may be refunded or paid out now.")
    held: DecimalText = Field(description="What refunds and payouts not settled yet hold.")
    fees: DecimalText = Field(
        description="What providers reported keeping of captured payments, in total; never part of available."
    )


class Balance(Answer):
    """The account's balances in the key's mode."""

    model_config = examples(
        {
            "object": "balance",
            "mode": "test",
            "balances": [{"currency": "MZN", "available": "970.00", "held": "30.00", "fees": "0.00"}],
        }
    )

    object: Literal["balance"] = Field(description="Always balance.")
    mode: Mode = Field(description="The key's mode.")
    balances: list[CurrencyBalance] = Field(description="One per currency the account has moved money in.")


class Candidate(Answer):
    """A possible holder of the looked-up account."""

    candidate_id: str = Field(description="Its id in this lookup (cand_1, cand_2, ...): send it to select.")
    name: str = Field(description="The holder's name.")


class NameLookup(Answer):
    """Who holds a wallet or bank account, as the provider answered."""

    model_config = examples(
        {
            "lookup_id": ULID,
            "type": "mobile_wallet",
            "status": "resolved",
            "name": "Ana Machava",
            "candidates": [{"candidate_id": "cand_1", "name": "Ana Machava"}],
            "expires_at": "2026-11-03T08:15:00Z",
            "created_at": "2026-11-03T08:00:00Z",
            "updated_at": "2026-11-03T08:00:00Z",
        }
    )

    lookup_id: str = Field(description="The lookup's id (a ULID).")
    type: Literal["mobile_wallet", "bank_transfer"] = Field(description="What was looked up.")
    status: Literal["resolved", "ambiguous", "selected"] = Field(description="ambiguous: select one candidate.")
    name: str | None = Field(description="The holder's name; null while ambiguous.")
    candidates: list[Candidate] = Field(description="The possible holders, in the provider's order.")
    expires_at: Timestamp | None = Field(description="Until when a cash deposit may start from it.")
    created_at: Timestamp = Field(description="When the lookup was made.")
    updated_at: Timestamp = Field(description="When it last changed.")


# ---------------------------------------------------------------- events
_EVENT = {
    "id": "01JD8Z5N2B3C4D5E6F7G8H9J0K",
    "type": "payment.succeeded",
    "created_at": "2026-11-02T10:00:04Z",
    "account_id": ACCOUNT,
    "mode": "test",
    "api_version": "2026-11-01",
    "resource": "payment",
    "resource_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "data": {"object": {"provider_payment_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K", "status": "succeeded"}},
}


EventResource = (
    Literal["payment", "refund", "payout", "payout_batch", "cash_deposit", "psp_transaction", "dispute"]
    | Literal["bill_payment", "rejection", "collection_request", "api_key", "oauth_client"]
)


class Event(Answer):
    """One event: the envelope that webhooks deliver too."""

    model_config = examples(_EVENT)

    id: str = Field(description="The event's id (a ULID; later events have greater ids).")
    type: str = Field(description="What happened, e.g. payment.succeeded, refund.failed, payout.paid.")
    created_at: Timestamp = Field(description="When it happened.")
    account_id: str = Field(description="The account it belongs to.")
    mode: Mode = Field(description="The mode it happened in.")
    api_version: str = Field(description="The version of the envelope and its data, e.g. 2026-11-01.")
    resource: EventResource = Field(description="The kind of thing that changed.")
    resource_id: str = Field(description="Its id (a payment's provider_payment_id, a refund's ...).")
    data: dict[str, Any] = Field(description="object: the resource as its own route answers it, after the change.")


class EventList(Answer):
    """A page of the account's events in the key's mode, newest first."""

    model_config = examples({"object": "list", "data": [_EVENT], "has_more": False, "next_cursor": None})

    object: Literal["list"] = Field(description="Always list.")
    data: list[Event] = Field(description="The events of this page.")
    has_more: bool = Field(description="Whether another page follows.")
    next_cursor: str | None = Field(description="Send it as starting_after for the next page; null at the end.")


# ---------------------------------------------------------------- access
_KEY = {
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

    model_config = examples(_KEY)

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


class RolledFrom(Answer):
    """The key that was rolled."""

    id: str = Field(description="Its id.")
    expires_at: Timestamp = Field(description="When it stops working.")


class RolledApiKey(ApiKey):
    """The key that replaces a rolled one, with its secret shown this once."""

    model_config = examples(
        {
            **_KEY,
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

    account_id: str = Field(description="The account.")
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

    account_id: str = Field(description="The account.")
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


class SecretScanningLabel(Answer):
    """The verdict on one reported token."""

    token_raw: str = Field(description="The token as reported.")
    token_type: str = Field(description="The type the report gave it.")
    label: Literal["true_positive", "false_positive"] = Field(description="true_positive: ours, now revoked.")


class SecretScanningLabels(RootModel[list[SecretScanningLabel]]):
    """One label per reported token, in the report's order."""

    model_config = ConfigDict(
        defer_build=True,
        json_schema_extra={
            "examples": [[{"token_raw": "mzp_live_abc", "token_type": "mzpay_api_key", "label": "false_positive"}]]
        },
    )


class WebhookVerification(Answer):
    """The Service-Signature header matches the body (a signature that fails is answered 401)."""

    model_config = examples({"valid": True, "t": 1793613600, "tolerance_seconds": 300})

    valid: Literal[True] = Field(description="Always true.")
    t: int = Field(description="The signature's timestamp (Unix seconds).")
    tolerance_seconds: int = Field(description="How far t may be from now.")


class SignatureRefusal(Answer):
    """The webhook signature check refused the header (401): why, and the timestamp it read."""

    model_config = examples(
        {
            "error": "signature_timestamp_outside_tolerance",
            "message": "The signature timestamp is more than 300 seconds from the current time.",
            "t": 1793613000,
        }
    )

    error: Literal["signature_invalid", "signature_timestamp_outside_tolerance"] = Field(description="Why.")
    message: str = Field(description="The refusal explained in plain words.")
    t: int | None = Field(description="The header's timestamp (Unix seconds); null when it has none.")


class OpenApiDocument(RootModel[dict[str, Any]]):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = ConfigDict(
        defer_build=True,
        json_schema_extra={
            "examples": [{"openapi": "3.1.0", "info": {"title": "mzpay gateway API", "version": "1.0.0"}, "paths": {}}]
        },
    )
