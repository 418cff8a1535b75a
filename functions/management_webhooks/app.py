"""Management API: webhook deliveries and dispatch failures."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from mzpay.domain.webhooks import DeliveryStatus
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, to_response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import dispatch_failures, webhook_deliveries
else:  # each route's use case is loaded when a request first needs it
    dispatch_failures = deferred("mzpay.cases.dispatch_failures")
    webhook_deliveries = deferred("mzpay.cases.webhook_deliveries")

app = create_resolver(Surface.MANAGEMENT)


@app.get("/v1/webhook-deliveries/<delivery_id>")
def get_webhook_delivery(delivery_id: str) -> dict[str, Any]:
    return webhook_deliveries.delivery(delivery_id)


@app.get("/v1/accounts/<account_id>/webhook-deliveries")
def list_webhook_deliveries(
    account_id: str,
    status: Annotated[DeliveryStatus | None, Query()] = None,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> dict[str, Any]:
    return webhook_deliveries.account_deliveries(account_id, status, page_size, page_token)


@app.post("/v1/webhook-deliveries/<delivery_id>/replay")
def replay_webhook_delivery(delivery_id: str) -> Response[dict[str, Any]]:
    return to_response(webhook_deliveries.replay(delivery_id), 202)


@app.get("/v1/webhook-dispatch-failures")
def list_webhook_dispatch_failures(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> dict[str, Any]:
    return dispatch_failures.failures(limit)


@app.post("/v1/webhook-dispatch-failures/<message_id>/replay")
def replay_webhook_dispatch_failure(message_id: str) -> dict[str, Any]:
    return dispatch_failures.replay(message_id)


lambda_handler = handler_for(app)
