"""The outbox's share of the messages a decision or a transaction sends (docs/notifications.md,
mzpay.domain.messages.notices): the event's recipient found, the business's notification
language read now (so that a language set since is the one used), and one NotificationQueue
message put; the notification sender renders and sends it (mzpay.cases.notices). A duplicate
queue message is harmless (one message per cause and recipient)."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.messages import notices


def business_language(account_id: str) -> str | None:
    """The business's notification language (PATCH /v1/account/settings), kept on its business account:
    `account_id` is the business's (the collection surface) or a gateway account a business
    collects through; None when neither has one."""
    accounts = deps.business_accounts()
    account = accounts.get(account_id)
    if account is None:
        linked = accounts.linked_business(account_id)
        account = accounts.get(linked) if linked else None
    return account.notification_language if account is not None else None


def business_name(account_id: str) -> str:
    """The name a message gives the business (its legal name once given), else its id."""
    account = deps.business_accounts().get(account_id)
    return str((account.view()["name"] if account is not None else None) or account_id)


def dispatch_notice(image: dict[str, Any]) -> bool:
    """Queue the message of a notice event (False: not one, or its recipient has no address)."""
    notice = image.get("type")
    data = (image.get("data") or {}).get("object")
    if notice not in notices.NOTICES or not isinstance(data, dict):
        return False
    to = notices.recipient(data.get("contact"), data.get("payer"), data.get("wallet"))
    if to is None:
        return False
    cause, subject_id = notices.cause(str(notice), data)
    message = {
        "kind": notices.QUEUE_KIND,
        "notice": notice,
        "cause": cause,
        "subject_id": subject_id,
        "account_id": image["account_id"],
        "mode": image["mode"],
        "channel": to[0],
        "to": to[1],
        "language": data.get("language"),
        "business_language": business_language(str(image["account_id"])),
        "data": data,
    }
    deps.notification_queue().send(message)
    return True
