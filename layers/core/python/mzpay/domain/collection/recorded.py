"""Payments a business records against its collection requests (docs/collection-payments.md,
"Recording a payment"): money it received outside the service (a bank transfer to its account,
cash at its counter, a payment of the request's SIMO/interbank reference, another way), which
settles the request like a payment through its link does. Pure rules: no storage, no HTTP.

A recorded payment of the whole amount due makes the request paid (collection_request.paid); a
request that takes instalments (`allow_installments`) may be paid in several, each part of what
is due; no payment may pay more than is due, nor a part of a request that takes one payment only
(422 amount_out_of_range, the spec's code for an invoice's partial and over-payment rules), nor
anything of a paid or cancelled request (409 invoice_closed: the invoice is no longer open). A
part leaves the request partially_paid; an instalment is at least the request's min_installment
(when its methods set one) unless it pays all that is due."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.life import closed
from mzpay.domain.collection.requests import CENTS, CollectionRequest, PaymentStatus, RequestStatus
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid

CHANNELS = ("bank_transfer", "cash", "simo_reference", "other")
"""How the money came: a bank transfer to the business's account, cash at its counter, a payment
of the request's SIMO (ERV) or interbank reference at a bank or ATM, or another way."""
MAX_REFERENCE = 64  # the bank's or the receipt's reference
MAX_DESCRIPTION = 200
MAX_METADATA_KEYS = 20
CLOCK_SKEW = timedelta(minutes=5)  # a paid_at this far ahead of the service's clock is still now


def channel_problem(channel: str) -> str | None:
    return None if channel in CHANNELS else "one of " + ", ".join(CHANNELS)


EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)  # a paid_at before it is a mistake


def paid_at_problem(paid_at: str, now: datetime) -> str | None:
    """paid_at: an ISO 8601 date and time with its offset, from 2000 on, not in the future."""
    try:
        when = datetime.fromisoformat(paid_at.replace("Z", "+00:00"))
        if when.tzinfo is None:
            return "an ISO 8601 date and time with its offset, such as 2026-11-01T09:30:00Z"
        when = when.astimezone(UTC)
    except (ValueError, OverflowError):
        return "an ISO 8601 date and time, such as 2026-11-01T09:30:00Z"
    if when > now + CLOCK_SKEW:
        return "not in the future"
    if when < EARLIEST:
        return "not before 2000-01-01"
    return None


def paid_at_utc(paid_at: str) -> str:
    """paid_at as the service writes times (UTC, seconds, Z)."""
    when = datetime.fromisoformat(paid_at.replace("Z", "+00:00")).astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _due(request: CollectionRequest) -> dict[str, Any]:
    return {"currency": request.amount["currency"], "value": request.outstanding.quantize(CENTS)}


def judge(request: CollectionRequest, currency: str, value: Decimal) -> None:
    """Whether `value` in `currency` may be recorded against `request` now (see the module's note)."""
    if (refusal := closed(request)) is not None:  # paid or cancelled
        raise refusal
    if currency != request.amount["currency"]:
        message = f"the collection request's currency, {request.amount['currency']}"
        raise invalid([FieldError("amount.currency", INVALID_FORMAT, message)])
    due = request.outstanding
    if value > due:
        message = "The payment is more than is due on the collection request."
        raise ServiceError(422, "amount_out_of_range", message, amount_due=_due(request))
    if value < due and not request.allow_installments:
        raise ServiceError(
            422,
            "amount_out_of_range",
            "The collection request takes one payment of what is due, not a part of it.",
            amount_due=_due(request),
            allow_installments=False,
        )
    least = request.min_installment
    if value < due and least is not None and value < least:
        raise ServiceError(
            422,
            "amount_out_of_range",
            "An instalment of this collection request is at least its minimum, or all that is due.",
            amount_due=_due(request),
            min_installment={"currency": currency, "value": least.quantize(CENTS)},
        )


def settled(
    request: CollectionRequest,
    value: Decimal,
    channel: str,
    payment_id: str,
    paid_at: str,
    now: str,
    over: Decimal = Decimal(0),
) -> dict[str, Any]:
    """The request's changes once `value` is recorded against it (judged first): what it paid so
    far, and once nothing is due, paid and matched as a payment through its link leaves it. `over`
    (a bank line's money the request cannot take: all of it once paid or cancelled, or what is
    beyond what is due) is kept as its overpayment to refund."""
    if over > 0:
        kept = {"overpayment": request.overpayment + over, "updated_at": now}
        return kept if over >= value else {**settled(request, value - over, channel, payment_id, paid_at, now), **kept}
    paid = request.amount_paid + value
    changes: dict[str, Any] = {"amount_paid": paid, "updated_at": now}
    if paid < request.value:
        return changes | {"status": RequestStatus.PARTIALLY_PAID}
    changes["status"] = RequestStatus.PAID
    changes["bill_info"] = {**request.bill_info, "status": "paid"}
    changes["payment_reconciliation"] = {
        **request.payment_reconciliation,
        "payment_status": PaymentStatus.PAID,
        "payment_type": f"manual:{channel}",
        "gateway_transaction_id": payment_id,
        "reconciliation_status": "matched",
        "date_payment": paid_at,
        "date_reconciliation": now,
    }
    changes["compliance_audit"] = {**request.compliance_audit, "paid_at": paid_at, "reconciled_at": now}
    return changes


def overpaid(request: CollectionRequest, value: Decimal) -> Decimal | None:
    """What of a bank line's `value` (in the request's currency) the request cannot take, kept
    as its overpayment to refund: all of it once the request is paid or cancelled, what is beyond
    what is due otherwise. None when the line does not fit: a part of a request that takes one
    payment, or an instalment below its minimum."""
    if closed(request) is not None:
        return value
    due = request.outstanding
    if value >= due:
        return value - due
    if not request.allow_installments or (request.min_installment is not None and value < request.min_installment):
        return None
    return Decimal(0)
