"""The management API's answers about the webhook dispatch failure queue
(mzpay.operators.dispatch_failures)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, Answer, ListOf, Timestamp, examples
from mzpay.answers.webhook_deliveries import DELIVERY

# Keys that answers of this module share, described once.
StreamArn = Annotated[str | None, Field(description="The stream's ARN.")]


class EventKey(Answer):
    """Where the skipped event is in the events table."""

    pk: str | None = Field(description="Its partition key.")
    sk: str | None = Field(description="Its sort key.")


class SkippedRecord(Answer):
    """The events table's stream record the dispatcher skipped."""

    event_source_arn: StreamArn
    event_id: str | None = Field(description="The record's id in the stream.")
    sequence_number: str | None = Field(description="The record's sequence number.")


class StreamBatch(Answer):
    """A batch of stream records Lambda gave up on (its on-failure destination)."""

    stream_arn: StreamArn
    shard_id: str | None = Field(description="The shard.")
    start_sequence_number: str | None = Field(description="The batch's first record.")
    end_sequence_number: str | None = Field(description="The batch's last record.")
    batch_size: int | None = Field(description="How many records it has.")
    approximate_arrival_of_first_record: str | None = Field(description="When its first record arrived.")
    approximate_arrival_of_last_record: str | None = Field(description="When its last record arrived.")


class _DispatchMessage(Answer):
    """A message of the webhook dispatch failure queue."""

    id: str = Field(description="The queue message's id: the {message_id} to replay it.")
    kind: Literal["skipped", "stream_batch", "unreadable"] = Field(
        description="skipped: an event the dispatcher set aside; stream_batch: records Lambda gave up on."
    )
    sent_at: Timestamp | None = Field(description="When it was queued.")
    reason: str | None = Field(description="Why (e.g. malformed_event, rejected_by_sqs, RetryAttemptsExhausted).")
    step: str | None = Field(description="The dispatch step skipped: webhook, settlement or collection.")
    detail: str | None = Field(description="The fault, in the dispatcher's or Lambda's words.")
    event_id: str | None = Field(description="The skipped event's id.")
    event_type: str | None = Field(description="The skipped event's type.")
    account_id: str | None = Field(description="The skipped event's account.")
    mode: str | None = Field(description="The skipped event's mode.")
    event_key: EventKey | None = Field(description="The skipped event's key in the events table.")
    stream: SkippedRecord | StreamBatch | None = Field(description="The stream record, or batch, it came from.")


_FAILURE = {
    "object": "webhook_dispatch_failure",
    "id": "5f1c0f0e-3b1a-4e0a-9a57-2f3b8f0c1a55",
    "kind": "skipped",
    "sent_at": "2026-11-02T10:00:05.000Z",
    "reason": "rejected_by_sqs",
    "step": "webhook",
    "detail": "An error occurred (InvalidParameterValue) ...",
    "event_id": "01JD8Z5N2B3C4D5E6F7G8H9J0K",
    "event_type": "payment.succeeded",
    "account_id": ACCOUNT,
    "mode": "live",
    "event_key": {"pk": f"ACCOUNT#{ACCOUNT}#live", "sk": "EVENT#01JD8Z5N2B3C4D5E6F7G8H9J0K"},
    "stream": {"event_source_arn": "arn:aws:dynamodb:...", "event_id": "c81e728d", "sequence_number": "4210000"},
}


class WebhookDispatchFailure(_DispatchMessage):
    """A message the webhook dispatcher could not dispatch (it stays queued until replayed)."""

    model_config = examples(_FAILURE)

    object: Literal["webhook_dispatch_failure"] = Field(description="Always webhook_dispatch_failure.")


class WebhookDispatchFailureList(ListOf[WebhookDispatchFailure]):
    """Messages of the webhook dispatch failure queue, oldest first."""

    model_config = examples({"object": "list", "data": [_FAILURE], "has_more": False})

    data: list[WebhookDispatchFailure] = Field(description="Up to `limit` messages.")
    has_more: bool = Field(description="Whether the queue may hold more (as many as `limit` were read).")


class ReplayedEvent(Answer):
    """What a replay did for one event of the message."""

    event_id: str | None = Field(description="The event; null when the stream no longer holds the batch.")
    event_type: str | None = Field(description="Its type.")
    delivery_id: str | None = Field(description="Its delivery; null when it has none to make.")
    outcome: Literal["dispatched", "skipped", "not_found", "expired"] = Field(
        description="skipped: set aside again (reason); expired: the stream no longer holds the records."
    )
    reason: str | None = Field(description="Why it was skipped again; else null.")


class WebhookDispatchReplay(_DispatchMessage):
    """A dispatch failure replayed: what happened to each of its events, and whether it left the queue."""

    model_config = examples(
        {
            **_FAILURE,
            "object": "webhook_dispatch_replay",
            "removed": True,
            "events": [
                {
                    "event_id": "01JD8Z5N2B3C4D5E6F7G8H9J0K",
                    "event_type": "payment.succeeded",
                    "delivery_id": DELIVERY,
                    "outcome": "dispatched",
                    "reason": None,
                }
            ],
        }
    )

    object: Literal["webhook_dispatch_replay"] = Field(description="Always webhook_dispatch_replay.")
    removed: bool = Field(description="true: nothing more can be done, the message left the queue.")
    events: list[ReplayedEvent] = Field(description="One outcome per event of the message.")
