"""Webhook sender: one signed POST per WebhookQueue message; a failed attempt comes back after
its backoff (partial batch response), the last one goes to WebhookDeadLetterQueue."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.observability import logger
from mzpay.webhooks import sender


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return sender.send_batch(event["Records"])
