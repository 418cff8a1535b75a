"""Gateway API: methods, charges (create, capture, void, complete-action) and payment reads."""

from typing import Annotated

from mzpay.answers.payments import ChargeResult, MethodList, PaymentList, PaymentSnapshot
from mzpay.answers.receipts import Receipt
from mzpay.domain.payments.charges import ChargeRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http import receipts
from mzpay.http.gateway_schemas import Capture, CompleteAction
from mzpay.http.idempotency import idempotent
from mzpay.http.marks import errors, filters
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import to_response
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import charges, listings

app = gateway_app()


@app.get("/methods")
def list_methods() -> MethodList:
    """List the payment methods and their currencies

    What a charge's `source` may be on this account: mobile wallets (M-Pesa, e-Mola, mKesh),
    cards as acquirer tokens, and the other methods, with the currencies each accepts."""
    merchant()
    return charges.methods()


@app.post("/charges")
@requires("payments:write")
@idempotent(app)
@errors(
    "gateway.raw_card_data_not_accepted",
    "invalid_amount",
    "invalid_currency",
    "invalid_phone",
    "missing_phone",
    "amount_too_low",
    "amount_too_high",
    "unsupported_currency",
    "invalid_card",
    "invalid_card_token",
    "invalid_callback_url",
    "invalid_return_url",
    "metadata_too_large",
    "metadata_value_too_large",
    "customer_not_allowed",
    "payment_id_reused",
    "no_connector_binding",
    "not_supported",
    "limit_exceeded",
    "risk_declined",
    "pilot_limit",
    "no_route",
)
def create_charge(body: Annotated[ChargeRequest, Body()]) -> ChargeResult:
    """Create a charge

    Takes money from a mobile wallet or a card (as an acquirer token). Inspect `status` and
    `next_action`: a wallet charge usually waits for the payer to approve on their phone
    (`requires_action`, `poll`), then reaches `succeeded` or `failed` and its webhook is posted to
    `callback_url`. Refusals before any provider call (422) create no payment."""
    return charges.create_charge(merchant(), body)


@app.post("/charges/<payment_id>/capture")
@requires("payments:write")
@idempotent(app)
@errors("invalid_amount", "invalid_currency", "invalid_state")
def capture_charge(payment_id: str, body: Annotated[Capture | None, Body()] = None) -> ChargeResult:
    """Capture an authorised charge

    All of it, or `amount` of it (a partial capture releases the rest)."""
    money = (body or Capture()).amount
    return charges.capture(merchant(), payment_id, money.amount if money else None, money.currency if money else None)


@app.post("/charges/<payment_id>/void")
@requires("payments:write")
@idempotent(app)
@errors("invalid_state")
def void_charge(payment_id: str) -> ChargeResult:
    """Void an authorised charge

    Releases the held funds; the payment ends `canceled`."""
    return charges.void(merchant(), payment_id)


@app.post("/charges/<payment_id>/complete-action")
@requires("payments:write")
@errors("missing_otp", "invalid_otp", "invalid_amount", "invalid_request", "invalid_state")
def complete_action(payment_id: str, body: Annotated[CompleteAction | None, Body()] = None) -> ChargeResult:
    """Tell the service the payer finished a step

    The step `next_action` asked for: an OTP (`otp`), an open amount the payer chose
    (`amount`), a redirect or a prompt. In test mode this approves at once."""
    step = body or CompleteAction()
    return charges.complete_action(merchant(), payment_id, step.otp, step.amount)


@app.get("/v1/payments")
@requires("payments:read")
@errors("invalid_request")
@filters("payments")
def list_payments() -> PaymentList:
    """List payments

    The account's payments in the key's mode, newest first, by the filters below (docs/lists.md);
    `payment_id` finds the payment you created with your own id."""
    return listings.payments(merchant(), app.current_event.query_string_parameters or {})


@app.get("/payments/<payment_id>")
@app.get("/v1/payments/<payment_id>")
@requires("payments:read")
def read_payment(payment_id: str) -> PaymentSnapshot:
    """Read a payment

    Its current state: poll it while `next_action.type` is `poll`, or read it to reconcile
    after a missed webhook."""
    return charges.read_payment(merchant(), payment_id)


@app.get("/v1/payments/<payment_id>/receipt")
@requires("payments:read")
@errors("not_receiptable")
def read_receipt(payment_id: str) -> Response[Receipt]:
    """A payment's receipt

    Once money has moved: the merchant, the amount, what was refunded so far, the method
    (masked), the provider's reference and the date (UTC and Maputo time). As JSON, or as a PDF
    with `Accept: application/pdf` (in Portuguese, or English by `Accept-Language`)."""
    answer = charges.read_receipt(merchant(), payment_id)
    return (
        receipts.receipt_pdf(answer.model_dump(), app.current_event)
        if receipts.wants_pdf(app.current_event)
        else to_response(answer)
    )


lambda_handler = gateway_handler(app)
