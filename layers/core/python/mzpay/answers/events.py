"""The gateway's answers about events (GET /v1/events, GET /v1/events/{event_id}: the envelope that
webhooks deliver too, mzpay.domain.events.Event.envelope)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, Answer, Mode, Page, Timestamp, examples

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


class EventList(Page[Event]):
    """A page of the account's events in the key's mode, newest first."""

    model_config = examples({"data": [_EVENT], "has_more": False, "next_cursor": None})
