"""Collection API: collection methods, collection requests, the payer's unsecured reads (kulpay)
and the payment link that leads a payer to the hosted checkout."""

from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.domain.collection_access import RouteAccess, guarded
from mzpay.domain.errors import ServiceError
from mzpay.entry import collection_app
from mzpay.http import payment_link_page
from mzpay.http.collection_auth import caller
from mzpay.http.collection_request_schemas import (
    CollectionMethodIn,
    CollectionRequestChange,
    CollectionRequestIn,
    StatusIn,
)
from mzpay.http.public_urls import public_url
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.collection import collection_methods, collection_requests, payment_links
else:  # each route's use case is loaded when a request first needs it
    collection_methods = deferred("mzpay.collection.collection_methods")
    collection_requests = deferred("mzpay.collection.collection_requests")
    payment_links = deferred("mzpay.collection.payment_links")

app, routes = collection_app()
REQUEST_READ, REQUEST_WRITE = guarded("collection_request:read"), guarded("collection_request:write")
METHOD_READ, METHOD_WRITE = guarded("collection_method:read"), guarded("collection_method:write")
PAYER = RouteAccess(token=False)  # the payer's app and browser: no token, throttled per address
PageSize = Annotated[int, Query(ge=1, le=100)]
PageToken = Annotated[str | None, Query(max_length=1024)]


def _link_base() -> str:
    return public_url(app.current_event, "PUBLIC_COLLECTION_URL")


@routes.post("/v1/collection-methods", METHOD_WRITE)
def add_collection_method(body: Annotated[CollectionMethodIn, Body()]) -> dict[str, Any]:
    return collection_methods.add(caller().account_id(), body.type, body.name, body.mode)


@routes.get("/v1/collection-methods", METHOD_READ)
def list_collection_methods() -> dict[str, Any]:
    return collection_methods.listed(caller().account_id())


@routes.get("/v1/collection-methods/<method_id>", METHOD_READ)
def get_collection_method(method_id: str) -> dict[str, Any]:
    return collection_methods.read(caller().account_id(), method_id)


@routes.post("/v1/collection-methods/<method_id>/status", METHOD_WRITE)
def set_collection_method_status(method_id: str, body: Annotated[StatusIn, Body()]) -> dict[str, Any]:
    return collection_methods.set_status(caller().account_id(), method_id, body.status)


@routes.post("/v1/collection-requests", REQUEST_WRITE)
def create_collection_request(body: Annotated[CollectionRequestIn, Body()]) -> dict[str, Any]:
    identity = caller()
    return collection_requests.create(identity.account_id(), identity.signed_in().subject, body.fields(), _link_base())


@routes.get("/v1/collection-requests", REQUEST_READ)
def list_collection_requests(page_size: PageSize = 50, page_token: PageToken = None) -> dict[str, Any]:
    return collection_requests.listed(caller().account_id(), page_size, page_token)


@routes.get("/v1/collection-requests/<request_id>", REQUEST_READ)
def get_collection_request(request_id: str) -> dict[str, Any]:
    return collection_requests.read(caller().account_id(), request_id)


@routes.put("/v1/collection-requests/<request_id>", REQUEST_WRITE)
def change_collection_request(request_id: str, body: Annotated[CollectionRequestChange, Body()]) -> dict[str, Any]:
    identity = caller()
    return collection_requests.update(identity.account_id(), identity.signed_in().subject, request_id, body.fields())


@routes.delete("/v1/collection-requests/<request_id>", REQUEST_WRITE)
def delete_collection_request(request_id: str) -> dict[str, Any]:
    identity = caller()
    return collection_requests.delete(identity.account_id(), identity.signed_in().subject, request_id)


@routes.get("/v1/kulpay/collection-requests/list-by-phone-number/<phone_number>", PAYER)
def list_by_phone(phone_number: str, page_size: PageSize = 50, page_token: PageToken = None) -> dict[str, Any]:
    return collection_requests.by_phone(unquote(phone_number), page_size, page_token)


@routes.get("/v1/kulpay/collection-requests/get-request/<request_id>", PAYER)
def get_request_for_payer(request_id: str) -> dict[str, Any]:
    return collection_requests.public_read(request_id)


@routes.get("/pay/<request_id>", PAYER)
def payment_link(request_id: str) -> Response[str]:
    try:
        destination = payment_links.open_link(request_id, public_url(app.current_event, "PUBLIC_GATEWAY_URL"))
    except ServiceError as refused:
        if refused.code != "not_found":
            raise
        return payment_link_page.page("not_found")
    if destination.checkout_url:
        return payment_link_page.redirect(destination.checkout_url)
    request = destination.request
    return payment_link_page.page(
        destination.state, request.biller.get("business_name"), request.invoice_metadata.get("invoice_number")
    )


lambda_handler = handler_for(app, routes.admit)
