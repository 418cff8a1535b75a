"""A collection request's life past its payment (docs/collection-requests.md, "A request's life"):
when it is closed to payments (paid, cancelled), and its cancellation by the business. Pure
rules: no storage, no HTTP."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.requests import OPEN_STATUSES, CollectionRequest, RequestStatus
from mzpay.domain.common.errors import ServiceError

MAX_CANCEL_REASON = 200


def closed(request: CollectionRequest) -> ServiceError | None:
    """Why nothing more may be paid on, or done to, `request` (paid or cancelled: 409
    invoice_closed, the spec's code for an invoice no longer open), or None while it is open."""
    if request.status in OPEN_STATUSES:
        return None
    what = "paid: nothing is due" if request.status == RequestStatus.PAID else request.status
    return ServiceError(409, "invoice_closed", f"The collection request is {what}.", request_status=request.status)


def cancelled(request: CollectionRequest, actor: str, reason: str | None, now: str) -> dict[str, Any]:
    """The changes that cancel `request` (pending, partially_paid, overdue: open ones); 409
    invoice_closed for a paid or cancelled one. What instalments paid stays recorded (amount_paid:
    the business settles it with its payer)."""
    if (refusal := closed(request)) is not None:
        raise refusal
    return {
        "status": RequestStatus.CANCELLED,
        "bill_info": {**request.bill_info, "status": "cancelled"},
        "cancellation": {"cancelled_at": now, "cancelled_by": actor, "reason": reason},
        "updated_at": now,
    }


def cancel_reason_problem(reason: object) -> str | None:
    if reason is None:
        return None
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_CANCEL_REASON:
        return f"a text of 1 to {MAX_CANCEL_REASON} characters"
    return None
