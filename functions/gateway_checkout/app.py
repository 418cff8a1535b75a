"""Gateway API: hosted checkout (POST /v1/payments, cancel), manual payments, the payer's page and
providers' callbacks."""

from typing import Annotated

from mzpay.answers.payments import PaymentSnapshot
from mzpay.answers.service import ProviderCallbackReceipt
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.evidence import EvidenceRequest
from mzpay.domain.payments.charges import CheckoutRequest
from mzpay.domain.payments.checkout_offer import PayerChoice
from mzpay.domain.payments.manual import ManualPaymentRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http import checkout_page, receipts
from mzpay.http.body import raw_body
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors, pages
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.request_id import header_value
from mzpay.http.resolver import created
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import checkout as hosted
    from mzpay.cases import manual_payments, provider_callbacks

app = gateway_app()
PAYMENT_REFUSALS = (  # of a new checkout or manual payment
    "invalid_amount",
    "invalid_currency",
    "invalid_callback_url",
    "invalid_return_url",
    "metadata_too_large",
    "metadata_value_too_large",
    "payment_id_reused",
)


@app.post("/v1/payments")
@requires("payments:write")
@idempotent(app)
@errors(*PAYMENT_REFUSALS, "unsupported_currency", "not_supported")
def create_checkout(body: Annotated[CheckoutRequest, Body()]) -> Response[PaymentSnapshot]:
    """Create a hosted checkout payment

    A payment the payer completes on the service's page: send them to `checkout_url`. Its
    outcome reaches `callback_url` as a webhook and the payer returns to `return_url`."""
    if body.payment_id is None:  # a retry with the same key after a fault names the same payment
        body = body.model_copy(update={"payment_id": derived_id("payment")})
    return created(hosted.create_checkout(merchant(), body, checkout_page.public_base_url(app.current_event)))


@app.post("/v1/payments/<payment_id>/cancel")
@requires("payments:write")
@idempotent(app)
@errors("invalid_state")
def cancel_payment(payment_id: str) -> PaymentSnapshot:
    """Cancel an unpaid payment

    A hosted checkout the payer has not paid, or a manual payment while it is pending."""
    return hosted.cancel(merchant(), payment_id)


@app.post("/v1/manual-payments")
@requires("payments:write")
@idempotent(app)
@errors(*PAYMENT_REFUSALS, "invalid_request")
def record_manual_payment(body: Annotated[ManualPaymentRequest, Body()]) -> Response[PaymentSnapshot]:
    """Record a manual payment

    Cash or a bank deposit the merchant received outside the providers, with its evidence (text
    and up to 3 files): `pending` until an operator confirms it (the money enters the balance)
    or rejects it."""
    if body.payment_id is None:  # a retry with the same key after a fault names the same payment
        body = body.model_copy(update={"payment_id": derived_id("payment")})
    return created(manual_payments.record(merchant(), body))


@app.put("/v1/payments/<payment_id>/evidence")
@requires("payments:write")
@errors("invalid_state", "invalid_request")
def change_manual_payment_evidence(payment_id: str, body: Annotated[EvidenceRequest, Body()]) -> PaymentSnapshot:
    """Replace a manual payment's evidence

    Only while it is pending: afterwards the evidence cannot change (409 invalid_state)."""
    return manual_payments.change_evidence(merchant(), payment_id, body)


@app.get("/checkout/<payment_id>")
@errors("not_found", "account_suspended")
@pages(200, 403, 404, 503)
@checkout_page.answers_pages(app)
def checkout(payment_id: str) -> Response[str]:
    """The payer's checkout page

    The hosted page a payer opens from `checkout_url` (HTML, for people): Portuguese, or English
    by `Accept-Language` or its switch (`?lang=en`); the ways to pay the checkout takes."""
    return checkout_page.page(hosted.checkout_view(payment_id), app.current_event)


@app.get("/checkout/<payment_id>/receipt")
@errors("not_found", "not_receiptable")
@pages(200, 404, 409, 503)
@checkout_page.answers_pages(app)
def checkout_receipt(payment_id: str) -> Response[str]:
    """The payer's receipt

    A printable page (HTML, for people) once money has moved: who was paid (with the merchant's
    legal name, NUIT, address and the IVA in the amount when its account has fiscal details), how
    much, how (masked), the provider's reference and the date in Maputo time. With
    `?format=pdf` (the page's download link), the same as an A5 PDF attachment."""
    answer, payment = hosted.checkout_receipt(payment_id)
    if receipts.wants_pdf_page(app.current_event):
        return receipts.receipt_pdf(answer.model_dump(), app.current_event)  # type: ignore[return-value]
    brand = hosted.brand_of(payment)  # the account's colour (its settings), if it chose one
    return receipts.receipt_page(answer.model_dump(), payment.checkout_url or "", app.current_event, brand)


@app.get("/checkout/<payment_id>/return")
@errors("not_found", "account_suspended")
@pages(303, 403, 404, 503)
@checkout_page.answers_pages(app)
def checkout_return(payment_id: str) -> Response[str]:
    """The payer is back from the provider's page

    Where a provider's page (PaySuite's card page) sends the payer back. What the return carries
    is never trusted: a live payment still waiting is asked of its provider, and moves only when
    the provider says it was paid; else it waits for the provider's signed callback. Answers 303
    to the checkout's page, which shows the outcome."""
    return checkout_page.see_other(hosted.payer_returned(payment_id), app.current_event, onward=False)


@app.post("/checkout/<payment_id>/pay")
@errors(
    "csrf_missing",
    "csrf_invalid",
    "invalid_state",
    "invalid_phone",
    "missing_phone",
    "invalid_card",
    "gateway.raw_card_data_not_accepted",
    "not_supported",
    "account_suspended",
)
@pages(303, 400, 403, 404, 409, 422, 503)
@checkout_page.answers_pages(app)
def checkout_pay(payment_id: str) -> Response[str]:
    """The payer pays on the checkout page

    The page's form post (HTML, for people; CSRF-protected): `network` and `phone_number` for a
    mobile wallet (national formats such as 84 123 4567 are taken), or `method` (card with
    `card_number` and `card_expiry` in test mode, reference, ussd, qr, bank_transfer). Answers
    303 to the page; a refusal shows the form again with why."""
    event = app.current_event
    fields = checkout_page.form(event)
    checkout_page.check_csrf(event, fields)
    choice = PayerChoice.from_form(fields)
    try:
        paid = hosted.pay_checkout(payment_id, choice)
    except ServiceError as refused:
        if not checkout_page.on_the_form(refused):
            raise
        return checkout_page.page(hosted.checkout_view(payment_id), event, refused.status, refused, choice)
    return checkout_page.see_other(paid, event)


@app.post("/checkout/<payment_id>/test/<outcome>")
@errors("csrf_missing", "csrf_invalid", "live_payment", "invalid_state", "account_suspended")
@pages(303, 403, 404, 409, 503)
@checkout_page.answers_pages(app)
def checkout_test_action(payment_id: str, outcome: str) -> Response[str]:
    """A test-mode outcome from the checkout page's toolbar

    Succeeds or fails a test payment from the page as its payer would (HTML; CSRF-protected;
    refused on live); answers 303 to the page."""
    event = app.current_event
    checkout_page.check_csrf(event, checkout_page.form(event))
    try:
        done = hosted.test_action(payment_id, outcome)
    except ServiceError as refused:
        if refused.code != "invalid_state":
            raise
        return checkout_page.page(hosted.checkout_view(payment_id), event, refused.status, refused)
    return checkout_page.see_other(done, event)


@app.post("/callbacks/<provider>")
@errors("not_found", "invalid_signature", "service_unavailable")
def provider_callback(provider: str) -> ProviderCallbackReceipt:
    """Receive a provider's callback

    A live provider (PaySuite) posts a charge's outcome here, signed over its raw body
    (`X-Webhook-Signature`: hex HMAC-SHA256 with the binding's webhook secret). The payment
    named by its reference takes the outcome once; a duplicate or a replay changes nothing
    (`applied` false); a bad signature is 401 and an unknown reference 404, and neither changes
    anything."""
    event = app.current_event.raw_event
    return provider_callbacks.receive(provider, raw_body(event), header_value(event, "X-Webhook-Signature"))


lambda_handler = gateway_handler(app)
