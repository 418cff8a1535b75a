"""Notification providers: what sends a payer an email or an SMS (a bill payment's token or
receipt, resent). One interface, `NotificationProvider`; the local outbox keeps each message
where tests and operators read it (mzpay.store.notifications.Outbox) instead of sending it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Notification:
    """One message to one address; `notification_id` makes a second send of it harmless."""

    notification_id: str
    channel: str  # email | sms
    to: str
    sender: str  # the email sender, or the SMS sender id
    text: str
    account_id: str
    mode: str
    subject_id: str  # what it is about (a bill payment's id)


class NotificationProvider(Protocol):
    def send(self, notification: Notification) -> None: ...
