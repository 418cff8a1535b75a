"""The notification sender (NotificationSenderFunction): one NotificationQueue message is one
notification handed to the provider (the local outbox in this stack); a second delivery of the
same message is harmless."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.connectors.notifications import Notification


def deliver(message: dict[str, Any]) -> str:
    """Send one queued notification; its id."""
    notification = Notification(**{name: str(message[name]) for name in Notification.__dataclass_fields__})
    deps.notification_provider().send(notification)
    return notification.notification_id
