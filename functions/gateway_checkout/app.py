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
def create_checkout(body: Annotated[CheckoutRequest, Body()]) -> Response[dict[str, Any]]:
    if body.payment_id is None:  # a retry with the same key after a fault names the same payment
        body = body.model_copy(update={"payment_id": derived_id("payment")})
    return created(hosted.create_checkout(merchant(), body, checkout_page.public_base_url(app.current_event)))


@app.post("/v1/payments/<payment_id>/cancel")
@requires("payments:write")
@idempotent(app)
def cancel_payment(payment_id: str) -> dict[str, Any]:
    return hosted.cancel(merchant(), payment_id)


@app.get("/checkout/<payment_id>")
def checkout(payment_id: str) -> Response[str]:
    return checkout_page.page(hosted.checkout_payment(payment_id))


@app.post("/checkout/<payment_id>/pay")
def checkout_pay(payment_id: str) -> Response[str]:
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
def checkout_test_action(payment_id: str, outcome: str) -> Response[str]:
    fields = checkout_page.form(app.current_event)
    checkout_page.check_csrf(app.current_event, fields)
    return checkout_page.page(hosted.test_action(payment_id, outcome))


lambda_handler = gateway_handler(app)
