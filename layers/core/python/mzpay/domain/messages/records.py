"""A message's record as the console's Messages page lists it (docs/notifications.md): what was
sent to whom, for which account and mode, and what became of it. Listed by account and mode,
newest first, in the payments table's list indexes (mzpay.store.list_keys, kind `MSG`)."""

from __future__ import annotations

import hashlib

from mzpay.domain.common.entity import Entity

STATUSES = frozenset(
    {"queued", "deferred", "sent", "delivered", "bounced", "complained", "simulated", "failed", "suppressed"}
)
CHANNELS = frozenset({"email", "sms"})


class MessageRecord(Entity):
    """One message (one cause, one recipient). Not versioned: its claim and outcome are written
    by mzpay.store.notifications.MessageRecords."""

    version: int = 0
    cause: str
    subject_id: str
    account_id: str
    mode: str
    channel: str
    to: str
    sender: str = ""
    subject: str | None = None
    text: str = ""
    created_at: str
    updated_at: str | None = None
    provider_message_id: str | None = None
    failure: str | None = None
    not_before: str | None = None

    @property
    def record_id(self) -> str:
        return f"{self.cause}|{self.channel}:{self.to}"


def recipient_key(to: str) -> str:
    """What the list's recipient filter compares (its `lparent`): a digest of the address as
    written, so that any address (a `+`, an `@`) is a filter value of the lists' alphabet."""
    return hashlib.sha256(to.strip().lower().encode()).hexdigest()[:32]
