"""Gateway API: hosted checkout (POST /v1/payments, cancel) and the payer's page."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.charges import CheckoutRequest
from mzpay.domain.errors import ServiceError
from mzpay.entry import gateway_handler
from mzpay.http import checkout_page
from mzpay.http.errors import Surface
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors, pages
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver, created
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import checkout as hosted
else:  # each route's use case is loaded when a request first needs it
    hosted = deferred("mzpay.cases.checkout")

app = create_resolver(Surface.GATEWAY)


@app.post("/v1/payments")
@requires("payments:write")
@idempotent(app)
@errors(
    "invalid_amount",
    "invalid_currency",
    "invalid_callback_url",
    "invalid_return_url",
    "metadata_too_large",
    "metadata_value_too_large",
    "payment_id_reused",
    "unsupported_currency",
    "not_supported",
)
def create_checkout(body: Annotated[CheckoutRequest, Body()]) -> Response[dict[str, Any]]:
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
def cancel_payment(payment_id: str) -> dict[str, Any]:
    """Cancel an unpaid hosted checkout payment"""
    return hosted.cancel(merchant(), payment_id)


@app.get("/checkout/<payment_id>")
@pages(200)
def checkout(payment_id: str) -> Response[str]:
    """The payer's checkout page

    The hosted page a payer opens from `checkout_url` (HTML, for people)."""
    return checkout_page.page(hosted.checkout_payment(payment_id))


@app.post("/checkout/<payment_id>/pay")
@errors("csrf_missing", "csrf_invalid", "invalid_state", "invalid_phone", "missing_phone", "not_supported")
@pages(200, 400, 422)
def checkout_pay(payment_id: str) -> Response[str]:
    """The payer pays on the checkout page

    The page's form post (HTML, for people; CSRF-protected)."""
    fields = checkout_page.form(app.current_event)
    checkout_page.check_csrf(app.current_event, fields)
    try:
        paid = hosted.pay_checkout(payment_id, fields.get("network", ""), fields.get("phone_number", ""))
    except ServiceError as refused:
        if refused.status >= 500 or refused.code in ("not_found", "invalid_state"):
            raise
        return checkout_page.page(hosted.checkout_payment(payment_id), refused.status, refused.message)
    return checkout_page.page(paid)


@app.post("/checkout/<payment_id>/test/<outcome>")
@errors("csrf_missing", "csrf_invalid", "live_payment", "invalid_state")
@pages(200)
def checkout_test_action(payment_id: str, outcome: str) -> Response[str]:
    """A test-mode outcome from the checkout page's toolbar

    Succeeds or fails a test payment from the page (HTML; CSRF-protected; refused on live)."""
    fields = checkout_page.form(app.current_event)
    checkout_page.check_csrf(app.current_event, fields)
    return checkout_page.page(hosted.test_action(payment_id, outcome))


lambda_handler = gateway_handler(app)
