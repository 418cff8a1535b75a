"""Notification sender: one NotificationQueue message is one email or SMS handed to the provider
(mzpay.cases.notifications.deliver). Messages that fail are reported and come back; past
maxReceiveCount they go to the DLQ. An SMS held by the quiet hours comes back when they end (its
visibility changed to then: docs/notifications.md, "Quiet hours")."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.common import clock
from mzpay.observability import logger
from mzpay.steps import courtesy

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    try:
        logger.info("sent", notification_id=notifications.deliver(json.loads(record.body)))
    except courtesy.Deferred as held:
        wait = int((held.not_before - clock.now()).total_seconds()) + 1
        deps.notification_queue().come_back_in(record.receipt_handle, wait)
        logger.info("deferred", reason=str(held), seconds=wait)
        raise  # reported as failed: SQS keeps it, hidden until then


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
