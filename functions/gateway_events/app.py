"""Gateway API: events and the webhook signature check."""

from typing import Annotated

from mzpay.answers.events import Event, EventList, WebhookVerification
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.marks import errors
from mzpay.http.params import Query, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import dumps, to_response
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import events

app = gateway_app()


@app.get("/v1/events")
@requires("events:read")
def list_events(
    limit: Annotated[str | None, Query(description="Events per page, 1 to 100 (20 by default).")] = None,
    starting_after: Annotated[str | None, Query(description="The next_cursor of the previous page.")] = None,
    event_type: Annotated[
        str | None, Query(alias="type", description="Only events of this type, e.g. payment.succeeded.")
    ] = None,
    resource_id: Annotated[str | None, Query(description="Only events of this resource.")] = None,
) -> EventList:
    """List the account's events

    Newest first, in the key's mode: the same envelopes the webhooks carry. Page with
    `starting_after`; filter by `type` or `resource_id`."""
    return events.list_events(merchant(), limit, starting_after, event_type, resource_id)


@app.get("/v1/events/<event_id>")
@requires("events:read")
def read_event(event_id: str) -> Event:
    """Read an event"""
    return events.read_event(merchant(), event_id)


@app.post("/v1/admin/webhooks/verify")
@errors("signature_invalid", "signature_timestamp_outside_tolerance", shape="SignatureRefusal")
def verify_webhook_signature() -> Response[WebhookVerification]:
    """Check a webhook's signature

    Send a delivery's raw body and its `Service-Signature` header: answered with the time it
    was signed when one of the account's secrets verifies it, else 401 `{error, message, t}`."""
    request = app.current_event
    try:
        answer = events.verify_signature(
            merchant(),
            request.headers.get("Service-Signature") or request.headers.get("service-signature"),
            (request.decoded_body or "").encode(),
        )
    except events.SignatureRefused as refused:
        return Response(401, "application/json", dumps(refused.body()))  # the SignatureRefusal shape
    return to_response(answer)


lambda_handler = gateway_handler(app)
