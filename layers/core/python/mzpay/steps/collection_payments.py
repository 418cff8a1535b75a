"""The outbox's share of collection requests (docs/collection-requests.md, "Reconciliation"): the
terminal event of a payment that a request's payment link opened settles the request, in the same
flow of events that delivers the payment's own webhooks. payment.succeeded makes the request paid
and matched (collection_request.paid; more than was due, when a recorded instalment paid part of
it meanwhile, is kept as its overpayment to refund); on a request cancelled meanwhile the money
that moved is kept as an overpayment to refund (collection_request.refund_due); payment.failed,
.expired or .canceled leaves it payable again (collection_request.payment_failed). Each is one
conditional write with its event; a record played twice finds its work done and changes nothing."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.domain.collection import requests as rules
from mzpay.domain.collection.requests import CollectionRequest, PaymentStatus, RequestStatus
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.rules import Status
from mzpay.observability import logger
from mzpay.steps.business import gateway_account_of
from mzpay.steps.checkouts import cancel_payment
from mzpay.steps.payments import current
from mzpay.store.collection_requests import Changed

SETTLING = {
    "payment.succeeded": "paid",
    "payment.failed": "failed",
    "payment.expired": "failed",
    "payment.canceled": "failed",
}
ATTEMPTS = 5


def _payment_type(payment: Mapping[str, Any]) -> str | None:
    source = payment.get("source") or {}
    wallet = source.get("mobile_wallet") or {}
    return f"{source.get('type')}:{wallet['network']}" if wallet.get("network") else source.get("type")


def _refund_due(request: CollectionRequest, payment: Mapping[str, Any], now: str) -> dict[str, Any] | None:
    """A checkout payment that succeeded on a request cancelled meanwhile (its money moved): kept
    as an overpayment to refund, once (the reconciliation names the payment it flagged)."""
    payment_id = str(payment.get("provider_payment_id"))
    reconciliation = request.payment_reconciliation
    if request.status != RequestStatus.CANCELLED or reconciliation.get("gateway_transaction_id") == payment_id:
        return None
    amount = Decimal(str((payment.get("money") or {}).get("amount")))
    flagged = {**reconciliation, "gateway_transaction_id": payment_id, "reconciliation_status": "unmatched"}
    return {"overpayment": request.overpayment + amount, "payment_reconciliation": flagged, "updated_at": now}


def _instalment(request: CollectionRequest, payment: Mapping[str, Any], amount: Decimal, now: str) -> dict[str, Any]:
    """A checkout's payment of a part of what is due (the link named an instalment): paid so far
    grows, the request is partially_paid and payable again (a new opening of its link starts a
    new checkout); the reconciliation names the payment, so a record played twice adds nothing."""
    paid = {
        **request.payment_reconciliation,
        "payment_status": PaymentStatus.PENDING,
        "payment_type": _payment_type(payment),
        "gateway_transaction_id": str(payment.get("provider_payment_id")),
        "date_payment": payment.get("last_updated_at") or now,
    }
    return {
        "status": RequestStatus.PARTIALLY_PAID,
        "amount_paid": request.amount_paid + amount,
        "payment_reconciliation": paid,
        "updated_at": now,
    }


def _settled(request: CollectionRequest, payment: Mapping[str, Any], outcome: str, now: str) -> dict[str, Any] | None:
    """The request's changes for the payment's outcome, or None when there is nothing to do
    (already done, or the payment is not the request's open attempt)."""
    payment_id = str(payment.get("provider_payment_id"))
    reconciliation = request.payment_reconciliation
    if request.checkout_payment_id != payment_id:
        return None
    if request.status not in rules.OPEN_STATUSES:
        return _refund_due(request, payment, now) if outcome == "paid" else None
    if outcome == "failed":
        if reconciliation.get("payment_status") != PaymentStatus.IN_PROCESS:
            return None  # recorded already, or the business closed the checkout itself
        failed = {**reconciliation, "payment_status": PaymentStatus.FAILED, "gateway_transaction_id": payment_id}
        return {"payment_reconciliation": failed, "updated_at": now}
    if reconciliation.get("gateway_transaction_id") == payment_id:
        return None  # an instalment it paid is recorded already
    money = payment.get("money") or {}
    amount = Decimal(str(money.get("amount")))
    due = request.outstanding
    same_currency = money.get("currency") == request.amount["currency"]
    matched = same_currency and amount == due
    over = same_currency and amount > due  # a recorded instalment paid part of it meanwhile
    if same_currency and amount < due and request.allow_installments:
        return _instalment(request, payment, amount, now)
    paid = {
        "payment_status": PaymentStatus.PAID,
        "payment_type": _payment_type(payment),
        "gateway_transaction_id": payment_id,
        "reconciliation_status": "matched" if matched or over else "unmatched",
        "date_payment": payment.get("last_updated_at") or now,
        "date_reconciliation": now if matched or over else None,
    }
    changes: dict[str, Any] = {"payment_reconciliation": paid, "updated_at": now}
    if matched or over:
        changes["status"] = RequestStatus.PAID
        if request.amount_paid > 0 or over:  # it paid what recorded payments left due
            changes["amount_paid"] = request.value
        if over:
            changes["overpayment"] = request.overpayment + amount - due
        changes["bill_info"] = {**request.bill_info, "status": "paid"}
        changes["compliance_audit"] = {
            **request.compliance_audit,
            "paid_at": paid["date_payment"],
            "reconciled_at": now,
        }
    return changes


def close_checkout(request: CollectionRequest, action: str) -> dict[str, Any]:
    """Before a change or deletion of a pending request, or a payment recorded against it: a
    checkout the payer opened and has not paid with is canceled (payment.canceled is recorded); a
    payment under way refuses the action (400 invalid_request). The request's changes that say no
    checkout is open any more."""
    if request.payment_reconciliation.get("payment_status") != PaymentStatus.IN_PROCESS:
        return {}
    payment = deps.payments().get(request.checkout_payment_id or "")
    if payment is not None:
        payment = current(payment)
        if payment.status == Status.REQUIRES_PAYMENT_METHOD:
            try:
                cancel_payment(payment)
            except ServiceError as lost:  # the payer submitted meanwhile
                raise rules.payment_under_way(action) from lost
        elif payment.status not in (Status.FAILED, Status.EXPIRED, Status.CANCELED):
            raise rules.payment_under_way(action)
    return {"payment_reconciliation": {**request.payment_reconciliation, "payment_status": PaymentStatus.PENDING}}


def _event_of(before: CollectionRequest, after: CollectionRequest, outcome: str) -> str | None:
    """The request event a settlement records: paid, an instalment paid, money to refund, the
    payment failed; None for a payment recorded unmatched."""
    if outcome == "failed":
        return rules.EVENT_PAYMENT_FAILED
    if after.status == RequestStatus.PAID:
        return rules.EVENT_PAID
    if after.amount_paid > before.amount_paid:
        return rules.EVENT_PARTIALLY_PAID
    if after.overpayment > before.overpayment:
        return rules.EVENT_REFUND_DUE
    return None


def reconcile_collection(image: Mapping[str, Any]) -> str | None:
    """Settle the collection request of a payment's terminal event; the event type recorded
    (collection_request.paid or .payment_failed), or None when the event settles none."""
    outcome = SETTLING.get(str(image.get("type")))
    payment = (image.get("data") or {}).get("object") or {}
    request_id = payment.get("collection_request_id") if isinstance(payment, Mapping) else None
    if outcome is None or not isinstance(request_id, str):
        return None
    for _attempt in range(ATTEMPTS):
        request = deps.collection_requests().get(request_id)
        if request is None or (gateway_account_of(request.account_id), request.mode) != (
            image.get("account_id"),
            image.get("mode"),
        ):
            logger.warning("a payment names a collection request it cannot settle", collection_request_id=request_id)
            return None
        now = now_iso()
        changes = _settled(request, payment, outcome, now)
        if changes is None:
            return None
        after = request.changed(changes)
        kind = _event_of(request, after, outcome)
        try:
            deps.collection_requests().transition(
                request, changes, [rules.request_event(kind, after, now)] if kind else []
            )
        except Changed:
            continue  # the business changed it meanwhile: judge it again
        return kind
    raise Changed()  # played again by the event source mapping
