"""The answers about messages to people (docs/notifications.md): a collection request's messages
to its payer, as the business reads them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import Answer, ListOf, Timestamp, examples

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
    status: Literal["queued", "sent", "delivered", "bounced", "complained", "suppressed", "simulated", "failed"] = (
        Field(
            description="queued: being sent; sent: the provider took it (provider_message_id); delivered: the "
            "recipient's mail server accepted it (e-mail); bounced: it bounced for good (e-mail); complained: the "
            "recipient marked it as spam (e-mail); suppressed: not sent, the address is on the suppression list or "
            "the phone number opted out of SMS (failure says which); simulated: a test-mode message, rendered and "
            "kept, never sent (docs/notifications.md, Test mode); failed: refused for good."
        )
    )
    provider_message_id: str | None = Field(description="SES's or SNS's message id once sent; null before.")
    failure: str | None = Field(
        description="Why it was not sent or not delivered (failed, suppressed, bounced, complained): the provider's "
        "reason, suppression_list:<bounce|complaint>, sms_opted_out, ses_account_suppression_list, "
        "bounce:<sub-type>, complaint:<feedback type>; null otherwise."
    )
    created_at: Timestamp = Field(description="When it was queued for sending.")
    updated_at: Timestamp | None = Field(description="When its status last changed; null while queued.")


class NotificationList(ListOf[Notification]):
    """The messages sent to a collection request's payer, oldest first."""

    model_config = examples({"object": "list", "data": [_MESSAGE], "has_more": False})

    data: list[Notification] = Field(description="Every message about the request.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")


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
