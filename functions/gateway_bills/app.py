"""Gateway API: bill payments through channels (docs/bills.md): quotes, payments, resends."""

from typing import Annotated

from mzpay.answers import bills as answers
from mzpay.domain.bills.biller_api import InvoicePatch
from mzpay.domain.bills.payments import BillPaymentRequest, ResendRequest
from mzpay.domain.bills.quotes import QuoteRequest
from mzpay.domain.bills.subscriptions import SubscriptionRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.body import content_type, raw_body
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors, filters
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import created
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import bill_payments, bill_quotes, bill_resends, bill_subscriptions, biller_api, listings

app = gateway_app()


@app.post("/v1/bill-payments/quotes")
@requires("payments:write")
@errors(
    "not_found",
    "invalid_amount",
    "reference_not_found",
    "reference_rejected",
    "amount_out_of_range",
    "biller_unavailable",
    "invoice_closed",
)
def create_bill_quote(body: Annotated[QuoteRequest, Body()]) -> Response[answers.BillQuote]:
    """Quote a bill payment

    Asks the biller's supplier about the reference: the customer's name, the amount due (all
    an invoice still owes unless `amount` says less or more, where its product allows), the fee
    and discount, and how long the quote holds (`expires_at`). 201 `quoted`."""
    return created(bill_quotes.quote(merchant(), body))


@app.get("/v1/bill-payments/quotes/<quote_id>")
@requires("payments:read")
def read_bill_quote(quote_id: str) -> answers.BillQuote:
    """Read a bill quote

    `expired` once its validity passed; `used` once a payment took it."""
    return bill_quotes.read_quote(merchant(), quote_id)


@app.post("/v1/bill-payments")
@requires("payments:write")
@idempotent(app)
@errors(
    "not_found",
    "quote_used",
    "quote_expired",
    "biller_unavailable",
    "insufficient_balance",
    "limit_exceeded",
    "pilot_limit",
    "invalid_state",
    "invalid_phone",
    "invalid_callback_url",
)
def pay_bill(body: Annotated[BillPaymentRequest, Body()]) -> Response[answers.BillPayment]:
    """Pay a bill

    Pays a quote, once: its `channel_debit` leaves your float (422 `insufficient_balance` when
    it does not cover it), within the product's daily limits (422 `limit_exceeded`, rule
    `reference_daily` or `channel_daily`). 201 `succeeded` with the `token` or `receipt_number`
    the biller gave, `failed`, or `pending` while the biller's system does not answer
    (reconciliation settles it; `bill_payment.succeeded` or `bill_payment.failed` follows)."""
    return created(bill_payments.pay(merchant(), body, derived_id("bill_payment")))


@app.get("/v1/bill-payments")
@requires("payments:read")
@errors("invalid_request")
@filters("bill_payments")
def list_bill_payments() -> answers.BillPaymentList:
    """List bill payments

    The account's bill payments in the key's mode, newest first, by the filters below
    (docs/lists.md); `product_id` lists one bill product's."""
    return listings.bill_payments(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/bill-payments/<payment_id>")
@requires("payments:read")
def read_bill_payment(payment_id: str) -> answers.BillPayment:
    """Read a bill payment"""
    return bill_payments.read(merchant(), payment_id)


@app.post("/v1/bill-payments/<payment_id>/resend")
@requires("payments:write")
@errors("resend_limit", "sms_unavailable", "invalid_state", "invalid_request")
def resend_bill_payment(payment_id: str, body: Annotated[ResendRequest, Body()]) -> Response[answers.BillPaymentResend]:
    """Resend a token or receipt

    Sends a succeeded payment's token or receipt to its payer again, by `email` or `sms` (to
    the payer given when it was paid), at most 3 times (422 `resend_limit`); by SMS only where
    your account has an SMS channel (503 `sms_unavailable`). 201 `queued`: the message goes out
    through the notification queue."""
    return created(bill_resends.resend(merchant(), payment_id, body))


@app.post("/v1/payers/<payer_id>/subscriptions")
@requires("payments:write")
@errors(
    "consent_required",
    "not_found",
    "invalid_state",
    "reference_not_found",
    "reference_rejected",
    "amount_out_of_range",
    "biller_unavailable",
)
def subscribe_payer(payer_id: str, body: Annotated[SubscriptionRequest, Body()]) -> Response[answers.BillSubscription]:
    """Subscribe a payer to a recurring bill

    `payer_id` is your own id for your payer (1 to 64 letters, digits, `_.:-`). Needs the
    payer's consent: `consent.accepted` true and the `terms_version` they accepted (at most 60
    characters), else 422 `consent_required`; it is kept with when and from which address it was
    given. The biller's supplier confirms the reference first."""
    source_ip = app.current_event.request_context.identity.source_ip or ""
    return created(bill_subscriptions.subscribe(merchant(), payer_id, body, source_ip))


@app.get("/v1/payers/<payer_id>/subscriptions")
@requires("payments:read")
def list_payer_subscriptions(payer_id: str) -> answers.BillSubscriptionList:
    """List a payer's subscriptions"""
    return bill_subscriptions.subscriptions(merchant(), payer_id)


@app.patch("/v1/biller/invoices/<number>")
@requires("payments:write")
@errors("not_a_biller", "invoice_locked", "not_found", "invalid_amount", "biller_unavailable")
def change_biller_invoice(number: str, body: Annotated[InvoicePatch, Body()]) -> answers.BillerInvoice:
    """Change one of your invoices (billers)

    For a key of a registered biller's account (else 403 `not_a_biller`): the amount due, due
    date, customer name or description of an invoice that is open and unpaid (else 409
    `invoice_locked`). The key's mode is the invoice's: a test key changes the test invoice, a
    live key the live one (422 `biller_unavailable` while no supplier answers for that mode)."""
    return biller_api.change_invoice(merchant(), number, body)


@app.put(
    "/v1/biller/invoices/<number>/document",
    responses={200: {"description": "The invoice", "content": {"application/json": {"schema": {"type": "object"}}}}},
)
@requires("payments:write")
@errors("not_a_biller", "invoice_closed", "not_found", "invalid_request", "biller_unavailable")
def attach_biller_invoice_document(number: str) -> answers.BillerInvoice:
    """Attach an invoice's PDF (billers)

    The body is the PDF itself (`Content-Type: application/pdf`, at most 5 MB); it is kept with
    its SHA-256 and named on the invoice of the key's mode, replacing an earlier one. A cancelled
    or expired invoice is 409 `invoice_closed`."""
    event = app.current_event.raw_event
    return biller_api.attach_document(
        merchant(), number, content_type(event).split(";")[0].strip().lower(), raw_body(event)
    )


lambda_handler = gateway_handler(app)
