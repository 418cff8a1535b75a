"""Notification sender: one NotificationQueue message is one email or SMS handed to the provider
(mzpay.cases.notifications.deliver). Messages that fail are reported and come back; past
maxReceiveCount they go to the DLQ. An SMS held by the quiet hours comes back when they end (its
visibility changed to then: docs/notifications.md, "Respectful and safe"). A throttle from SES or
SNS slows the sender: the message comes back after a delay that grows with its receive count
(`throttle_delay`), not at once."""

import json
import random
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.common import clock
from mzpay.observability import logger
from mzpay.ports.messaging import Throttled
from mzpay.steps import courtesy

processor = BatchProcessor(event_type=EventType.SQS)

THROTTLE_BASE_SECONDS = 60  # the first wait after a throttle; each receive waits 4 times longer
THROTTLE_MAX_SECONDS = 43_200  # SQS's longest visibility timeout (12 h)


def throttle_delay(receive_count: int) -> int:
    """Seconds a throttled message waits before it comes back: 60 s after its first receive, then
    4 times longer each time (60, 240, 960, 3840 s: 85 minutes over NotificationQueue's 5
    receives), with jitter over the upper half so that a throttled batch does not come back at
    once."""
    ceiling = min(THROTTLE_MAX_SECONDS, THROTTLE_BASE_SECONDS * 4 ** max(0, receive_count - 1))
    return random.randint(ceiling // 2, ceiling)


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    message = json.loads(record.body)
    try:
        logger.info("sent", notification_id=notifications.deliver(message))
    except courtesy.Deferred as held:
        wait = int((held.not_before - clock.now()).total_seconds()) + 1
        deps.notification_queue().come_back_in(record.receipt_handle, wait)
        logger.info("deferred", reason=str(held), seconds=wait)
        raise  # reported as failed: SQS keeps it, hidden until then
    except Throttled as throttled:
        delay = throttle_delay(int(record.attributes.approximate_receive_count or 1))
        deps.notification_queue().come_back_in(record.receipt_handle, delay)
        logger.warning("throttled: the message comes back later", code=str(throttled), delay_seconds=delay)
        raise


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
