"""Gateway API: methods, charges (create, capture, void, complete-action) and payment reads."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.charges import ChargeRequest
from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.gateway_schemas import Capture, CompleteAction
from mzpay.http.idempotency import idempotent
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import charges
else:  # each route's use case is loaded when a request first needs it
    charges = deferred("mzpay.cases.charges")

app = create_resolver(Surface.GATEWAY)


@app.get("/methods")
def list_methods() -> dict[str, Any]:
    merchant()
    return charges.methods()


@app.post("/charges")
@requires("payments:write")
@idempotent(app)
def create_charge(body: Annotated[ChargeRequest, Body()]) -> dict[str, Any]:
    return charges.create_charge(merchant(), body)


@app.post("/charges/<payment_id>/capture")
@requires("payments:write")
@idempotent(app)
def capture_charge(payment_id: str, body: Annotated[Capture | None, Body()] = None) -> dict[str, Any]:
    money = (body or Capture()).amount
    return charges.capture(merchant(), payment_id, money.amount if money else None, money.currency if money else None)


@app.post("/charges/<payment_id>/void")
@requires("payments:write")
@idempotent(app)
def void_charge(payment_id: str) -> dict[str, Any]:
    return charges.void(merchant(), payment_id)


@app.post("/charges/<payment_id>/complete-action")
@requires("payments:write")
def complete_action(payment_id: str, body: Annotated[CompleteAction | None, Body()] = None) -> dict[str, Any]:
    step = body or CompleteAction()
    return charges.complete_action(merchant(), payment_id, step.otp, step.amount)


@app.get("/payments/<payment_id>")
@app.get("/v1/payments/<payment_id>")
@requires("payments:read")
def read_payment(payment_id: str) -> dict[str, Any]:
    return charges.read_payment(merchant(), payment_id)


lambda_handler = gateway_handler(app)
