"""Management API: webhook deliveries and dispatch failures, notification dead letters, the
message suppression list."""

from typing import Annotated

from mzpay.answers.dispatch_failures import WebhookDispatchFailureList, WebhookDispatchReplay
from mzpay.answers.messages import MessageSuppression, NotificationDeadLetterReplay
from mzpay.answers.webhook_deliveries import WebhookDelivery, WebhookDeliveryList
from mzpay.domain.webhooks.rules import DeliveryStatus
from mzpay.entry import management_app
from mzpay.http.marks import errors
from mzpay.http.params import Query, Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.http.resolver import to_response
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.operators import dispatch_failures, message_suppressions, notification_dead_letters, webhook_deliveries

app = management_app()


@app.get("/v1/webhook-deliveries/<delivery_id>")
def get_webhook_delivery(delivery_id: str) -> WebhookDelivery:
    """Read a webhook delivery

    With every attempt, oldest first."""
    return webhook_deliveries.delivery(delivery_id)


@app.get("/v1/accounts/<account_id>/webhook-deliveries")
@errors("wrong_region")
def list_webhook_deliveries(
    account_id: str,
    status: Annotated[DeliveryStatus | None, Query()] = None,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> WebhookDeliveryList:
    """List an account's webhook deliveries

    Newest first, optionally of one `status`; cursor pagination."""
    return webhook_deliveries.account_deliveries(account_id, status, page_size, page_token)


@app.post("/v1/webhook-deliveries/<delivery_id>/replay")
@errors("invalid_state")
def replay_webhook_delivery(delivery_id: str) -> Response[WebhookDelivery]:
    """Replay a webhook delivery

    Queues a failed delivery again, in a new round of attempts (answered 202). Only a failed
    delivery can be replayed."""
    return to_response(webhook_deliveries.replay(delivery_id), 202)


@app.get("/v1/webhook-dispatch-failures")
def list_webhook_dispatch_failures(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> WebhookDispatchFailureList:
    """List webhook dispatch failures

    Up to `limit` messages the webhook dispatcher could not dispatch, oldest first (they stay
    queued)."""
    return dispatch_failures.failures(limit)


@app.post("/v1/webhook-dispatch-failures/<message_id>/replay")
@errors("invalid_state")
def replay_webhook_dispatch_failure(message_id: str) -> WebhookDispatchReplay:
    """Replay a webhook dispatch failure

    Dispatches the events of one message again; the message leaves the queue once nothing more can
    be done for them."""
    return dispatch_failures.replay(message_id)


@app.post("/v1/notification-dead-letters/replay")
def replay_notification_dead_letters(
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> NotificationDeadLetterReplay:
    """Replay notification dead letters

    Puts up to `limit` messages of NotificationDeadLetterQueue (e-mails and SMS the sender gave up
    on) back on NotificationQueue. A message already sent, suppressed or failed is not sent again."""
    return notification_dead_letters.replay(limit)


@app.get("/v1/message-suppressions/<channel>/<address>")
def get_message_suppression(channel: str, address: str) -> MessageSuppression:
    """Read a suppressed address

    Whether the region's suppression list has the e-mail address or phone number (channel email
    or sms), and why; 404 when it has not."""
    return message_suppressions.suppression(channel, address)


@app.delete("/v1/message-suppressions/<channel>/<address>")
def remove_message_suppression(channel: str, address: str) -> MessageSuppression:
    """Take an address off the suppression list

    Messages to it are sent again; the answer is what the list said. SES's own account-level
    list is separate (docs/notifications.md, Suppression)."""
    return message_suppressions.remove(channel, address)


lambda_handler = handler_for(app)
