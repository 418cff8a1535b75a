"""Webhook deliveries (WebhookDeliveriesTable) and the queue that carries them (WebhookQueue).

Item: pk DLV#<delivery_id>, sk DELIVERY, with its attempts in a list. Indexes: gsi1
(ACC#<account> / <delivery_id>) lists an account's deliveries newest first, gsi2
(ACC#<account>#<status> / <delivery_id>) the same by status. Every state change is a
conditional write: a lost race is seen, never overwritten. A slow endpoint's mark
(docs/webhooks.md, "Fairness") is pk SLOW#<mode>#<account>#<origin hash>, sk ENDPOINT, in no index.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay.config import optional_env
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.webhooks.deliveries import Attempt, Delivery
from mzpay.domain.webhooks.rules import MAX_QUEUE_DELAY_SECONDS, DeliveryStatus, Lane
from mzpay.store.aws import client, env, index_entry, is_conditional_failure, landed
from mzpay.store.base import TableStore

SK = "DELIVERY"
SLOW_SK = "ENDPOINT"
# Attribute names that are DynamoDB reserved words, or that we prefer to alias.
_NAMES = {"#status": "status", "#round": "round", "#owner": "owner", "#ttl": "ttl"}
_STATUS_KEY = "gsi2pk"


def iso(epoch: float) -> str:
    """Delivery times: UTC ISO 8601 with milliseconds and a Z."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def delivery_key(delivery_id: str) -> dict[str, str]:
    return {"pk": f"DLV#{delivery_id}", "sk": SK}


def _status_index(account_id: str, status: DeliveryStatus) -> str:
    return f"ACC#{account_id}#{status.value}"


def plain(value: Any) -> Any:
    """DynamoDB's Decimals as ints where they are whole (counters, epochs), recursively."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class WebhookDeliveries(TableStore):
    @classmethod
    def from_env(cls) -> WebhookDeliveries:
        return cls(env("WEBHOOK_DELIVERIES_TABLE"))

    def _update(self, delivery_id: str, **kwargs: Any) -> Delivery | None:
        """A conditional update; the item after it, or None when the condition failed."""
        names = {k: v for k, v in _NAMES.items() if k in kwargs["UpdateExpression"] + kwargs["ConditionExpression"]}
        try:
            answer = self.table.update_item(
                Key=delivery_key(delivery_id),
                ReturnValues="ALL_NEW",
                **({"ExpressionAttributeNames": names} if names else {}),
                **kwargs,
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                return None
            raise
        return Delivery.model_validate(plain(answer["Attributes"]))

    def _if_held(self, delivery_id: str, lease: str, token: str, update: str, **values: Any) -> bool:
        """`update` (with `values` as :name) if the lease attribute `lease` still holds `token`;
        whether it did."""
        return (
            self._update(
                delivery_id,
                UpdateExpression=update,
                ConditionExpression=f"{lease} = :token",
                ExpressionAttributeValues={":token": token, **{f":{k}": v for k, v in values.items()}},
            )
            is not None
        )

    # ------------------------------------------------------------ dispatcher
    def create(self, delivery: Delivery) -> bool:
        """Store a new delivery; False when it already exists (the same event and URL)."""
        item = {
            **delivery_key(delivery.delivery_id),
            **index_entry(f"ACC#{delivery.account_id}", delivery.delivery_id),
            _STATUS_KEY: _status_index(delivery.account_id, delivery.status),
            "gsi2sk": delivery.delivery_id,
            **delivery.item(),  # attempts included even empty: list_append needs the list
        }
        return landed(lambda: self.put_new_item(item))

    def get(self, delivery_id: str) -> Delivery | None:
        item = self.table.get_item(Key=delivery_key(delivery_id), ConsistentRead=True).get("Item")
        return Delivery.model_validate(plain(item)) if item else None

    def take_enqueue_lease(self, delivery_id: str, seen: str | None, token: str, until: int) -> bool:
        """Take over enqueueing a delivery that is not enqueued yet, if its lease is still `seen`."""
        held = "attribute_not_exists(enqueue_lease)" if seen is None else "enqueue_lease = :seen"
        values: dict[str, Any] = {":token": token, ":until": until, ":zero": 0}
        if seen is not None:
            values[":seen"] = seen
        return (
            self._update(
                delivery_id,
                UpdateExpression="SET enqueue_lease = :token, enqueue_lease_until = :until",
                ConditionExpression=f"attribute_not_exists(enqueued_at) AND #round = :zero AND {held}",
                ExpressionAttributeValues=values,
            )
            is not None
        )

    def release_enqueue_lease(self, delivery_id: str, token: str) -> None:
        """Give the lease back after a failed enqueue, so that a retry need not wait for it."""
        self._if_held(delivery_id, "enqueue_lease", token, "REMOVE enqueue_lease, enqueue_lease_until")

    def mark_enqueued(self, delivery_id: str, token: str, now: str) -> bool:
        update = "SET enqueued_at = :now REMOVE enqueue_lease, enqueue_lease_until"
        return self._if_held(delivery_id, "enqueue_lease", token, update, now=now)

    # ------------------------------------------------------------ sender
    def begin_attempt(
        self, delivery_id: str, round_: int, owner: str, token: str, until: int, now: int
    ) -> Delivery | None:
        """Lease a pending delivery of round `round_` for one attempt by the message `owner`
        (the first message that leases a round owns it; copies of others are ignored). None when
        it is not pending in that round, another message owns it, or an attempt is under way."""
        return self._update(
            delivery_id,
            UpdateExpression="SET #owner = :owner, lease_token = :token, lease_until = :until",
            ConditionExpression=(
                "#status = :pending AND #round = :round"
                " AND (attribute_not_exists(#owner) OR #owner = :owner)"
                " AND (attribute_not_exists(lease_until) OR lease_until < :now)"
            ),
            ExpressionAttributeValues={
                ":owner": owner,
                ":token": token,
                ":until": until,
                ":now": now,
                ":pending": DeliveryStatus.PENDING.value,
                ":round": round_,
            },
        )

    def hand_over(self, delivery_id: str, token: str, owner: str) -> bool:
        """Give an attempt's lease back unused and the round to `owner` (the message that moves
        it to the slow lane), so that copies of the old message are ignored from now on."""
        return self._if_held(
            delivery_id, "lease_token", token, "SET #owner = :owner REMOVE lease_token, lease_until", owner=owner
        )

    # ------------------------------------------------------------ slow endpoints
    def slow_until(self, mode: str, endpoint: str) -> int | None:
        """Until when (epoch seconds) `endpoint` is marked slow in `mode`; None when it never was
        (a test receiver's slowness never moves live deliveries: modes never meet)."""
        item = self.table.get_item(Key={"pk": f"SLOW#{mode}#{endpoint}", "sk": SLOW_SK}).get("Item")
        return int(item["until"]) if item else None

    def mark_slow(self, mode: str, endpoint: str, until: int) -> None:
        """Mark `endpoint` slow in `mode` until `until` (the item expires a day after)."""
        self.table.put_item(
            Item={"pk": f"SLOW#{mode}#{endpoint}", "sk": SLOW_SK, "until": until, "ttl": until + 86_400}
        )

    def clear_slow(self, mode: str, endpoint: str) -> None:
        """The endpoint answers quickly again: its deliveries go back to the hot lane."""
        self.table.delete_item(Key={"pk": f"SLOW#{mode}#{endpoint}", "sk": SLOW_SK})

    def finish_attempt(
        self,
        delivery: Delivery,
        token: str,
        attempt: Attempt,
        status: DeliveryStatus,
        now: str,
        next_attempt_at: str | None,
        keep: int | None = None,
    ) -> Delivery | None:
        """Record one attempt and its consequence (still pending, delivered, stopped, failed),
        if this attempt still holds the lease. With `keep`, only the `keep` most recent attempts
        stay on the item (the lease makes this attempt the only writer of the list)."""
        record = attempt.model_dump(mode="json")
        attempts = [*(a.model_dump(mode="json") for a in delivery.attempts), record]
        if keep is not None and len(attempts) > keep:
            append, new_list = "attempts = :attempts", attempts[-keep:]
        else:
            append, new_list = "attempts = list_append(attempts, :attempt)", None
        sets = [
            append,
            "attempt_count = attempt_count + :one",
            "updated_at = :now",
            "#status = :status",
            f"{_STATUS_KEY} = :status_key",
        ]
        values: dict[str, Any] = {
            **({":attempts": new_list} if new_list is not None else {":attempt": [record]}),
            ":one": 1,
            ":now": now,
            ":status": status.value,
            ":status_key": _status_index(delivery.account_id, status),
            ":token": token,
            ":pending": DeliveryStatus.PENDING.value,
        }
        removes = ["lease_token", "lease_until"]
        if status is not DeliveryStatus.DELIVERED:  # why it did not get through, for operators
            sets.append("last_error = :error")
            values[":error"] = attempt.error or f"http_{attempt.status_code}"
        if next_attempt_at is not None:
            sets.append("next_attempt_at = :next")
            values[":next"] = next_attempt_at
        else:
            removes.append("next_attempt_at")
        if status is not DeliveryStatus.PENDING:
            sets.append(f"{status.value}_at = :now")
        return self._update(
            delivery.delivery_id,
            UpdateExpression=f"SET {', '.join(sets)} REMOVE {', '.join(removes)}",
            ConditionExpression="lease_token = :token AND #status = :pending",
            ExpressionAttributeValues=values,
        )

    def dead_letter(self, delivery_id: str, account_id: str, round_: int, now: str) -> Delivery | None:
        """pending -> failed for the round whose message reached the dead-letter queue."""
        failed = DeliveryStatus.FAILED
        return self._update(
            delivery_id,
            UpdateExpression=(
                f"SET #status = :failed, {_STATUS_KEY} = :status_key, failed_at = :now, updated_at = :now"
                " REMOVE lease_token, lease_until, next_attempt_at"
            ),
            ConditionExpression="#status = :pending AND #round = :round",
            ExpressionAttributeValues={
                ":failed": failed.value,
                ":status_key": _status_index(account_id, failed),
                ":now": now,
                ":pending": DeliveryStatus.PENDING.value,
                ":round": round_,
            },
        )

    # ------------------------------------------------------------ operators
    def replay(self, delivery: Delivery, now: str, ttl: int) -> Delivery:
        """failed -> pending in a new round; 409 invalid_state when another replay won or the
        delivery is no longer failed."""
        pending = DeliveryStatus.PENDING
        updated = self._update(
            delivery.delivery_id,
            UpdateExpression=(
                f"SET #status = :pending, {_STATUS_KEY} = :status_key, #round = #round + :one,"
                " replayed_at = :now, updated_at = :now, next_attempt_at = :now, #ttl = :ttl"
                " REMOVE #owner, lease_token, lease_until, failed_at"
            ),
            ConditionExpression="#status = :failed AND #round = :round",
            ExpressionAttributeValues={
                ":pending": pending.value,
                ":status_key": _status_index(delivery.account_id, pending),
                ":one": 1,
                ":now": now,
                ":ttl": ttl,
                ":failed": DeliveryStatus.FAILED.value,
                ":round": delivery.round,
            },
        )
        if updated is None:
            raise ServiceError(409, "invalid_state", "The delivery is not failed (anymore): it cannot be replayed.")
        return updated

    def undo_replay(self, delivery: Delivery, failed_at: str, now: str) -> None:
        """Put back a replay whose message could not be queued (its round not yet started)."""
        failed = DeliveryStatus.FAILED
        self._update(
            delivery.delivery_id,
            UpdateExpression=(
                f"SET #status = :failed, {_STATUS_KEY} = :status_key, failed_at = :failed_at, updated_at = :now"
                " REMOVE next_attempt_at"
            ),
            ConditionExpression="#status = :pending AND #round = :round AND attribute_not_exists(#owner)",
            ExpressionAttributeValues={
                ":failed": failed.value,
                ":status_key": _status_index(delivery.account_id, failed),
                ":failed_at": failed_at,
                ":now": now,
                ":pending": DeliveryStatus.PENDING.value,
                ":round": delivery.round,
            },
        )

    def page(
        self, account_id: str, status: DeliveryStatus | None, limit: int, start: dict[str, str] | None
    ) -> tuple[list[Delivery], dict[str, str] | None]:
        """Up to `limit` deliveries of an account, newest first, and where the next page starts."""
        index, key = ("gsi2", _status_index(account_id, status)) if status else ("gsi1", f"ACC#{account_id}")
        hash_key = "gsi2pk" if status else "gsi1pk"
        sort_key = "gsi2sk" if status else "gsi1sk"
        answer = self.table.query(
            IndexName=index,
            KeyConditionExpression=f"{hash_key} = :key",
            ExpressionAttributeValues={":key": key},
            ScanIndexForward=False,
            Limit=limit + 1,  # one more tells whether there is a next page
            **({"ExclusiveStartKey": start} if start else {}),
        )
        items = answer.get("Items", [])
        found = [Delivery.model_validate(plain(item)) for item in items[:limit]]
        if len(items) <= limit:
            return found, None
        last = items[limit - 1]
        return found, {name: str(last[name]) for name in ("pk", "sk", hash_key, sort_key)}


class DeliveryQueue:
    """WebhookQueue (the hot lane): one message {delivery_id, round} per delivery round; and,
    where the function has them, WebhookSlowQueue (the slow lane: the message moved there, with
    its owner and the attempts made before) and WebhookDeadLetterQueue."""

    def __init__(self, url: str, slow_url: str | None = None, dead_letter_url: str | None = None) -> None:
        self.url = url
        self.slow_url = slow_url
        self.dead_letter_url = dead_letter_url

    @classmethod
    def from_env(cls) -> DeliveryQueue:
        return cls(
            env("WEBHOOK_QUEUE_URL"),
            optional_env("WEBHOOK_SLOW_QUEUE_URL"),
            optional_env("WEBHOOK_DEAD_LETTER_QUEUE_URL"),
        )

    @property
    def has_slow_lane(self) -> bool:
        return self.slow_url is not None and self.dead_letter_url is not None

    def lane_of(self, queue_arn: str | None) -> Lane:
        """The lane of a received message, from its event source (the queue's ARN ends with its
        name, as its URL does)."""
        if self.slow_url and queue_arn and queue_arn.rsplit(":", 1)[-1] == self.slow_url.rsplit("/", 1)[-1]:
            return Lane.SLOW
        return Lane.HOT

    def send(self, delivery_id: str, round_: int) -> None:
        body = json.dumps({"delivery_id": delivery_id, "round": round_}, separators=(",", ":"))
        client("sqs").send_message(QueueUrl=self.url, MessageBody=body)

    def to_slow_lane(self, delivery_id: str, round_: int, owner: str, attempts_before: int, delay: int) -> None:
        """Move a delivery's round to the slow lane: its next attempt after `delay` seconds."""
        if self.slow_url is None:
            raise RuntimeError("WEBHOOK_SLOW_QUEUE_URL is not set for this function")
        body = {"delivery_id": delivery_id, "round": round_, "owner": owner, "attempts_before": attempts_before}
        client("sqs").send_message(
            QueueUrl=self.slow_url,
            MessageBody=json.dumps(body, separators=(",", ":")),
            DelaySeconds=max(0, min(int(delay), MAX_QUEUE_DELAY_SECONDS)),
        )

    def to_dead_letters(self, delivery_id: str, round_: int) -> None:
        """A round out of attempts in the slow lane goes where SQS's redrive would take it."""
        if self.dead_letter_url is None:
            raise RuntimeError("WEBHOOK_DEAD_LETTER_QUEUE_URL is not set for this function")
        body = json.dumps({"delivery_id": delivery_id, "round": round_}, separators=(",", ":"))
        client("sqs").send_message(QueueUrl=self.dead_letter_url, MessageBody=body)

    def retry_after(self, receipt_handle: str, seconds: int, lane: Lane = Lane.HOT) -> None:
        """Make the received message visible again in `seconds` (its next attempt)."""
        url = self.slow_url if lane is Lane.SLOW and self.slow_url else self.url
        client("sqs").change_message_visibility(
            QueueUrl=url, ReceiptHandle=receipt_handle, VisibilityTimeout=int(seconds)
        )
