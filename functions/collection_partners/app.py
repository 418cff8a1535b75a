"""Collection API: partners (the providers customers pay through), the card-scheme logo of a BIN,
and customers' payment methods."""

from typing import Annotated

from mzpay.answers.collection_partners import CardLogo, PartnerList, PartnerRead, PaymentMethodList, PaymentMethodResult
from mzpay.domain.collection.access import SIGNED_IN, active_business, guarded
from mzpay.domain.partners import catalogue as partners
from mzpay.entry import collection_app
from mzpay.http.collection_auth import caller
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query
from mzpay.http.partner_schemas import CardBin, PaymentMethodIn, PaymentMethodStatus
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import payment_methods

app, routes = collection_app()
CUSTOMER_READ, CUSTOMER_WRITE = guarded("customer:read"), active_business(guarded("customer:write"))


@routes.get("/v1/partners", SIGNED_IN)
def list_partners(type: Annotated[str | None, Query(max_length=32)] = None) -> PartnerList:
    """List partners

    The providers customers pay through (mobile money, banks, card schemes), each with the
    payment-method types it takes and the attributes of their forms; `type` keeps those taking it."""
    return PartnerList.of({"object": "list", "data": partners.partners(type), "has_more": False})


@routes.get("/v1/partners/<partner_id>", SIGNED_IN)
def get_partner(partner_id: str) -> PartnerRead:
    """Read a partner"""
    return PartnerRead.of({"object": "partner", "partner": partners.partner(partner_id)})


@routes.post("/v1/partners/get-logo", SIGNED_IN)
@errors("not_found")
def card_logo(body: Annotated[CardBin, Body()]) -> CardLogo:
    """Find a card scheme's logo by BIN

    Takes the card's first 6 to 8 digits (never a whole card number) and answers its scheme and
    the scheme's logo (base64 SVG); an unknown BIN is 404."""
    return CardLogo.of(partners.card_logo(body.card_number))


@routes.post("/v1/customers/<customer_id>/payment_methods", CUSTOMER_WRITE)
@errors("customer_not_found", "missing_field", "invalid_request")
def add_payment_method(customer_id: str, body: Annotated[PaymentMethodIn, Body()]) -> PaymentMethodResult:
    """Add a customer's payment method

    A mobile wallet, bank account or card (as the acquirer's token) of a partner, its `details`
    checked against the partner's form; a card number or security code is refused. In `mode` test
    its transactions run in the gateway's test mode."""
    return payment_methods.add(caller().account_id(), customer_id, body.partner_id, body.type, body.details, body.mode)


@routes.get("/v1/customers/<customer_id>/payment_methods", CUSTOMER_READ)
@errors("customer_not_found")
def list_payment_methods(customer_id: str) -> PaymentMethodList:
    """List a customer's payment methods

    Card details are masked."""
    return payment_methods.listed(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/payment_methods/<payment_method_id>", CUSTOMER_READ)
@errors("customer_not_found")
def get_payment_method(customer_id: str, payment_method_id: str) -> PaymentMethodResult:
    """Read a customer's payment method

    Card details are masked."""
    return payment_methods.read(caller().account_id(), customer_id, payment_method_id)


@routes.post("/v1/customers/<customer_id>/payment_methods/<payment_method_id>/status", CUSTOMER_WRITE)
@errors("customer_not_found")
def set_payment_method_status(
    customer_id: str, payment_method_id: str, body: Annotated[PaymentMethodStatus, Body()]
) -> PaymentMethodResult:
    """Activate or deactivate a customer's payment method

    `status` active or inactive; the same status again changes nothing."""
    return payment_methods.set_status(caller().account_id(), customer_id, payment_method_id, body.status)


lambda_handler = handler_for(app, routes.admit)
