"""How a bill payment ends once its supplier answered: succeeded (the token or receipt kept, the
held float leaves), or failed (the float, the daily totals and the invoice's paid amount come
back); a supplier that did not answer leaves it pending, and the sweep (mzpay.cases.expiry) asks
again on the reconciliation schedule until it answers or the horizon passes. Shared by the
payment's creation and the sweep."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.connectors.bill_suppliers import (
    FAILED,
    SUCCEEDED,
    BillCall,
    SupplierPayment,
    SupplierTimeout,
    SupplierUnavailable,
)
from mzpay.domain.bills.biller_api import RECEIVED_EVENT
from mzpay.domain.bills.payments import EVENT_OF_STATUS, PENDING, BillPayment
from mzpay.domain.bills.payments import FAILED as PAYMENT_FAILED
from mzpay.domain.bills.quotes import Invoice, paid_status
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money import ledger
from mzpay.domain.payments import expiry
from mzpay.domain.webhooks.events import Event, entity_event, new_event
from mzpay.steps.bills import supplier_of
from mzpay.steps.payments import reconcile_first
from mzpay.store.bill_payments import InvoiceMoved

OUT_OF_THE_SWEEP: dict[str, Any] = {"expiry_shard": None, "due_at": None}
ATTEMPTS = 3


def bill_event(kind: str, payment: BillPayment, now: str) -> Event:
    return entity_event(kind, payment, "bill_payment", payment.payment_id, payment.view(), now, payment.callback_url)


def bill_entry(payment: BillPayment, movement: ledger.Movement, event: Event, now: str) -> ledger.Entry:
    return ledger.Entry(payment.account_id, payment.mode, payment.currency, movement, event.id, payment.payment_id, now)


def biller_events(payment: BillPayment, now: str) -> list[Event]:
    """A biller with its own account hears of the payment it received: bill_payment.received,
    in that account and the payment's mode, posted to its endpoint for its own events."""
    biller = deps.billers().get(payment.biller_id)
    if biller is None or biller.account_id is None:
        return []
    endpoint = deps.account_endpoints().read(biller.account_id, payment.mode)
    received = {
        "object": "bill_payment_received",
        "payment_id": payment.payment_id,
        "biller_id": payment.biller_id,
        "product_id": payment.product_id,
        "reference": payment.reference,
        "customer_name": payment.customer_name,
        "invoice_number": payment.invoice_number,
        "amount": payment.amount,
        "biller_credit": payment.biller_credit,
        "currency": payment.currency,
        "receipt_number": payment.receipt_number,
        "paid_at": now,
    }
    url = endpoint["url"] if endpoint else None
    return [
        new_event(
            RECEIVED_EVENT,
            biller.account_id,
            payment.mode,
            "bill_payment",
            payment.payment_id,
            {"object": received},
            now,
            url,
        )
    ]


def sweep_index(payment_id: str, now: datetime) -> dict[str, Any]:
    """A pending payment's place in the sweep: asked about after the first reconciliation delay."""
    return {"expiry_shard": expiry.shard(payment_id), "due_at": iso(now + reconcile_first())}


def invoice_paid(invoice: Invoice, amount: Decimal, now: str) -> dict[str, Any]:
    """The changes of `invoice` paid `amount` more (less, when negative)."""
    paid = Decimal(invoice.paid) + amount
    return {"paid": f"{paid:.2f}", "status": paid_status(invoice, paid), "updated_at": now}


def _call(payment: BillPayment) -> BillCall:
    product = deps.billers().product(payment.product_id)
    code = product.supplier_product if product is not None else ""
    return BillCall(payment.payment_id, code, payment.reference, Decimal(payment.amount), payment.yields)


def submit(payment: BillPayment) -> BillPayment:
    """Send a pending payment to its supplier (it pays a payment_id once) and apply the answer;
    no answer leaves it pending for reconciliation."""
    biller = deps.billers().get(payment.biller_id)
    assert biller is not None
    try:
        answer = supplier_of(biller, payment.mode).pay(_call(payment))
    except (SupplierTimeout, SupplierUnavailable):
        return payment
    try:
        return apply_answer(payment, answer)
    except ServiceError as lost:  # the sweep applied the supplier's answer first: that is the outcome
        fresh = deps.bill_payments().get(payment.payment_id)
        if lost.code != "invalid_state" or fresh is None or fresh.status == PENDING:
            raise
        return fresh


def apply_answer(payment: BillPayment, answer: SupplierPayment, extra: dict[str, Any] | None = None) -> BillPayment:
    """The supplier's answer to a pending payment (`extra`: more changes, e.g. an operator's
    resolution); a pending answer changes nothing."""
    if answer.status == SUCCEEDED:
        now = iso(datetime.now(UTC))
        changes = {
            "status": SUCCEEDED,
            "token": answer.token,
            "receipt_number": answer.receipt_number,
            "updated_at": now,
            **OUT_OF_THE_SWEEP,
            **(extra or {}),
        }
        after = payment.with_changes(changes)
        event = bill_event(EVENT_OF_STATUS[SUCCEEDED], after, now)
        entry = bill_entry(payment, ledger.paid_out(event.type, payment.debit), event, now)
        return deps.bill_payments().transition(payment, changes, [event, *biller_events(after, now)], entry)
    if answer.status == FAILED:
        failure = {"failure_code": answer.failure_code, "failure_message": answer.failure_message}
        return fail(payment, {**failure, **(extra or {})})
    return payment


def fail(payment: BillPayment, extra: dict[str, Any]) -> BillPayment:
    """Failed: the held float, the daily totals and what the invoice was credited come back."""
    for _attempt in range(ATTEMPTS):
        now = iso(datetime.now(UTC))
        changes = {"status": PAYMENT_FAILED, "updated_at": now, **OUT_OF_THE_SWEEP, **extra}
        event = bill_event(EVENT_OF_STATUS[PAYMENT_FAILED], payment.with_changes(changes), now)
        entry = bill_entry(payment, ledger.released(event.type, payment.debit), event, now)
        invoice = None
        if payment.invoice_number is not None:
            kept = deps.bill_quotes().invoice(payment.biller_id, payment.mode, payment.invoice_number)
            assert kept is not None  # written with the quote
            invoice = (kept, invoice_paid(kept, -Decimal(payment.amount), now))
        try:
            return deps.bill_payments().transition(payment, changes, [event], entry, release=True, invoice=invoice)
        except InvoiceMoved:
            continue
    raise ServiceError(503, "processing_error", "The invoice keeps changing; retry.", headers={"Retry-After": "1"})


def reconcile_bill_payment(payment: BillPayment) -> int:
    """The sweep: ask the supplier what became of a pending payment; its answer ends it (1), or
    the next question is scheduled (0), or after the horizon it waits for an operator."""
    try:
        biller = deps.billers().get(payment.biller_id)
        assert biller is not None
        try:
            answer = supplier_of(biller, payment.mode).payment_status(_call(payment))
        except (SupplierTimeout, SupplierUnavailable):
            answer = SupplierPayment(PENDING)
        if answer.status != PENDING:
            apply_answer(payment, answer)
            return 1
        changes = expiry.next_question(payment.created_at, payment.updated_at, datetime.now(UTC), reconcile_first())
        deps.bill_payments().transition(payment, changes, [])
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "biller_unavailable"):
            raise
    return 0
