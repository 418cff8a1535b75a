"""The outbox's share of notifications: a new bill_payment.resend_requested event sends one
message to NotificationQueue, where the notification sender hands it to the provider."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.bills.payments import RESEND_EVENT


def dispatch_notification(image: dict[str, Any]) -> bool:
    """Queue the notification a new event asks for (a duplicate message is harmless)."""
    if image.get("type") != RESEND_EVENT:
        return False
    message = (image.get("data") or {}).get("object")
    if not isinstance(message, dict) or not message.get("notification_id"):
        from mzpay.webhooks.outbox import PoisonRecord

        raise PoisonRecord("malformed_event", "a resend event without its notification")
    deps.notification_queue().send({name: str(value) for name, value in message.items()})
    return True
