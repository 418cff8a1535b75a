"""Collection API: partners (the providers customers pay through), the card-scheme logo of a BIN,
and customers' payment methods."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.domain import partners
from mzpay.domain.collection_access import SIGNED_IN, guarded
from mzpay.entry import collection_app
from mzpay.http.collection_auth import caller
from mzpay.http.partner_schemas import CardBin, PaymentMethodIn, PaymentMethodStatus
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.collection import payment_methods
else:  # loaded when a request first needs it
    payment_methods = deferred("mzpay.collection.payment_methods")

app, routes = collection_app()
CUSTOMER_READ, CUSTOMER_WRITE = guarded("customer:read"), guarded("customer:write")


@routes.get("/v1/partners", SIGNED_IN)
def list_partners(type: Annotated[str | None, Query(max_length=32)] = None) -> dict[str, Any]:
    return {"object": "list", "data": partners.partners(type), "has_more": False}


@routes.get("/v1/partners/<partner_id>", SIGNED_IN)
def get_partner(partner_id: str) -> dict[str, Any]:
    return {"object": "partner", "partner": partners.partner(partner_id)}


@routes.post("/v1/partners/get-logo", SIGNED_IN)
def card_logo(body: Annotated[CardBin, Body()]) -> dict[str, Any]:
    return partners.card_logo(body.card_number)


@routes.post("/v1/customers/<customer_id>/payment_methods", CUSTOMER_WRITE)
def add_payment_method(customer_id: str, body: Annotated[PaymentMethodIn, Body()]) -> dict[str, Any]:
    return payment_methods.add(caller().account_id(), customer_id, body.partner_id, body.type, body.details, body.mode)


@routes.get("/v1/customers/<customer_id>/payment_methods", CUSTOMER_READ)
def list_payment_methods(customer_id: str) -> dict[str, Any]:
    return payment_methods.listed(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/payment_methods/<payment_method_id>", CUSTOMER_READ)
def get_payment_method(customer_id: str, payment_method_id: str) -> dict[str, Any]:
    return payment_methods.read(caller().account_id(), customer_id, payment_method_id)


@routes.post("/v1/customers/<customer_id>/payment_methods/<payment_method_id>/status", CUSTOMER_WRITE)
def set_payment_method_status(
    customer_id: str, payment_method_id: str, body: Annotated[PaymentMethodStatus, Body()]
) -> dict[str, Any]:
    return payment_methods.set_status(caller().account_id(), customer_id, payment_method_id, body.status)


lambda_handler = handler_for(app, routes.admit)
