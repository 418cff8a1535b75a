"""Notification sender: one NotificationQueue message is one email or SMS handed to the provider
(mzpay.cases.notifications.deliver). Messages that fail are reported and come back; past
maxReceiveCount they go to the DLQ."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.cases import notifications
from mzpay.observability import logger

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    logger.info("sent", notification_id=notifications.deliver(json.loads(record.body)))


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
