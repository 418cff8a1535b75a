"""Payout settlement: one PayoutSettlementQueue message settles one payout (see mzpay.payouts.settle)
or sends one released payout batch (mzpay.cases.payout_batches.send). Messages that fail are
reported and come back; past maxReceiveCount they go to the DLQ."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay.cases import payout_batches, payouts
from mzpay.observability import correlate, logger

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    message = json.loads(record.body)
    if "payout_batch_id" in message:
        batch_id = message["payout_batch_id"]
        correlate(batch_id)
        remaining = lambda_context.get_remaining_time_in_millis() / 1000 if lambda_context else None
        logger.info("send batch", payout_batch_id=batch_id, outcome=payout_batches.send(batch_id, remaining))
        return
    provider_payout_id = message["provider_payout_id"]
    correlate(provider_payout_id)
    logger.info("settle", provider_payout_id=provider_payout_id, outcome=payouts.settle(provider_payout_id))


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
