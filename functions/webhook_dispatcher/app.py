"""The outbox dispatcher: new events (EventsTable stream, INSERT only) become webhook deliveries,
each with one message on WebhookQueue, and new settleable payouts one PayoutSettlementQueue
message. A record that can never succeed (malformed, over the delivery bounds, refused by
DynamoDB or SQS as it is) is skipped into WebhookDispatchFailureQueue (alarmed) instead of
blocking its shard; a transient fault fails the record (partial batch response), which the
event source mapping plays again (bisecting a failed batch, bounded, then its on-failure
destination: the same queue). See docs/webhooks.md, "Poison records"."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.fanout import stream
from mzpay.observability import correlate, logger

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def _stream(record: DynamoDBRecord) -> dict[str, Any]:
    raw = record.raw_event
    return {
        "event_source_arn": raw.get("eventSourceARN"),
        "event_id": raw.get("eventID"),
        "sequence_number": (raw.get("dynamodb") or {}).get("SequenceNumber"),
    }


def record_handler(record: DynamoDBRecord) -> None:
    # The event source mapping passes INSERTs only; a replayed or hand-made event may not.
    if record.event_name is not DynamoDBRecordEventName.INSERT or not record.dynamodb:
        return
    correlate(str(record.event_id))  # the stream record; the event's own id is in every line it logs
    try:
        image = record.dynamodb.new_image
    except Exception as exc:  # an image that does not deserialise never will
        stream.skip(None, stream.Skip("webhook", "malformed_image", repr(exc)[:200]), _stream(record))
        return
    if not image:
        return
    for skipped in stream.dispatch_event(image).skipped:
        stream.skip(image, skipped, _stream(record))


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
