"""The outbox dispatcher: new events (EventsTable stream, INSERT only) become webhook deliveries,
each with one message on WebhookQueue, and new settleable payouts one PayoutSettlementQueue
message. Records it could not handle are reported, and played again by the event source mapping."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay import payouts
from mzpay.observability import logger
from mzpay.webhooks import outbox

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def record_handler(record: DynamoDBRecord) -> None:
    # The event source mapping passes INSERTs only; a replayed or hand-made event may not.
    if record.event_name is DynamoDBRecordEventName.INSERT and record.dynamodb and record.dynamodb.new_image:
        outbox.dispatch(record.dynamodb.new_image)
        payouts.dispatch_settlement(record.dynamodb.new_image)


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
