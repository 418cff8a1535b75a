"""Report builder: one ReportQueue message builds one report's CSV into the reports bucket
(mzpay.cases.report_builder.build). A message whose report is built already does nothing; a
fault of AWS is reported and the message comes back, until its last receive marks the report
failed (docs/reports.md)."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.cases import report_builder
from mzpay.observability import correlate, logger

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    try:
        message = json.loads(record.body)
    except ValueError:
        message = None
    if isinstance(message, dict) and isinstance(message.get("report_id"), str):
        correlate(message["report_id"])
    receives = int(record.attributes.approximate_receive_count or 1)
    logger.info("report", outcome=report_builder.build(message, receives))


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
