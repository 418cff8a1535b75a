"""Resending a bill payment's token or receipt to its payer (docs/bills.md, "Resends"): at most
3 times (422 resend_limit), by email or by SMS where the account has an SMS channel (else 503
sms_unavailable). The resend is recorded with its event in one write; the outbox puts it on
NotificationQueue and the notification sender renders it (the token or receipt as the payer first
got it, bill_payment.succeeded's message, in the business's language) and hands it to the provider
(mzpay.cases.notifications)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers.billers import SmsChannel
from mzpay.answers.bills import BillPaymentResend
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.bills.payments import RESEND_EVENT, BillPayment, ResendRequest, resend_to
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_uuid, new_id
from mzpay.domain.messages.notices import BILL_PAID
from mzpay.domain.webhooks.events import new_event

EMAIL_SENDER = ""  # the region's From (SesFromAddress, else no-reply@ its SesIdentity)
ATTEMPTS = 4  # more than MAX_RESENDS: racing resends are judged again until the limit answers


def sms_unavailable() -> ServiceError:
    return ServiceError(503, "sms_unavailable", "No SMS channel is configured for this account; resend by email.")


def resend(principal: Principal, payment_id: str, request: ResendRequest) -> BillPaymentResend:
    """Record a resend of the payment's token or receipt by `request.channel` and queue it."""
    payment = _payment(principal, payment_id)
    sender = EMAIL_SENDER
    if request.channel == "sms":
        channel = deps.sms_channels().get(principal.acting_account_id)
        if channel is None:
            raise sms_unavailable()
        sender = channel["sender_id"]
    for attempt in range(ATTEMPTS):
        if attempt:
            payment = _payment(principal, payment_id)
        to = resend_to(payment, request.channel)
        now = iso(datetime.now(UTC))
        entry = {"resend_id": new_id(), "channel": request.channel, "to": to, "requested_at": now}
        try:
            after = deps.bill_payments().transition(
                payment, {"resends": (*payment.resends, entry)}, [_event(payment, entry, sender, now)]
            )
        except ServiceError as lost:
            if lost.code != "invalid_state":
                raise
            continue
        return _view(after, entry)
    raise ServiceError(503, "processing_error", "The bill payment keeps changing; retry.", headers={"Retry-After": "1"})


def _payment(principal: Principal, payment_id: str) -> BillPayment:
    return own(principal, deps.bill_payments().get(payment_id) if is_uuid(payment_id) else None, "bill payment")


def _event(payment: BillPayment, entry: dict[str, str], sender: str, now: str) -> Any:
    message = {
        "notification_id": entry["resend_id"],
        "channel": entry["channel"],
        "to": entry["to"],
        "sender": sender,
        "notice": BILL_PAID,  # rendered by the sender as the payer first got it (mzpay.messages.notices)
        "data": payment.view(),
        "account_id": payment.account_id,
        "mode": payment.mode,
        "subject_id": payment.payment_id,
    }
    return new_event(
        RESEND_EVENT, payment.account_id, payment.mode, "bill_payment", payment.payment_id, {"object": message}, now
    )


def _view(payment: BillPayment, entry: dict[str, str]) -> BillPaymentResend:
    return BillPaymentResend(
        resend_id=entry["resend_id"],
        payment_id=payment.payment_id,
        channel=entry["channel"],  # type: ignore[arg-type]  # a ResendRequest's channel
        to=entry["to"],
        status="queued",
        resends=len(payment.resends),
        requested_at=entry["requested_at"],
    )


def set_sms_channel(account_id: str, sender_id: str | None) -> SmsChannel:
    """Operators: give an account an SMS channel (its sender id), or take it away (None)."""
    from mzpay.steps.accounts import home_account

    account = home_account(account_id)
    now = iso(datetime.now(UTC))
    if sender_id is None:
        deps.sms_channels().delete(account.account_id)
    else:
        deps.sms_channels().put(account.account_id, sender_id, now)
    return SmsChannel(account_id=account.account_id, sms_sender_id=sender_id, updated_at=now)
