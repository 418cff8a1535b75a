"""The gateway's answers about events (GET /v1/events, GET /v1/events/{event_id}: the envelope that
webhooks deliver too, mzpay.domain.webhooks.events.Event.envelope), and the check of a webhook's signature (its
200 answer and its 401 `SignatureRefusal`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AlwaysTrue, Answer, BelongsTo, Mode, Page, Timestamp, examples

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
    | Literal["bill_payment", "rejection", "collection_request", "api_key", "oauth_client", "report"]
)


class Event(Answer):
    """One event: the envelope that webhooks deliver too."""

    model_config = examples(_EVENT)

    id: str = Field(description="The event's id (a ULID; later events have greater ids).")
    type: str = Field(description="What happened, e.g. payment.succeeded, refund.failed, payout.paid.")
    created_at: Timestamp = Field(description="When it happened.")
    account_id: BelongsTo
    mode: Mode = Field(description="The mode it happened in.")
    api_version: str = Field(description="The version of the envelope and its data, e.g. 2026-11-01.")
    resource: EventResource = Field(description="The kind of thing that changed.")
    resource_id: str = Field(description="Its id (a payment's provider_payment_id, a refund's ...).")
    data: dict[str, Any] = Field(description="object: the resource as its own route answers it, after the change.")


class EventList(Page[Event]):
    """A page of the account's events in the key's mode, newest first."""

    model_config = examples({"data": [_EVENT], "has_more": False, "next_cursor": None})


class WebhookVerification(Answer):
    """The Service-Signature header matches the body (a signature that fails is answered 401)."""

    model_config = examples({"valid": True, "t": 1793613600, "tolerance_seconds": 300})

    valid: AlwaysTrue
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
