"""A notification as the outbox queues it (a bill payment's token or receipt, resent): already
written, to one address. It is sent through mzpay.ports.messaging like every other message."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Notification:
    """One message to one address; `notification_id` (its cause) makes a second send harmless."""

    notification_id: str
    channel: str  # email | sms
    to: str
    sender: str  # the email sender, or the SMS sender id
    text: str
    account_id: str
    mode: str
    subject_id: str  # what it is about (a bill payment's id)
