"""Notifications in the payments table: an account's SMS channel (SMSCHANNEL#<account_id>/SMS,
set by operators), its fiscal details as its receipts show them (FISCAL#<account_id>/DETAILS, set
by operators), the local provider's outbox (NOTIFY#<notification_id>/MESSAGE, gsi1
OUTBOX#<subject_id>/<notification_id>), and the NotificationQueue the outbox feeds."""

from __future__ import annotations

import json
from typing import Any

from mzpay.connectors.notifications import Notification
from mzpay.domain.payments.fiscal import FiscalDetails
from mzpay.store.aws import SqsQueue, env, in_index, index_entry, is_conditional_failure
from mzpay.store.base import InPaymentsTable, keyed

_channel_key = keyed("SMSCHANNEL", "SMS")
_message_key = keyed("NOTIFY", "MESSAGE")
_fiscal_key = keyed("FISCAL", "DETAILS")


class SmsChannels(InPaymentsTable):
    def get(self, account_id: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key=_channel_key(account_id), ConsistentRead=True).get("Item")
        return {"sender_id": item["sender_id"], "updated_at": item["updated_at"]} if item else None

    def put(self, account_id: str, sender_id: str, now: str) -> None:
        self.table.put_item(Item={**_channel_key(account_id), "sender_id": sender_id, "updated_at": now})

    def delete(self, account_id: str) -> None:
        self.table.delete_item(Key=_channel_key(account_id))


class FiscalDetailsStore(InPaymentsTable):
    """An account's fiscal details (mzpay.domain.payments.fiscal), kept as their JSON."""

    def get(self, account_id: str) -> tuple[FiscalDetails, str] | None:
        """The details and when they were set; None when none were."""
        item = self.table.get_item(Key=_fiscal_key(account_id), ConsistentRead=True).get("Item")
        if not item:
            return None
        return FiscalDetails.model_validate_json(str(item["details"])), str(item["updated_at"])

    def put(self, account_id: str, details: FiscalDetails, now: str) -> None:
        self.table.put_item(Item={**_fiscal_key(account_id), "details": details.model_dump_json(), "updated_at": now})

    def delete(self, account_id: str) -> None:
        self.table.delete_item(Key=_fiscal_key(account_id))


class Outbox(InPaymentsTable):
    """The local provider's outbox: each message kept once."""

    def send(self, message: Notification) -> None:
        """The local provider's sending (a NotificationProvider): the message kept in the outbox."""
        listed = index_entry(f"OUTBOX#{message.subject_id}", message.notification_id)
        item = {**_message_key(message.notification_id), **listed, **message.__dict__}
        try:
            self.put_new_item(item)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise  # else: sent already (a message delivered twice)

    def about(self, subject_id: str) -> list[dict[str, Any]]:
        """The messages about `subject_id`, oldest first."""
        response = self.table.query(**in_index(f"OUTBOX#{subject_id}"))
        return [dict(item) for item in response.get("Items", [])]


class NotificationQueue(SqsQueue):
    """NotificationQueue: one message per notification to send (a duplicate is harmless)."""

    @classmethod
    def from_env(cls) -> NotificationQueue:
        return cls(env("NOTIFICATION_QUEUE_URL"))

    def send(self, message: dict[str, Any]) -> None:
        self.post(json.dumps(message))
