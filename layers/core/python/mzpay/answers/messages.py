"""The answers about messages to people (docs/notifications.md): a collection request's messages
to its payer, as the business reads them; and an account's messages as operators read them (the
console's Messages page)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import Answer, ListOf, Page, Timestamp, examples

# What became of a message (mzpay.domain.messages.records.STATUSES).
Status = Literal[
    "queued", "deferred", "sent", "delivered", "bounced", "complained", "simulated", "failed", "suppressed"
]

_MESSAGE: dict[str, Any] = {
    "object": "notification",
    "cause": "collection_request.created",
    "channel": "sms",
    "to": "+258841234567",
    "status": "sent",
    "provider_message_id": "4c3b4a5e-6f70-5d8e-9a1b-2c3d4e5f6a7b",
    "failure": None,
    "created_at": "2026-11-03T09:12:00Z",
    "updated_at": "2026-11-03T09:12:01Z",
}


class Notification(Answer):
    """One message to the request's payer and what became of it."""

    model_config = examples(_MESSAGE)

    object: Literal["notification"] = Field(description="Always notification.")
    cause: str = Field(description="Why it was sent: collection_request.created (the request sent to its payer).")
    channel: Literal["email", "sms"] = Field(description="email (Amazon SES) or sms (Amazon SNS).")
    to: str = Field(description="The payer's address it went to (the request's contact for its delivery_method).")
    status: Status = Field(
        description="queued: being sent; deferred: an SMS waiting for the end of the quiet hours (21:00-07:00 "
        "Maputo); sent: the provider took it (provider_message_id); delivered: the recipient's mail server "
        "accepted it (e-mail); bounced: it bounced for good (e-mail); complained: the recipient marked it as "
        "spam (e-mail); suppressed: not sent (failure says why: daily_cap, the recipient had their messages for "
        "the day; the address is on the suppression list or the phone number opted out of SMS); simulated: a "
        "test-mode message, rendered and kept, never sent (docs/notifications.md, Test mode); failed: refused "
        "for good."
    )
    provider_message_id: str | None = Field(description="SES's or SNS's message id once sent; null before.")
    failure: str | None = Field(
        description="Why it was not sent or not delivered (failed, suppressed, bounced, complained): the provider's "
        "reason, daily_cap, suppression_list:<bounce|complaint>, sms_opted_out, ses_account_suppression_list, "
        "bounce:<sub-type>, complaint:<feedback type>; null otherwise."
    )
    created_at: Timestamp = Field(description="When it was queued for sending.")
    updated_at: Timestamp | None = Field(description="When its status last changed; null while queued.")


class NotificationList(ListOf[Notification]):
    """The messages sent to a collection request's payer, oldest first."""

    model_config = examples({"object": "list", "data": [_MESSAGE], "has_more": False})

    data: list[Notification] = Field(description="Every message about the request.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")


_SENT: dict[str, Any] = {
    "object": "message",
    "cause": "collection_request.created:cr_01KB3F9V2XQ7M8N4P5R6S7T8VW",
    "subject_id": "cr_01KB3F9V2XQ7M8N4P5R6S7T8VW",
    "channel": "sms",
    "to": "+258841234567",
    "status": "sent",
    "subject": None,
    "text": "Loja Central: fatura de 1 500,50 MT. Pague em https://collection.mz.mzpay.example/pay/cr_01KB3F9V2XQ7M8N4P5R6S7T8VW",
    "sms": {"segments": 1, "encoding": "gsm7"},
    "provider_message_id": "4c3b4a5e-6f70-5d8e-9a1b-2c3d4e5f6a7b",
    "failure": None,
    "not_before": None,
    "created_at": "2026-11-03T09:12:00Z",
    "updated_at": "2026-11-03T09:12:01Z",
}


class SmsSize(Answer):
    segments: int = Field(description="What it costs: GSM-7 160 characters alone, 153 a part; UCS-2 70, 67.")
    encoding: Literal["gsm7", "ucs2"] = Field(description="gsm7, or ucs2 as soon as one character is outside it.")


class Message(Answer):
    """One message of an account to a person, rendered as it was sent, and what became of it."""

    model_config = examples(_SENT)

    object: Literal["message"] = Field(description="Always message.")
    cause: str = Field(description="Why it was sent, and about what: <event>:<id>, or a resend's id.")
    subject_id: str = Field(description="The object it is about (a collection request, a bill payment).")
    channel: Literal["email", "sms"] = Field(description="email (Amazon SES) or sms (Amazon SNS).")
    to: str = Field(description="The recipient's address.")
    status: Status = Field(description="As a collection request's notifications say (docs/notifications.md).")
    subject: str | None = Field(description="An e-mail's subject; null for an SMS.")
    text: str = Field(description="The SMS, or the e-mail's plain-text part, as rendered.")
    sms: SmsSize | None = Field(description="An SMS's segments and encoding; null for an e-mail.")
    provider_message_id: str | None = Field(description="SES's or SNS's message id once sent; null before.")
    failure: str | None = Field(description="Why it failed or was suppressed; null otherwise.")
    not_before: Timestamp | None = Field(description="When a deferred SMS may go (the end of the quiet hours).")
    created_at: Timestamp = Field(description="When it was queued for sending.")
    updated_at: Timestamp | None = Field(description="When its status last changed; null while queued.")


class MessageList(Page[Message]):
    """A page of an account's messages in a mode, newest first (the console's Messages page)."""

    model_config = examples({"data": [_SENT], "has_more": False, "next_page_token": None})


class NotificationDeadLetterReplay(Answer):
    """Dead letters of the notification sender put back on its queue (management API)."""

    model_config = examples({"object": "notification_dead_letter_replay", "replayed": 3, "has_more": False})

    object: Literal["notification_dead_letter_replay"] = Field(description="Always notification_dead_letter_replay.")
    replayed: int = Field(description="How many messages went back to NotificationQueue.")
    has_more: bool = Field(description="True when dead letters remain past `limit`: replay again.")


class MessageSuppression(Answer):
    """An address on the region's suppression list: no message is sent to it."""

    model_config = examples(
        {
            "object": "message_suppression",
            "channel": "email",
            "address": "joao@example.co.mz",
            "reason": "bounce",
            "source": "ses:Bounce:0100018c1e2f3a4b-5c6d7e8f-0a1b-2c3d-4e5f-6a7b8c9d0e1f-000000",
            "at": "2026-11-03T09:12:05Z",
        }
    )

    object: Literal["message_suppression"] = Field(description="Always message_suppression.")
    channel: Literal["email", "sms"] = Field(description="email or sms.")
    address: str = Field(description="The address as the list spells it: lowercased e-mail, E.164 phone number.")
    reason: Literal["bounce", "complaint"] = Field(description="bounce: it bounced for good; complaint: spam report.")
    source: str = Field(description="The event that put it there: ses:<event type>:<SES message id>.")
    at: Timestamp = Field(description="When it was put there.")
