"""What became of a sent e-mail (MessageEventsFunction): SES publishes each message's events
(Delivery, Bounce, Complaint, Reject, DeliveryDelay) to the configuration set's event destination,
an SNS topic whose SQS queue feeds this worker (docs/notifications.md, "Tracking"). Each event
finds its message record by SES's message id and moves its status forward only: sent ->
delivered -> bounced | complained (a late Delivery after a Bounce changes nothing; an event
delivered twice applies once). A permanent bounce or a complaint puts the address on the region's
suppression list."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.domain.common.clock import iso
from mzpay.observability import count, logger

# status -> the statuses it may follow (a status never goes back)
FOLLOWS: dict[str, tuple[str, ...]] = {
    "delivered": ("sent",),
    "bounced": ("sent", "delivered"),
    "complained": ("sent", "delivered"),
    "suppressed": ("sent",),  # SES dropped it: the address is on the account-level suppression list
    "failed": ("sent",),  # SES rejected it after accepting it (Reject: a virus, say)
}


def received(body: str) -> str:
    """Apply the SES event an SQS message of MessageEventsQueue carries (`apply`): wrapped in
    SNS's notification envelope (its `Message`), or raw (a subscription's RawMessageDelivery)."""
    message = json.loads(body)
    if message.get("Type") == "Notification" and isinstance(message.get("Message"), str):
        message = json.loads(message["Message"])
    return apply(message)


def apply(event: dict[str, Any]) -> str:
    """Apply one SES event to its message's record; what it did: the new status, `unchanged` (a
    duplicate, a late or a transient event) or `unknown` (no record has its message id)."""
    kind = str(event.get("eventType") or event.get("notificationType") or "")
    provider_id = str((event.get("mail") or {}).get("messageId") or "")
    record = deps.message_records().by_provider(provider_id) if provider_id else None
    if record is None:
        logger.info("message event for no record", event_type=kind, provider_message_id=provider_id)
        return "unknown"
    status, fields, suppress = _outcome(kind, event)
    if status is None:
        return "unchanged"
    now = iso(datetime.now(UTC))
    if suppress:
        deps.suppressions().add(record["channel"], record["to"], suppress, f"ses:{kind}:{provider_id}", now)
    if not deps.message_records().advance(record, status, FOLLOWS[status], now, **fields):
        return "unchanged"
    count("Messages", outcome=status, channel=str(record["channel"]))
    return status


def _outcome(kind: str, event: dict[str, Any]) -> tuple[str | None, dict[str, str], str]:
    """(new status or None, the record's fields it sets, the suppression reason or "")."""
    if kind == "Delivery":
        delivery = event.get("delivery") or {}
        return "delivered", {"delivered_at": str(delivery.get("timestamp") or "")}, ""
    if kind == "Bounce":
        bounce = event.get("bounce") or {}
        sub_type = str(bounce.get("bounceSubType") or "")
        if sub_type == "OnAccountSuppressionList":
            return "suppressed", {"failure": "ses_account_suppression_list"}, ""
        if bounce.get("bounceType") != "Permanent":  # Transient or Undetermined: SES retried and gave up, for now
            return None, {}, ""
        return "bounced", {"failure": f"bounce:{sub_type or 'General'}"}, "bounce"
    if kind == "Complaint":
        feedback = str((event.get("complaint") or {}).get("complaintFeedbackType") or "abuse")
        return "complained", {"failure": f"complaint:{feedback}"}, "complaint"
    if kind == "Reject":
        return "failed", {"failure": f"reject:{(event.get('reject') or {}).get('reason') or ''}"}, ""
    return None, {}, ""  # DeliveryDelay and anything else: no status of ours (SES keeps trying)
