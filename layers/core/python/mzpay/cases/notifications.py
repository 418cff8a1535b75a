"""The notification sender (NotificationSenderFunction): one NotificationQueue message is one
message to one person (docs/notifications.md), rendered here in the recipient's language and
sent through the port (SES for e-mail, SNS for SMS). Each is sent at most once per cause and
recipient: its record is claimed with a conditional put before the provider is called, so a
queue message delivered twice, or two senders racing, send it once."""

from __future__ import annotations

import functools
import time
from datetime import UTC, datetime
from typing import Any

from mzpay import deps, messages
from mzpay.connectors.notifications import Notification
from mzpay.deps import settings
from mzpay.domain.collection.notices import awaits_payment
from mzpay.domain.common.clock import iso
from mzpay.domain.messages import format as fmt
from mzpay.domain.messages import notices
from mzpay.domain.payments.fiscal import short_number
from mzpay.messages import DUE  # a reminder or overdue notice (`notice`) of the daily sweep
from mzpay.observability import count
from mzpay.ports.messaging import Attachment, Outgoing, Throttled, Undeliverable
from mzpay.steps import courtesy

COLLECTION_REQUEST = "collection_request"  # a queue message's kind: a new request to its payer
RECEIPT = "receipt"  # a paid collection request's (`request`) or checkout's (`payment`) receipt


INVOICE_FILE = {"pt": "fatura", "en": "invoice"}  # the attached PDF's name: fatura-<invoice number>.pdf


class Busy(Exception):
    """Another sender holds a live claim on the message: the queue message comes back later."""


def deliver(message: dict[str, Any]) -> str:
    """Send one queued message (once); its cause."""
    if message.get("kind") in (DUE, RECEIPT):
        return _due_or_receipt(message)
    if message.get("kind") == messages.DASHBOARD_USER:
        return _dashboard_user(message)
    if message.get("kind") == COLLECTION_REQUEST:
        cause, subject_id, outgoing = _collection_request(message)
    elif message.get("kind") == notices.QUEUE_KIND:  # a decision's or a transaction's (mzpay.steps.notices)
        cause, subject_id, outgoing = _notice(message)
    else:
        notification = Notification(**{name: str(message[name]) for name in Notification.__dataclass_fields__})
        cause, subject_id = notification.notification_id, notification.subject_id
        outgoing = Outgoing(
            channel=notification.channel,
            to=notification.to,
            sender=notification.sender,
            text=notification.text,
            subject=fmt.plain(notification.text, 78),
        )
    about = message["request"] if message.get("kind") == COLLECTION_REQUEST else message
    send_once(cause, subject_id, outgoing, account_id=str(about["account_id"]), mode=str(about["mode"]))
    return cause


def send_once(
    cause: str, subject_id: str, outgoing: Outgoing, *, account_id: str, mode: str, recorded_text: str | None = None
) -> str:
    """Claim the record of (cause, recipient), send, record the outcome: 'sent', 'failed' or, when
    it was done already, its recorded status. The record keeps whose message it is (`account_id`,
    `mode`). A test-mode message is recorded 'simulated' and
    never sent, unless the stack delivers test messages (TestModeMessages: the local stack). A
    message past its recipient's daily cap is 'suppressed'; an SMS in the quiet hours raises
    courtesy.Deferred (mzpay.steps.courtesy). `recorded_text`: what the record keeps of the text
    when the text holds a secret (a one-time link), else the text."""
    records = deps.message_records()
    record = {
        "cause": cause,
        "subject_id": subject_id,
        "account_id": account_id,
        "mode": mode,
        "channel": outgoing.channel,
        "to": outgoing.to,
        "sender": outgoing.sender,
        "subject": outgoing.subject,
        "text": outgoing.text if recorded_text is None else recorded_text,
        "created_at": iso(datetime.now(UTC)),
    }
    if not records.claim(record, int(time.time())):
        status = records.status(cause, outgoing.channel, outgoing.to)
        if status == "queued":
            raise Busy(cause)
        return str(status)
    if mode != "live" and settings().test_mode_messages != "deliver":
        records.finish(cause, outgoing.channel, outgoing.to, "simulated", iso(datetime.now(UTC)))
        return "simulated"
    try:
        reason = _suppression(outgoing)
    except Exception as fault:
        _release(cause, outgoing, fault)
        raise
    if reason:  # before the daily cap: a message never sent does not count
        return _withheld(cause, outgoing, "suppressed", reason)
    if held := courtesy.hold(record):  # the recipient's daily cap (or, raised, the quiet hours)
        return held
    try:
        provider_id = deps.message_sender().send(outgoing)
    except Undeliverable as refused:
        records.finish(cause, outgoing.channel, outgoing.to, "failed", iso(datetime.now(UTC)), failure=str(refused))
        return _counted("failed", outgoing.channel)
    except Exception as fault:
        _release(cause, outgoing, fault)
        raise
    now = iso(datetime.now(UTC))
    records.finish(cause, outgoing.channel, outgoing.to, "sent", now, provider_message_id=provider_id, sent_at=now)
    return _counted("sent", outgoing.channel)


def _release(cause: str, outgoing: Outgoing, fault: Exception) -> None:
    """After a fault the claim is given up and the queue message comes back (later, for a
    throttle: the sender's record handler)."""
    deps.message_records().release(cause, outgoing.channel, outgoing.to)
    if isinstance(fault, Throttled):
        count("Messages", outcome="throttled", channel=outgoing.channel)


def _suppression(outgoing: Outgoing) -> str | None:
    """Why `outgoing` must not be sent, or None: its address is on the region's suppression list
    (a permanent bounce or a complaint: `suppression_list:<reason>`), or the phone number opted
    out of SMS at SNS (`sms_opted_out`)."""
    listed = deps.suppressions().get(outgoing.channel, outgoing.to)
    if listed:
        return f"suppression_list:{listed['reason']}"
    if deps.message_sender().opted_out(outgoing):
        return "sms_opted_out"
    return None


def _withheld(cause: str, outgoing: Outgoing, status: str, reason: str) -> str:
    """Record a claimed message `status` (e.g. suppressed) with its reason, never sent."""
    deps.message_records().finish(cause, outgoing.channel, outgoing.to, status, iso(datetime.now(UTC)), failure=reason)
    return _counted(status, outgoing.channel)


def _counted(outcome: str, channel: str) -> str:
    count("Messages", outcome=outcome, channel=channel)
    return outcome


def _collection_request(message: dict[str, Any]) -> tuple[str, str, Outgoing]:
    request = message["request"]
    payer = request.get("payer") or {}
    language = fmt.language(payer.get("language"), message.get("business_language"))
    contact = payer.get("contact") or {}
    cause = f"collection_request.created:{request['id']}"
    if payer.get("delivery_method") == "email":
        email = messages.collection_request_email(request, language)
        number = fmt.plain(request.get("invoice_metadata", {}).get("invoice_number")) or request["id"]
        invoice = Attachment(
            f"{INVOICE_FILE[language]}-{number}.pdf", "application/pdf", messages.invoice_pdf(request, language)
        )
        outgoing = Outgoing("email", contact["email"], "", email.text, email.subject, email.html, (invoice,))
    else:
        sms = messages.collection_request_sms(request, language)
        outgoing = Outgoing("sms", contact["phone_number"], "", sms.text)
    return cause, request["id"], outgoing


def _dashboard_user(message: dict[str, Any]) -> str:
    """A dashboard user's invitation or password reset (mzpay.dashboard.team): always delivered
    (no mode: the account's people, not its payers); the record keeps the text without the link."""
    language = fmt.language(message.get("language"))
    mail = messages.dashboard_user_email(message, language)
    outgoing = Outgoing("email", str(message["to"]), "", mail.text, mail.subject, mail.html)
    masked = mail.text.replace(str(message["link"]), "[link]")
    cause = str(message["cause"])
    account_id = str(message["account_id"])  # about the account (its team), as a decision's message is
    send_once(cause, account_id, outgoing, account_id=account_id, mode="live", recorded_text=masked)
    return cause


def _due_or_receipt(message: dict[str, Any]) -> str:
    """A reminder or overdue notice (sent only while the request, read again now, still awaits
    payment), or a receipt: to a collection request's payer by its delivery_method, or by SMS to
    the phone a checkout was paid from."""
    if "payment" in message:
        return _checkout_receipt(message)
    request = message["request"]
    payer = request.get("payer") or {}
    language = fmt.language(payer.get("language"), message.get("business_language"))
    if message["kind"] == DUE:
        notice = message["notice"]
        cause = f"collection_request.{notice}:{request['id']}"
        current = deps.collection_requests().get(request["id"])
        if current is None or not awaits_payment(current.status):
            return cause  # paid (or no longer open) since the sweep: nothing to remind
        request = current.view()  # as it is now (a due date or amount changed since the sweep)
        email = functools.partial(messages.due_email, request, language, notice)
        text = functools.partial(messages.due_sms, request, language, notice)
    else:
        reconciliation = request.get("payment_reconciliation") or {}
        cause = f"receipt:{reconciliation.get('gateway_transaction_id') or request['id']}"
        email = functools.partial(messages.receipt_email, _paid_request(request), language)
        text = functools.partial(messages.receipt_sms, _paid_request(request), language)
    contact = payer.get("contact") or {}
    if payer.get("delivery_method") == "email":
        mail = email()
        outgoing = Outgoing("email", contact["email"], "", mail.text, mail.subject, mail.html)
    else:
        outgoing = Outgoing("sms", contact["phone_number"], "", text().text)
    send_once(cause, request["id"], outgoing, account_id=str(request["account_id"]), mode=str(request["mode"]))
    return cause


def _paid_request(request: dict[str, Any]) -> dict[str, Any]:
    """What a paid collection request's receipt says (messages.receipt_context)."""
    payer = request.get("payer") or {}
    reconciliation = request.get("payment_reconciliation") or {}
    payment_id = reconciliation.get("gateway_transaction_id")
    return {
        "business": (request.get("biller") or {}).get("business_name"),
        "payer_name": " ".join(filter(None, (payer.get("first_name"), payer.get("last_name"))))
        or payer.get("legal_name"),
        "amount": request["amount"],
        "number": (request.get("invoice_metadata") or {}).get("invoice_number"),
        "description": request.get("description"),
        "paid_at": reconciliation.get("date_payment") or request.get("updated_at"),
        "receipt": short_number(payment_id) if payment_id else request["id"],
    }


def _checkout_receipt(message: dict[str, Any]) -> str:
    """A hosted checkout's receipt: by e-mail to its customer's e-mail when the payment has one,
    else by SMS to the phone it was paid from; in the business's language."""
    payment = message["payment"]
    account = deps.directory().get_account(str(message["account_id"]))
    customer = payment.get("customer") or {}
    paid = {
        "business": account.name if account is not None else None,
        "payer_name": customer.get("name"),
        "amount": {"value": payment["captured_amount"], "currency": payment["money"]["currency"]},
        "paid_at": payment.get("last_updated_at"),
        "receipt": short_number(payment["provider_payment_id"]),
    }
    language = fmt.language(None, message.get("business_language"))
    if customer.get("email"):
        mail = messages.receipt_email(paid, language)
        outgoing = Outgoing("email", str(customer["email"]), "", mail.text, mail.subject, mail.html)
    else:
        phone = payment["source"]["mobile_wallet"]["phone_number"]
        outgoing = Outgoing("sms", phone, "", messages.receipt_sms(paid, language).text)
    cause = f"receipt:{payment['provider_payment_id']}"
    send_once(
        cause,
        payment["provider_payment_id"],
        outgoing,
        account_id=str(message["account_id"]),
        mode=str(message["mode"]),
    )
    return cause


def _notice(message: dict[str, Any]) -> tuple[str, str, Outgoing]:
    """A decision's or a transaction's message, in the recipient's language, else the business's
    (from the sender it names: a bill payment's resend by SMS, the account's SMS channel)."""
    from mzpay.messages import notices as texts

    language = fmt.language(message.get("language"), message.get("business_language"))
    notice, data = str(message["notice"]), message["data"]
    sender = str(message.get("sender") or "")
    if message["channel"] == "email":
        email = texts.email(notice, data, language)
        outgoing = Outgoing("email", message["to"], sender, email.text, email.subject, email.html)
    else:
        outgoing = Outgoing("sms", message["to"], sender, texts.text_message(notice, data, language).text)
    return str(message["cause"]), str(message["subject_id"]), outgoing
