"""The management API's answers about webhook deliveries (mzpay.operators.webhook_deliveries)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, Answer, MadeAt, Mode, Paged, Timestamp, UpdatedAt, examples

DELIVERY = "01JD8Z5Q1R2S3T4V5W6X7Y8Z9A"


# Keys that answers of this module share, described once.
NextAttemptAt = Annotated[Timestamp | None, Field(description="When the next attempt is due; null: none.")]


class DeliveryAttempt(Answer):
    """One attempt of a delivery."""

    at: MadeAt
    status_code: int | None = Field(description="The receiver's HTTP status; null when no answer came.")
    latency_ms: int | None = Field(description="How long the receiver took; null when unknown.")
    error: str | None = Field(description="Why no HTTP answer came (timeout, ssrf_blocked, ...); else null.")
    round: int = Field(description="The round it belongs to (0, then one more per replay).")
    next_attempt_at: NextAttemptAt


_DELIVERY = {
    "object": "webhook_delivery",
    "id": DELIVERY,
    "event_id": "01JD8Z5N2B3C4D5E6F7G8H9J0K",
    "event_type": "payment.succeeded",
    "account_id": ACCOUNT,
    "mode": "live",
    "resource": "payment",
    "resource_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "url": "https://shop.example/mzpay/webhooks",
    "status": "failed",
    "round": 0,
    "attempt_count": 8,
    "created_at": "2026-11-02T10:00:04.120Z",
    "updated_at": "2026-11-05T10:00:00.000Z",
    "next_attempt_at": None,
    "delivered_at": None,
    "stopped_at": None,
    "failed_at": "2026-11-05T10:00:00.000Z",
    "replayed_at": None,
    "last_error": "HTTP 500",
}


class WebhookDeliverySummary(Answer):
    """A webhook delivery (one event to one URL) as a list shows it: without its attempts."""

    model_config = examples(_DELIVERY)

    object: Literal["webhook_delivery"] = Field(description="Always webhook_delivery.")
    id: str = Field(description="The delivery's id (a ULID, the same for the same event and URL).")
    event_id: str = Field(description="The event delivered.")
    event_type: str = Field(description="Its type, e.g. payment.succeeded.")
    account_id: str = Field(description="The account whose event it is.")
    mode: Mode = Field(description="The event's mode.")
    resource: str = Field(description="The kind of thing that changed (payment, refund, payout, ...).")
    resource_id: str = Field(description="Its id.")
    url: str = Field(description="Where it is posted.")
    status: Literal["pending", "delivered", "failed", "stopped"] = Field(
        description="pending: being attempted; failed: out of attempts or refused; stopped: the receiver said 410."
    )
    round: int = Field(description="0, then one more per replay.")
    attempt_count: int = Field(description="How many attempts the current round made.")
    created_at: Timestamp = Field(description="When the delivery was made.")
    updated_at: UpdatedAt
    next_attempt_at: NextAttemptAt
    delivered_at: Timestamp | None = Field(description="When the receiver answered 2xx; null: not yet.")
    stopped_at: Timestamp | None = Field(description="When the receiver answered 410; null: it did not.")
    failed_at: Timestamp | None = Field(description="When it failed; null unless failed.")
    replayed_at: Timestamp | None = Field(description="When an operator last replayed it; null: never.")
    last_error: str | None = Field(description="What the last failed attempt got; null: none failed.")


class WebhookDelivery(WebhookDeliverySummary):
    """A webhook delivery with its attempts, oldest first (the most recent ones kept)."""

    model_config = examples(
        {
            **_DELIVERY,
            "attempts": [
                {
                    "at": "2026-11-02T10:00:04.300Z",
                    "status_code": 500,
                    "latency_ms": 212,
                    "error": None,
                    "round": 0,
                    "next_attempt_at": "2026-11-02T10:05:04.300Z",
                }
            ],
        },
        {**_DELIVERY, "status": "pending", "round": 1, "attempt_count": 0, "attempts": []},
    )

    attempts: list[DeliveryAttempt] = Field(description="Its attempts, oldest first.")


class WebhookDeliveryList(Paged[WebhookDeliverySummary]):
    """A page of an account's webhook deliveries, newest first."""

    model_config = examples({"object": "list", "data": [_DELIVERY], "has_more": True, "next_page_token": "eyJwayI6..."})

    data: list[WebhookDeliverySummary] = Field(description="The deliveries of this page.")
