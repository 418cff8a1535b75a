"""Bill payments (mzpay.domain.bills.payments, docs/bills.md): a channel pays a quote from its
float, exactly once; the supplier delivers the token or receipt; reads."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.bills import BillPayment as BillPaymentAnswer
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.bills.payments import (
    CREATED_EVENT,
    BillPayment,
    BillPaymentRequest,
    daily_windows,
    limit_reached,
    payment_of,
)
from mzpay.domain.bills.quotes import EXPIRED, USED, BillQuote, check_payable, invoice_amount
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_uuid, new_id
from mzpay.domain.money import ledger
from mzpay.domain.money.amounts import format_amount
from mzpay.steps.admission import COUNTER_TTL, pilot_window_refusal, psp_pilot, rejected
from mzpay.steps.bill_outcomes import bill_entry, bill_event, invoice_paid, submit, sweep_index
from mzpay.steps.bills import catalogue_of, owned_quote, supplier_of
from mzpay.store.bill_payments import InvoiceMoved, QuoteTaken
from mzpay.store.ledger import BalanceTooLow
from mzpay.store.payments import CeilingReached, Reservation


def quote_used(quote: BillQuote) -> ServiceError:
    return ServiceError(409, "quote_used", f"This quote was already paid ({quote.payment_id}); quote again.")


def quote_expired(quote: BillQuote) -> ServiceError:
    return ServiceError(422, "quote_expired", f"This quote expired at {quote.expires_at}; quote again.")


def pay(principal: Principal, request: BillPaymentRequest, payment_id: str) -> BillPaymentAnswer:
    """Pay `request.quote_id` once. `payment_id` is derived from the request's Idempotency-Key:
    a retry after a fault finds its payment and finishes it."""
    mine = deps.bill_payments().get(payment_id)
    if mine is not None:
        return _finish(principal, mine, request)
    quote = owned_quote(principal, request.quote_id)
    _payable(quote)
    biller, product = catalogue_of(quote.product_id)
    check_payable(biller, product)
    supplier_of(biller, quote.mode)  # no supplier: refused before anything is written
    moment = datetime.now(UTC)
    now = iso(moment)
    rejection_id = new_id()
    amount, currency = Decimal(quote.amount), quote.currency
    try:
        windows = daily_windows(product, quote, moment, rejection_id)
        pilot = psp_pilot(
            biller.psp_id, quote.mode, request.metadata, currency, Decimal(quote.channel_debit), rejection_id
        )
    except ServiceError as refusal:
        _reject(quote, refusal)
    reservations = tuple(Reservation(w.rule, w.key, amount, w.ceiling) for w in windows) + pilot
    reserved = tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations)
    payment = payment_of(payment_id, quote, request, reserved, now).with_changes(sweep_index(payment_id, moment))
    created = bill_event(CREATED_EVENT, payment, now)
    held = bill_entry(payment, ledger.hold(CREATED_EVENT, payment.debit), created, now)
    invoice = None
    if quote.invoice is not None:
        kept = deps.bill_quotes().invoice(quote.biller_id, quote.mode, quote.invoice["number"])
        assert kept is not None  # written when it was quoted
        invoice_amount(product, kept, amount)  # judged again: another payment or the biller may have moved it
        invoice = (kept, invoice_paid(kept, amount, now))
    try:
        deps.bill_payments().create(
            payment, quote, held, reservations, invoice, [created], int(moment.timestamp()) + COUNTER_TTL
        )
    except BalanceTooLow:
        raise ledger.insufficient_balance(currency, payment.debit) from None
    except CeilingReached as reached:
        reservation = reached.reservation
        pilot_full = pilot_window_refusal(reservation, currency, rejection_id)
        _reject(quote, pilot_full or limit_reached(reservation.name, reservation.ceiling, currency, rejection_id))
    except InvoiceMoved:
        raise ServiceError(
            409, "invalid_state", "The invoice changed since it was quoted (another payment); quote again."
        ) from None
    except QuoteTaken:
        return _lost(principal, request, payment_id)
    return BillPaymentAnswer.of(submit(payment).view())


def _payable(quote: BillQuote) -> None:
    if quote.status == USED:
        raise quote_used(quote)
    if quote.status == EXPIRED or iso(datetime.now(UTC)) >= quote.expires_at:
        if quote.status != EXPIRED:
            deps.bill_quotes().transition(quote, {"status": EXPIRED, "updated_at": iso(datetime.now(UTC))})
        raise quote_expired(quote)


def _lost(principal: Principal, request: BillPaymentRequest, payment_id: str) -> BillPaymentAnswer:
    """The creation lost its quote's condition: our own earlier attempt landed (finish it), or
    another payment used the quote (409 quote_used), or it expired meanwhile."""
    mine = deps.bill_payments().get(payment_id)
    if mine is not None:
        return _finish(principal, mine, request)
    _payable(owned_quote(principal, request.quote_id))
    raise ServiceError(409, "invalid_state", "The quote changed meanwhile; read it and retry.")


def _finish(principal: Principal, payment: BillPayment, request: BillPaymentRequest) -> BillPaymentAnswer:
    own(principal, payment, "bill payment")
    if payment.quote_id != request.quote_id:
        raise ServiceError(409, "idempotency_key_reused", "This Idempotency-Key paid another quote.")
    return BillPaymentAnswer.of((submit(payment) if payment.status == "pending" else payment).view())


def _reject(quote: BillQuote, refusal: ServiceError) -> Any:
    details = {"quote_id": quote.quote_id, "product_id": quote.product_id, "reference": quote.reference}
    rejected(quote.account_id, quote.mode, refusal, details)


def read(principal: Principal, payment_id: str) -> BillPaymentAnswer:
    payment = own(principal, deps.bill_payments().get(payment_id) if is_uuid(payment_id) else None, "bill payment")
    return BillPaymentAnswer.of(payment.view())
