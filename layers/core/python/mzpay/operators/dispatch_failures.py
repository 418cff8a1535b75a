"""Operators and WebhookDispatchFailureQueue (management API): list what the webhook dispatcher
did not dispatch, and replay it once the cause is repaired. See docs/webhooks.md, "Poison
records".

A replay dispatches the named events again from the source of truth: the events table for the
dispatcher's own skips (their message names the event's key), the events table's stream for
Lambda's on-failure messages (shard and sequence range, while the stream retains them). The
outbox is idempotent (one delivery per event and URL, a settlement message is harmless twice), so
replaying twice, or racing two replays, delivers once.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers import dispatch_failures as answers
from mzpay.domain.common.errors import ServiceError, found
from mzpay.fanout import stream
from mzpay.store.dispatch_failures import StreamExpired, stream_records

_MESSAGE_ID = re.compile(r"^[0-9a-fA-F-]{36}$")


def _body(message: dict[str, Any]) -> dict[str, Any] | None:
    try:
        body = json.loads(message["Body"])
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _kind(body: dict[str, Any] | None) -> str:
    if body is not None and body.get("source") == stream.SKIP_SOURCE and isinstance(body.get("event_key"), dict):
        return "skipped"
    if body is not None and isinstance(body.get("DDBStreamBatchInfo"), dict):
        return "stream_batch"
    return "unreadable"


def _sent_at(message: dict[str, Any]) -> str | None:
    stamp = message.get("Attributes", {}).get("SentTimestamp")
    if stamp is None:
        return None
    moment = datetime.fromtimestamp(int(stamp) / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _public(message: dict[str, Any]) -> dict[str, Any]:
    body = _body(message)
    kind = _kind(body)
    public: dict[str, Any] = {
        "object": "webhook_dispatch_failure",
        "id": message["MessageId"],
        "kind": kind,
        "sent_at": _sent_at(message),
        "reason": None,
        "step": None,
        "detail": None,
        "event_id": None,
        "event_type": None,
        "account_id": None,
        "mode": None,
        "event_key": None,
        "stream": None,
    }
    if kind == "skipped" and body is not None:
        public |= {name: body.get(name) for name in ("reason", "step", "detail", "event_id", "event_type")}
        public |= {name: body.get(name) for name in ("account_id", "mode", "event_key", "stream")}
    elif kind == "stream_batch" and body is not None:
        info = body["DDBStreamBatchInfo"]
        public["reason"] = (body.get("requestContext") or {}).get("condition")
        public["detail"] = (body.get("responseContext") or {}).get("functionError")
        public["stream"] = {
            "stream_arn": info.get("streamArn"),
            "shard_id": info.get("shardId"),
            "start_sequence_number": info.get("startSequenceNumber"),
            "end_sequence_number": info.get("endSequenceNumber"),
            "batch_size": info.get("batchSize"),
            "approximate_arrival_of_first_record": info.get("approximateArrivalOfFirstRecord"),
            "approximate_arrival_of_last_record": info.get("approximateArrivalOfLastRecord"),
        }
    return public


def view(message: dict[str, Any]) -> answers.WebhookDispatchFailure:
    """One message of the queue, as operators see it."""
    return answers.WebhookDispatchFailure.of(_public(message))


def failures(limit: int) -> answers.WebhookDispatchFailureList:
    """Up to `limit` messages of the queue, oldest first (they stay on it)."""
    messages = deps.dispatch_failures().peek(limit)
    return answers.WebhookDispatchFailureList(
        object="list", data=[view(m) for m in messages], has_more=len(messages) >= limit
    )


def _outcome(
    event_id: Any, event_type: Any, outcome: str, delivery_id: str | None = None, reason: str | None = None
) -> dict[str, Any]:
    """What a replay did for one event: dispatched (delivery_id: its delivery, null when the
    event has none to make), skipped (again: reason), not_found (no such event) or expired (the
    stream no longer holds the batch's records)."""
    return {
        "event_id": event_id,
        "event_type": event_type,
        "delivery_id": delivery_id,
        "outcome": outcome,
        "reason": reason,
    }


def _replay_image(image: dict[str, Any]) -> dict[str, Any]:
    result = stream.dispatch_event(image)
    if result.skipped:
        reason = ",".join(s.reason for s in result.skipped)
        return _outcome(image.get("id"), image.get("type"), "skipped", result.delivery_id, reason)
    return _outcome(image.get("id"), image.get("type"), "dispatched", result.delivery_id)


def _stream_images(body: dict[str, Any]) -> list[dict[str, Any]]:
    from boto3.dynamodb.types import TypeDeserializer

    info = body["DDBStreamBatchInfo"]
    records = stream_records(
        str(info["streamArn"]), str(info["shardId"]), str(info["startSequenceNumber"]), str(info["endSequenceNumber"])
    )
    deserializer = TypeDeserializer()
    return [
        {name: deserializer.deserialize(value) for name, value in record["dynamodb"]["NewImage"].items()}
        for record in records
        if record.get("eventName") == "INSERT" and record.get("dynamodb", {}).get("NewImage")
    ]


def replay(message_id: str) -> answers.WebhookDispatchReplay:
    """Dispatch the events of one message again. The message leaves the queue when nothing more
    can be done for them (each dispatched, not found or expired); when one is skipped again it
    stays (visible again), to be replayed after a further repair."""
    message = found(
        deps.dispatch_failures().hold(message_id) if _MESSAGE_ID.match(message_id) else None,
        "webhook dispatch failure (replayed already?)",
    )
    removed = False
    try:
        body = _body(message)
        kind = _kind(body)
        if body is None or kind == "unreadable":
            raise ServiceError(409, "invalid_state", "This message names no event to replay.")
        events: list[dict[str, Any]] = []
        if kind == "skipped":
            key = body["event_key"]
            item = (
                deps.events().by_key(str(key.get("pk")), str(key.get("sk")))
                if key.get("pk") and key.get("sk")
                else None
            )
            if item is None:
                events.append(_outcome(body.get("event_id"), body.get("event_type"), "not_found"))
            else:
                events.append(_replay_image(item))
        else:
            try:
                events = [_replay_image(image) for image in _stream_images(body)]
            except StreamExpired:
                events = [_outcome(None, None, "expired")]
            except ValueError:
                raise ServiceError(409, "invalid_state", "This message names no readable stream records.") from None
        if all(e["outcome"] != "skipped" for e in events):
            deps.dispatch_failures().delete(message)
            removed = True
        replayed = {"object": "webhook_dispatch_replay", "removed": removed, "events": events}
        return answers.WebhookDispatchReplay.of(_public(message) | replayed)
    finally:
        if not removed:
            deps.dispatch_failures().release(message)
