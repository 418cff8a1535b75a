"""The outbox's share of notifications (docs/notifications.md): a new event that asks for a
message to a person puts one message on NotificationQueue, where the notification sender renders
and sends it (mzpay.cases.notifications). A duplicate queue message is harmless.

- bill_payment.resend_requested: the resend it records (already written);
- collection_request.created: the request to its payer by its delivery_method (email or sms;
  erp, or no address for the method, sends nothing: the callback as today), in the payer's
  language, else the business's;
- a decision's or a transaction's notice (mzpay.steps.notices)."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.bills.payments import RESEND_EVENT
from mzpay.domain.collection.requests import EVENT_CREATED
from mzpay.domain.messages.notices import NOTICES
from mzpay.steps.notices import business_language, dispatch_notice

CONTACT_OF = {"email": "email", "sms": "phone_number"}


def dispatch_notification(image: dict[str, Any]) -> bool:
    """Queue the notification a new event asks for (a duplicate message is harmless)."""
    kind = image.get("type")
    if kind in NOTICES:
        return dispatch_notice(image)
    if kind == EVENT_CREATED:
        return _collection_request((image.get("data") or {}).get("object"))
    if kind != RESEND_EVENT:
        return False
    message = (image.get("data") or {}).get("object")
    if not isinstance(message, dict) or not message.get("notification_id"):
        from mzpay.webhooks.outbox import PoisonRecord

        raise PoisonRecord("malformed_event", "a resend event without its notification")
    deps.notification_queue().send({name: str(value) for name, value in message.items()})
    return True


def _collection_request(request: Any) -> bool:
    if not isinstance(request, dict):
        return False
    payer = request.get("payer") or {}
    contact_field = CONTACT_OF.get(payer.get("delivery_method") or "")
    if contact_field is None or not (payer.get("contact") or {}).get(contact_field):
        return False
    language = business_language(str(request.get("account_id")))
    deps.notification_queue().send({"kind": "collection_request", "request": request, "business_language": language})
    return True
