"""WebhookDispatchFailureQueue: what the webhook dispatcher did not dispatch (docs/webhooks.md,
"Poison records"), and the events table's stream records that its messages point at.

Two kinds of message arrive there: the dispatcher's own skips (a JSON body naming the event's
key, with `source` = "webhook_dispatcher"), and Lambda's on-failure records for stream batches
that kept failing (`DDBStreamBatchInfo`: shard and sequence range, to be read from the stream
while it retains them, 24 h).
"""

from __future__ import annotations

import json
from typing import Any

from mzpay.store.aws import SqsQueue, client, env

PEEK_SECONDS = 30  # a listed or held message is hidden this long, then visible again
MAX_RECEIVES = 12  # receive calls per listing or search (10 messages each)
MAX_STREAM_PAGES = 20


class DispatchFailureQueue(SqsQueue):
    @classmethod
    def from_env(cls) -> DispatchFailureQueue:
        return cls(env("WEBHOOK_DISPATCH_FAILURE_QUEUE_URL"))

    def send(self, body: dict[str, Any]) -> None:
        self.post(json.dumps(body, separators=(",", ":")))

    def _receive(self, seconds: int) -> list[dict[str, Any]]:
        return (
            client("sqs")
            .receive_message(  # type: ignore[no-any-return]
                QueueUrl=self.url,
                MaxNumberOfMessages=10,
                VisibilityTimeout=seconds,
                AttributeNames=["SentTimestamp", "ApproximateReceiveCount"],
            )
            .get("Messages", [])
        )

    def _release(self, messages: list[dict[str, Any]]) -> None:
        for start in range(0, len(messages), 10):
            entries = [
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
                for i, m in enumerate(messages[start : start + 10])
            ]
            client("sqs").change_message_visibility_batch(QueueUrl=self.url, Entries=entries)

    def peek(self, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` messages, left on the queue (hidden while read, then made visible again)."""
        seen: dict[str, dict[str, Any]] = {}
        try:
            for _ in range(MAX_RECEIVES):
                batch = [m for m in self._receive(PEEK_SECONDS) if m["MessageId"] not in seen]
                if not batch:
                    break
                seen |= {m["MessageId"]: m for m in batch}
                if len(seen) >= limit:
                    break
        finally:
            self._release(list(seen.values()))
        return sorted(seen.values(), key=lambda m: (int(m["Attributes"].get("SentTimestamp", 0)), m["MessageId"]))[
            :limit
        ]

    def hold(self, message_id: str) -> dict[str, Any] | None:
        """The message `message_id`, hidden for PEEK_SECONDS (the caller deletes or releases it);
        None when it is not on the queue (or another operator holds it)."""
        others: list[dict[str, Any]] = []
        found = None
        try:
            for _ in range(MAX_RECEIVES):
                batch = self._receive(PEEK_SECONDS)
                if not batch:
                    break
                for message in batch:
                    if message["MessageId"] == message_id:
                        found = message
                    else:
                        others.append(message)
                if found is not None:
                    break
        finally:
            self._release(others)
        return found

    def delete(self, message: dict[str, Any]) -> None:
        client("sqs").delete_message(QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"])

    def release(self, message: dict[str, Any]) -> None:
        self._release([message])


class StreamExpired(Exception):
    """The stream no longer holds these records (past its 24 h retention, or the shard is gone)."""


_EXPIRED_CODES = frozenset({"TrimmedDataAccessException", "ResourceNotFoundException", "ExpiredIteratorException"})


def stream_records(stream_arn: str, shard_id: str, start: str, end: str) -> list[dict[str, Any]]:
    """The stream records of `shard_id` from sequence number `start` to `end` (inclusive), as
    GetRecords answers them; StreamExpired when the stream no longer has them."""
    streams = client("dynamodbstreams")
    try:
        first, last = int(start), int(end)
    except ValueError:
        raise ValueError(f"not a stream range: {shard_id} {start}-{end}") from None
    try:
        iterator = streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard_id, ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=start
        )["ShardIterator"]
        found: list[dict[str, Any]] = []
        for _ in range(MAX_STREAM_PAGES):
            if iterator is None:
                break
            page = streams.get_records(ShardIterator=iterator, Limit=1000)
            for record in page.get("Records", []):
                number = int(record["dynamodb"]["SequenceNumber"])
                if number > last:
                    return found
                if number >= first:
                    found.append(record)
            if not page.get("Records") and found:
                break
            iterator = page.get("NextShardIterator")
        return found
    except Exception as exc:
        if type(exc).__name__ == "ParamValidationError":  # not a shard id or sequence number at all
            raise ValueError(f"not a stream range: {shard_id} {start}-{end}") from exc
        response = getattr(exc, "response", None) or {}
        code = response.get("Error", {}).get("Code", "")
        if code in _EXPIRED_CODES or response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 404:
            raise StreamExpired(f"{shard_id} {start}-{end}: {code}") from exc
        raise
