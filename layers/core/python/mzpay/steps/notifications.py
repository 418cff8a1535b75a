"""The outbox's share of notifications (docs/notifications.md): a new event that asks for a
message to a person puts one message on NotificationQueue, where the notification sender renders
and sends it (mzpay.cases.notifications). A duplicate queue message is harmless.

- bill_payment.resend_requested: the resend it records, rendered by the sender as the payment's
  bill_payment.succeeded message (a resend recorded before that carries its text);
- collection_request.created: the request to its payer by its delivery_method (email or sms;
  erp, or no address for the method, sends nothing: the callback as today);
- collection_request.paid: the receipt to its payer, the same way;
- payment.succeeded of a hosted checkout (not a collection request's: its request's receipt says
  it): the receipt to its customer's e-mail, else by SMS to the mobile wallet it was paid from;
  each in the payer's language, else the business's;
- a decision's or a transaction's notice (mzpay.steps.notices).
Reminders and overdue notices are queued by the daily sweep (mzpay.cases.due_dates)."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.bills.payments import RESEND_EVENT
from mzpay.domain.collection.notices import reaches_payer
from mzpay.domain.collection.requests import EVENT_CREATED, EVENT_PAID
from mzpay.domain.messages.notices import NOTICES
from mzpay.domain.messages.notices import QUEUE_KIND as NOTICE_KIND
from mzpay.steps.notices import business_language, dispatch_notice

PAYMENT_SUCCEEDED = "payment.succeeded"


def dispatch_notification(image: dict[str, Any]) -> bool:
    """Queue the notification a new event asks for (a duplicate message is harmless)."""
    kind = image.get("type")
    if kind in NOTICES:
        return dispatch_notice(image)
    if kind == EVENT_CREATED:
        return _collection_request((image.get("data") or {}).get("object"))
    if kind == EVENT_PAID:
        return _collection_request((image.get("data") or {}).get("object"), "receipt")
    if kind == PAYMENT_SUCCEEDED:
        return _checkout_receipt(image)
    if kind != RESEND_EVENT:
        return False
    message = (image.get("data") or {}).get("object")
    if not isinstance(message, dict) or not message.get("notification_id"):
        from mzpay.webhooks.outbox import PoisonRecord

        raise PoisonRecord("malformed_event", "a resend event without its notification")
    if message.get("notice"):  # rendered by the sender like the payment's first message
        account_id = str(image["account_id"])
        resend = {
            **{name: message[name] for name in ("channel", "to", "sender", "subject_id", "notice", "data")},
            "kind": NOTICE_KIND,
            "cause": message["notification_id"],
            "account_id": account_id,
            "mode": image["mode"],
            "language": None,
            "business_language": business_language(account_id),
        }
        deps.notification_queue().send(resend)
        return True
    deps.notification_queue().send({name: str(value) for name, value in message.items()})  # written before
    return True


def _collection_request(request: Any, kind: str = "collection_request") -> bool:
    if not isinstance(request, dict) or reaches_payer(request) is None:
        return False
    language = business_language(str(request.get("account_id")))
    deps.notification_queue().send({"kind": kind, "request": request, "business_language": language})
    return True


def _checkout_receipt(image: dict[str, Any]) -> bool:
    payment = (image.get("data") or {}).get("object")
    if not isinstance(payment, dict) or not payment.get("checkout_url") or payment.get("collection_request_id"):
        return False
    email = (payment.get("customer") or {}).get("email")
    if not email and not ((payment.get("source") or {}).get("mobile_wallet") or {}).get("phone_number"):
        return False
    message = {
        "kind": "receipt",
        "payment": payment,
        "account_id": image["account_id"],
        "mode": image["mode"],
        "business_language": business_language(str(image["account_id"])),
    }
    deps.notification_queue().send(message)
    return True
