"""The management API's smaller answers: health, the stack's information, webhook deliveries and
dispatch failures (mzpay.operators.webhook_deliveries, dispatch_failures), business accounts' review
records (mzpay.collection.onboarding.reviews), identity providers' audit records
(mzpay.collection.identity_providers.audit_view) and the OpenAPI document. Accounts, keys, clients,
limits, PSPs and the route table: mzpay.openapi.management."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.management_audit import Actor
from mzpay.openapi.collection_more import BusinessStatus, Region
from mzpay.openapi.gateway_more import ACCOUNT, Answer, Mode, Timestamp, examples

DELIVERY = "01JD8Z5Q1R2S3T4V5W6X7Y8Z9A"


# ---------------------------------------------------------------- health and the stack
class Health(Answer):
    """The API is up: which API, region and build answered."""

    model_config = examples({"status": "ok", "api": "management", "service_region": "mz", "version": "0.1.0"})

    status: Literal["ok"] = Field(description="Always ok.")
    api: Literal["management"] = Field(description="The API that answered.")
    service_region: Region = Field(description="The region that answered.")
    version: str = Field(description="The service's version.")


class BuildInfo(Answer):
    """The build the stack runs."""

    version: str = Field(description="The service's version.")
    git_commit: str = Field(description="The commit it was built from (unknown when not recorded).")
    build_date: str = Field(description="When it was built (unknown when not recorded).")
    go_version: str = Field(description="The runtime (kept under this name for clients of the spec): python3.x.y.")
    runtime_version: str = Field(description="The runtime, e.g. python3.12.7.")
    platform: str = Field(description="The operating system and architecture, e.g. linux/arm64.")


class SystemInfo(Answer):
    """Which region, stage and build answer, and where the peer regions are."""

    model_config = examples(
        {
            "service_region": "mz",
            "stage": "prod",
            "peer_regions": {"regional-sa": {"gateway": "https://gw.sa.mzpay.example"}},
            "build": {
                "version": "0.1.0",
                "git_commit": "37a8898",
                "build_date": "2026-11-01T08:00:00Z",
                "go_version": "python3.12.7",
                "runtime_version": "python3.12.7",
                "platform": "linux/arm64",
            },
        }
    )

    service_region: Region = Field(description="This stack's region.")
    stage: str = Field(description="The stage, e.g. prod.")
    peer_regions: dict[str, dict[str, str]] = Field(description="Per peer region, the URL of each of its APIs.")
    build: BuildInfo = Field(description="The build this stack runs.")


# ---------------------------------------------------------------- webhook deliveries
class DeliveryAttempt(Answer):
    """One attempt of a delivery."""

    at: Timestamp = Field(description="When it was made.")
    status_code: int | None = Field(description="The receiver's HTTP status; null when no answer came.")
    latency_ms: int | None = Field(description="How long the receiver took; null when unknown.")
    error: str | None = Field(description="Why no HTTP answer came (timeout, ssrf_blocked, ...); else null.")
    round: int = Field(description="The round it belongs to (0, then one more per replay).")
    next_attempt_at: Timestamp | None = Field(description="When the next attempt is due; null: none.")


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
    updated_at: Timestamp = Field(description="When it last changed.")
    next_attempt_at: Timestamp | None = Field(description="When the next attempt is due; null: none.")
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


class WebhookDeliveryList(Answer):
    """A page of an account's webhook deliveries, newest first."""

    model_config = examples({"object": "list", "data": [_DELIVERY], "has_more": True, "next_page_token": "eyJwayI6..."})

    object: Literal["list"] = Field(description="Always list.")
    data: list[WebhookDeliverySummary] = Field(description="The deliveries of this page.")
    has_more: bool = Field(description="Whether another page follows.")
    next_page_token: str | None = Field(description="Send it as page_token for the next page; null at the end.")


# ---------------------------------------------------------------- dispatch failures
class EventKey(Answer):
    """Where the skipped event is in the events table."""

    pk: str | None = Field(description="Its partition key.")
    sk: str | None = Field(description="Its sort key.")


class SkippedRecord(Answer):
    """The events table's stream record the dispatcher skipped."""

    event_source_arn: str | None = Field(description="The stream's ARN.")
    event_id: str | None = Field(description="The record's id in the stream.")
    sequence_number: str | None = Field(description="The record's sequence number.")


class StreamBatch(Answer):
    """A batch of stream records Lambda gave up on (its on-failure destination)."""

    stream_arn: str | None = Field(description="The stream's ARN.")
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


class WebhookDispatchFailureList(Answer):
    """Messages of the webhook dispatch failure queue, oldest first."""

    model_config = examples({"object": "list", "data": [_FAILURE], "has_more": False})

    object: Literal["list"] = Field(description="Always list.")
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


# ---------------------------------------------------------------- reviews and audits (collection surface)
class ReviewedField(Answer):
    """A field problem a rejection lists."""

    field: str = Field(description="The field, e.g. bank_details.nib.")
    message: str = Field(description="What is wrong with it.")
    code: Literal["INVALID_FORMAT", "NOT_FOUND", "VERIFICATION_FAILED"] = Field(description="The kind of problem.")


class BusinessAccountReview(Answer):
    """A reviewer's decision on a business account."""

    id: str = Field(description="The record's id (rev_...).")
    account_id: str = Field(description="The business account.")
    action: Literal["approve", "reject", "suspend", "reactivate"] = Field(description="The decision.")
    from_status: BusinessStatus = Field(description="The account's status before.")
    to_status: BusinessStatus = Field(description="Its status after.")
    reason: str = Field(description="The reason of a rejection or suspension; empty otherwise.")
    errors: list[ReviewedField] = Field(description="The field problems of a rejection; empty otherwise.")
    reviewer: Actor = Field(description="The reviewer.")
    source_ip: str = Field(description="The address the decision came from.")
    at: Timestamp = Field(description="When it was made.")


class BusinessAccountReviews(Answer):
    """A business account's last 100 review decisions, newest first."""

    model_config = examples(
        {
            "object": "list",
            "data": [
                {
                    "id": "rev_01JD9F1G2H3J4K5M6N7P8Q9R0S",
                    "account_id": "acct_loja_ana",
                    "action": "reject",
                    "from_status": "pending_review",
                    "to_status": "rejected",
                    "reason": "The NIB does not match the bank declaration.",
                    "errors": [{"field": "bank_details.nib", "message": "Another holder", "code": "NOT_FOUND"}],
                    "reviewer": {
                        "kind": "administrator",
                        "subject": "reviewer-7",
                        "issuer": "https://id.mzpay.example",
                        "account_id": None,
                    },
                    "source_ip": "198.51.100.7",
                    "at": "2026-11-02T11:00:00Z",
                }
            ],
        }
    )

    object: Literal["list"] = Field(description="Always list.")
    data: list[BusinessAccountReview] = Field(description="The decisions, newest first.")
