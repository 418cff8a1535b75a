"""Message events: SES's events about sent e-mails (delivered, bounced, complained, rejected),
published to the configuration set's SNS topic and queued on MessageEventsQueue, move the
messages' records and fill the suppression list (mzpay.cases.message_events)."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.cases import message_events
from mzpay.observability import logger

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    logger.info("message event", outcome=message_events.received(record.body))


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
