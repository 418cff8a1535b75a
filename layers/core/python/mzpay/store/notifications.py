"""Notifications in the payments table: an account's SMS channel (SMSCHANNEL#<account_id>/SMS,
set by operators), the message records (NOTIFY#<cause>|<channel>:<to>/MESSAGE, gsi1
OUTBOX#<subject_id>/<cause>: one per message, what was sent and its status), the provider's
message id of each sent one (PROVIDER#<message id>/MESSAGE: which record SES's events are about),
the region's suppression list (SUPPRESSED#<channel>:<address>/SUPPRESSION), and the
NotificationQueue the outbox feeds; and each recipient's daily count
(RECIPIENT#<channel>:<to>/DAY#<Maputo date>: the records sent to them that day). A record is
listed by account and mode (the list indexes' kind MSG: the console's Messages page)."""

from __future__ import annotations

import json
from typing import Any

from mzpay.domain.messages.records import MessageRecord
from mzpay.store.aws import SqsQueue, client, env, in_index, index_entry, is_conditional_failure
from mzpay.store.base import InPaymentsTable, keyed
from mzpay.store.list_keys import list_attributes

_channel_key = keyed("SMSCHANNEL", "SMS")
_message_key = keyed("NOTIFY", "MESSAGE")
_provider_key = keyed("PROVIDER", "MESSAGE")
_suppressed_key = keyed("SUPPRESSED", "SUPPRESSION")

# A claim of a record lets one sender send it; after this many seconds without a result (its
# sender died between the claim and the provider's answer) another may take it over.
CLAIM_SECONDS = 120
MAX_VISIBILITY = 12 * 3600 - 60  # SQS keeps a received message hidden for at most 12 hours


class SmsChannels(InPaymentsTable):
    def get(self, account_id: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key=_channel_key(account_id), ConsistentRead=True).get("Item")
        return {"sender_id": item["sender_id"], "updated_at": item["updated_at"]} if item else None

    def put(self, account_id: str, sender_id: str, now: str) -> None:
        self.table.put_item(Item={**_channel_key(account_id), "sender_id": sender_id, "updated_at": now})

    def delete(self, account_id: str) -> None:
        self.table.delete_item(Key=_channel_key(account_id))


def record_id(cause: str, channel: str, to: str) -> str:
    """One message per cause and recipient."""
    return f"{cause}|{channel}:{to}"


class MessageRecords(InPaymentsTable):
    """The record of each message: written `queued` (claimed) before it is sent, then `sent` with
    the provider's message id, or `failed`."""

    def claim(self, record: dict[str, Any], now: int) -> bool:
        """Claim the sending of `record` (its cause, channel, to, subject_id and what it says):
        True when this caller is to send it (a new record, a dead sender's claim, or one `deferred`
        by the quiet hours); False when it was sent (or failed) already, or another sender holds a
        live claim (`Busy`: raise to be retried)."""
        key = _message_key(record_id(record["cause"], record["channel"], record["to"]))
        item = {
            **key,
            **index_entry(f"OUTBOX#{record['subject_id']}", record["cause"]),
            **record,
            "status": "queued",
            "claimed_until": now + CLAIM_SECONDS,
        }
        item |= list_attributes(MessageRecord.model_validate(item))  # the console's list of messages
        try:
            self.table.put_item(
                Item=item,
                ConditionExpression=(
                    "attribute_not_exists(pk) OR (#s = :queued AND claimed_until < :now) OR #s = :deferred"
                ),
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":queued": "queued", ":now": now, ":deferred": "deferred"},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return False
        return True

    def status(self, cause: str, channel: str, to: str) -> str | None:
        key = _message_key(record_id(cause, channel, to))
        item = self.table.get_item(Key=key, ConsistentRead=True).get("Item")
        return str(item["status"]) if item else None

    def finish(self, cause: str, channel: str, to: str, status: str, now: str, **fields: str) -> None:
        """The record's outcome: sent (with provider_message_id), failed or suppressed (with
        failure). A provider message id is written beside it first (`by_provider`), so that the
        provider's events about it find the record."""
        if fields.get("provider_message_id"):
            self.table.put_item(
                Item={**_provider_key(fields["provider_message_id"]), "message": record_id(cause, channel, to)}
            )
        names = {"#s": "status", **{f"#{name}": name for name in fields}}
        values = {":s": status, ":at": now, **{f":{name}": value for name, value in fields.items()}}
        sets = ", ".join(["#s = :s", "updated_at = :at", *(f"#{name} = :{name}" for name in fields)])
        key = _message_key(record_id(cause, channel, to))
        after = self.table.update_item(
            Key=key,
            UpdateExpression=f"SET {sets} REMOVE claimed_until",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
        )["Attributes"]
        self._relist(key, after, status)

    def _relist(self, key: dict[str, str], after: dict[str, Any], status: str) -> None:
        """A record's place in the list by status follows its status, unless it moved on since."""
        if "lpk" not in after:
            return
        listed = list_attributes(MessageRecord.model_validate(after))
        try:
            self.table.update_item(
                Key=key,
                UpdateExpression="SET spk = :spk",
                ConditionExpression="#s = :s",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":spk": listed["spk"], ":s": status},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise

    def by_provider(self, provider_message_id: str) -> dict[str, Any] | None:
        """The record of the message the provider calls `provider_message_id`; None when unknown
        (another stack's message on the same configuration set, or one not finished yet)."""
        lookup = self.table.get_item(Key=_provider_key(provider_message_id), ConsistentRead=True).get("Item")
        if not lookup:
            return None
        item = self.table.get_item(Key=_message_key(str(lookup["message"])), ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def advance(self, record: dict[str, Any], status: str, before: tuple[str, ...], now: str, **fields: str) -> bool:
        """Move `record` to `status` if it is still in one of the statuses `before` (a status
        never goes back; an event applied twice applies once): True when this call moved it."""
        names = {"#s": "status", **{f"#{name}": name for name in fields}}
        values: dict[str, Any] = {":s": status, ":at": now, **{f":{name}": value for name, value in fields.items()}}
        values.update({f":b{i}": value for i, value in enumerate(before)})
        sets = ", ".join(["#s = :s", "updated_at = :at", *(f"#{name} = :{name}" for name in fields)])
        key = _message_key(record_id(record["cause"], record["channel"], record["to"]))
        try:
            after = self.table.update_item(
                Key=key,
                UpdateExpression=f"SET {sets}",
                ConditionExpression=f"#s IN ({', '.join(f':b{i}' for i in range(len(before)))})",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
            )["Attributes"]
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return False
        self._relist(key, after, status)
        return True

    def release(self, cause: str, channel: str, to: str) -> None:
        """Give up a claim after a fault, so that the retry may send at once."""
        self.table.update_item(
            Key=_message_key(record_id(cause, channel, to)),
            UpdateExpression="SET claimed_until = :zero",
            ConditionExpression="#s = :queued",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":zero": 0, ":queued": "queued"},
        )

    def about(self, subject_id: str) -> list[dict[str, Any]]:
        """The messages about `subject_id`, oldest cause first."""
        response = self.table.query(**in_index(f"OUTBOX#{subject_id}"))
        return [dict(item) for item in response.get("Items", [])]


class RecipientDays(InPaymentsTable):
    """How many messages each recipient got on a Maputo day: one item per recipient and day
    holding the ids of the records sent (a set, so a message retried after a fault counts once)."""

    def take(self, channel: str, to: str, day: str, message: str, cap: int) -> bool:
        """Count `message` (a record id) on `to`'s `day`: True when it fits under `cap` (or was
        counted already), False when `cap` messages were counted that day. One conditional update,
        so senders racing for one recipient never count past the cap."""
        try:
            self.table.update_item(
                Key={"pk": f"RECIPIENT#{channel}:{to}", "sk": f"DAY#{day}"},
                UpdateExpression="ADD sent :one",
                ConditionExpression="attribute_not_exists(sent) OR size(sent) < :cap OR contains(sent, :id)",
                ExpressionAttributeValues={":one": {message}, ":cap": cap, ":id": message},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return False
        return True


def address(channel: str, to: str) -> str:
    """How the suppression list spells an address: an e-mail address lowercased, a phone number
    in E.164 without spaces."""
    return to.strip().lower() if channel == "email" else "".join(to.split())


class Suppressions(InPaymentsTable):
    """The region's suppression list: addresses no message is sent to (a permanent bounce or a
    complaint put them there), each with its reason, the event that put it there, and when."""

    def get(self, channel: str, to: str) -> dict[str, Any] | None:
        key = _suppressed_key(f"{channel}:{address(channel, to)}")
        item = self.table.get_item(Key=key, ConsistentRead=True).get("Item")
        return {k: item[k] for k in ("channel", "address", "reason", "source", "at")} if item else None

    def add(self, channel: str, to: str, reason: str, source: str, at: str) -> bool:
        """Put the address on the list (the first reason stays); True when it was not on it."""
        spelled = address(channel, to)
        item = {**_suppressed_key(f"{channel}:{spelled}"), "channel": channel, "address": spelled}
        try:
            self.table.put_item(
                Item={**item, "reason": reason, "source": source, "at": at},
                ConditionExpression="attribute_not_exists(pk)",
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return False
        return True

    def remove(self, channel: str, to: str) -> None:
        self.table.delete_item(Key=_suppressed_key(f"{channel}:{address(channel, to)}"))


class NotificationQueue(SqsQueue):
    """NotificationQueue: one message per notification to send (a duplicate is harmless)."""

    @classmethod
    def from_env(cls) -> NotificationQueue:
        return cls(env("NOTIFICATION_QUEUE_URL"))

    def send(self, message: dict[str, Any]) -> None:
        self.post(json.dumps(message, default=str))

    def come_back_in(self, receipt_handle: str, seconds: int) -> None:
        """Make a received message visible again in `seconds` (at most SQS's 12 hours)."""
        client("sqs").change_message_visibility(
            QueueUrl=self.url, ReceiptHandle=receipt_handle, VisibilityTimeout=max(0, min(seconds, MAX_VISIBILITY))
        )


class NotificationDeadLetters(SqsQueue):
    """NotificationDeadLetterQueue: messages the sender gave up on (5 receives), kept for a replay."""

    @classmethod
    def from_env(cls) -> NotificationDeadLetters:
        return cls(env("NOTIFICATION_DEAD_LETTER_QUEUE_URL"))

    def take(self, most: int, hidden_seconds: int = 60) -> list[tuple[str, str]]:
        """Up to `most` (at most 10) messages, hidden for `hidden_seconds` (0: a peek, they stay
        visible): (body, receipt handle) each."""
        answer = client("sqs").receive_message(
            QueueUrl=self.url, MaxNumberOfMessages=most, VisibilityTimeout=hidden_seconds
        )
        return [(str(m["Body"]), str(m["ReceiptHandle"])) for m in answer.get("Messages", [])]

    def drop(self, receipt_handle: str) -> None:
        client("sqs").delete_message(QueueUrl=self.url, ReceiptHandle=receipt_handle)
