"""The outbox's share of reports: a new report.created event sends one message to ReportQueue,
where the report builder writes the report's file (docs/reports.md)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.common.ids import is_ulid
from mzpay.domain.money.reports import CREATED_EVENT
from mzpay.store.reports import queue_report


def dispatch_report(image: dict[str, Any]) -> bool:
    """Queue the building of a new report (a duplicate message is harmless: the builder does
    nothing for a report that is no longer pending)."""
    if image.get("type") != CREATED_EVENT:
        return False
    account_id, mode, report_id = image.get("account_id"), image.get("mode"), image.get("resource_id")
    if not (is_ulid(account_id) and mode in ("test", "live") and is_ulid(report_id)):
        from mzpay.webhooks.outbox import PoisonRecord

        raise PoisonRecord("malformed_event", "a report event without its account, mode or report")
    queue_report(str(account_id), str(mode), str(report_id))
    return True
