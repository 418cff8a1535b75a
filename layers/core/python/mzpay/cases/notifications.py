"""The notification sender (NotificationSenderFunction): one NotificationQueue message is one
message to one person (docs/notifications.md), rendered here in the recipient's language and
sent through the port (SES for e-mail, SNS for SMS). Each is sent at most once per cause and
recipient: its record is claimed with a conditional put before the provider is called, so a
queue message delivered twice, or two senders racing, send it once."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from mzpay import deps, messages
from mzpay.connectors.notifications import Notification
from mzpay.deps import settings
from mzpay.domain.common.clock import iso
from mzpay.domain.messages import format as fmt
from mzpay.observability import count
from mzpay.ports.messaging import Outgoing, Throttled, Undeliverable

COLLECTION_REQUEST = "collection_request"  # a queue message's kind: a new request to its payer


class Busy(Exception):
    """Another sender holds a live claim on the message: the queue message comes back later."""


def deliver(message: dict[str, Any]) -> str:
    """Send one queued message (once); its cause."""
    if message.get("kind") == COLLECTION_REQUEST:
        cause, subject_id, outgoing = _collection_request(message)
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


def send_once(cause: str, subject_id: str, outgoing: Outgoing, *, account_id: str, mode: str) -> str:
    """Claim the record of (cause, recipient), send, record the outcome: 'sent', 'failed' or, when
    it was done already, its recorded status. The record keeps whose message it is (`account_id`,
    `mode`). A test-mode message is recorded 'simulated' and
    never sent, unless the stack delivers test messages (TestModeMessages: the local stack)."""
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
        "text": outgoing.text,
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
        if reason := _suppression(outgoing):
            return _withheld(cause, outgoing, "suppressed", reason)
        provider_id = deps.message_sender().send(outgoing)
    except Undeliverable as refused:
        records.finish(cause, outgoing.channel, outgoing.to, "failed", iso(datetime.now(UTC)), failure=str(refused))
        return _counted("failed", outgoing.channel)
    except Exception as fault:  # the queue message comes back (later, for a throttle: the sender's record handler)
        records.release(cause, outgoing.channel, outgoing.to)
        if isinstance(fault, Throttled):
            count("Messages", outcome="throttled", channel=outgoing.channel)
        raise
    now = iso(datetime.now(UTC))
    records.finish(cause, outgoing.channel, outgoing.to, "sent", now, provider_message_id=provider_id, sent_at=now)
    return _counted("sent", outgoing.channel)


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
        outgoing = Outgoing("email", contact["email"], "", email.text, email.subject, email.html)
    else:
        sms = messages.collection_request_sms(request, language)
        outgoing = Outgoing("sms", contact["phone_number"], "", sms.text)
    return cause, request["id"], outgoing
