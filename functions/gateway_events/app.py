"""Gateway API: events and the webhook signature check."""

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import Response

from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import events
else:  # each route's use case is loaded when a request first needs it
    events = deferred("mzpay.cases.events")

app = create_resolver(Surface.GATEWAY)


@app.get("/v1/events")
@requires("events:read")
def list_events() -> dict[str, Any]:
    query = app.current_event.query_string_parameters or {}
    return events.list_events(
        merchant(), query.get("limit"), query.get("starting_after"), query.get("type"), query.get("resource_id")
    )


@app.get("/v1/events/<event_id>")
@requires("events:read")
def read_event(event_id: str) -> dict[str, Any]:
    return events.read_event(merchant(), event_id)


@app.post("/v1/admin/webhooks/verify")
def verify_webhook_signature() -> Response[dict[str, Any]]:
    request = app.current_event
    try:
        answer = events.verify_signature(
            merchant(),
            request.headers.get("Service-Signature") or request.headers.get("service-signature"),
            (request.decoded_body or "").encode(),
        )
    except events.SignatureRefused as refused:
        return Response(401, "application/json", refused.body())
    return Response(200, "application/json", answer)


lambda_handler = gateway_handler(app)
