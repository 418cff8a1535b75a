"""DueDateSweepFunction: once a day (08:00 in Maputo), queue the reminders before a collection
request's due date and the overdue notices after it that were not sent yet (mzpay.cases.due_dates).
An operator may sweep a given day again: invoke it with {"day": "YYYY-MM-DD"}."""

from dataclasses import asdict
from typing import Any

from mzpay.cases import due_dates
from mzpay.domain.common.clock import now
from mzpay.observability import logger


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    day = event.get("day") if isinstance(event, dict) else None
    swept = asdict(due_dates.sweep(now(), str(day) if day else None))
    if swept["reminders"] or swept["overdue"]:  # a sweep that queued nothing says nothing
        logger.info("due-date sweep", extra=swept)
    return swept
