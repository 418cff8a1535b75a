"""The report builder (ReportBuilderFunction, one ReportQueue message per report): the report's
CSV written to a spooled temporary file row by row (memory holds at most SPOOL_BYTES of it, the
rest is on the function's disk), uploaded to the reports bucket, then the report marked succeeded
with report.succeeded in one conditional transaction; a report that cannot be built is marked
failed with report.failed. A message delivered again finds the report no longer pending and does
nothing, so a report is built and announced once (docs/reports.md)."""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import IO, Any

from mzpay import deps
from mzpay.domain.common.clock import iso
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.common.listing import Filters
from mzpay.domain.money.reports import (
    BALANCE_SUMMARY,
    COLUMNS,
    FAILED_EVENT,
    PAYMENTS,
    SUCCEEDED_EVENT,
    Report,
    Status,
    Summary,
    file_name,
    local_time,
    money,
    transaction_row,
    view,
)
from mzpay.domain.money.transactions import BalanceTransaction, describe
from mzpay.domain.payments.rules import Payment
from mzpay.domain.webhooks.events import new_event
from mzpay.observability import logger
from mzpay.steps.listings import every_payment
from mzpay.store.aws import is_dependency_fault
from mzpay.store.list_keys import LISTED
from mzpay.store.listings import Scope
from mzpay.store.reports import Finished, file_key, keep_file

SPOOL_BYTES = 4 * 1024 * 1024  # past this the file is on disk (/tmp), never whole in memory
MAX_RECEIVES = 3  # = ReportQueue's maxReceiveCount: the last attempt marks the report failed
BEGINNING = "2000-01-01T00:00:00Z"  # before any ledger entry of the service
FEES = ("provider_fee", "service_fee")  # a payment's fees of its capture, where recorded (docs/pricing.md)


def _currencies(report: Report) -> list[str]:
    return sorted(str(b["currency"]) for b in deps.ledger().balances(report.account_id, report.mode))


def _entries(report: Report, currency: str, start: str, end: str) -> Iterator[BalanceTransaction]:
    for item in deps.ledger().entries_between(report.account_id, report.mode, currency, start, end):
        yield describe(item)


def payment_row(payment: Payment, zone: tzinfo) -> list[str]:
    """One payment as a row of the payments report: its money (captured, refunded, charged back,
    the fees of its capture when recorded, the net left) and where it came from."""
    listed = LISTED[Payment]
    at = local_time(payment.created_at, zone)
    currency = payment.currency
    fees = [Decimal(str(fee)) for fee in (getattr(payment, name, None) for name in FEES) if fee is not None]
    fee = sum(fees, Decimal(0))
    captured = Decimal(payment.captured_amount)
    net = captured - payment.refunded_amount - payment.charged_back_amount - fee
    return [
        payment.provider_payment_id,
        payment.payment_id,
        at.isoformat(timespec="seconds"),
        at.date().isoformat(),
        payment.status,
        listed.method(payment) or "",
        listed.network(payment) or "",
        currency,
        money(payment.value, currency),
        money(captured, currency),
        money(payment.refunded_amount, currency),
        money(payment.charged_back_amount, currency),
        money(fee, currency) if fees else "",
        money(net, currency),
        payment.customer_id or "",
        payment.collection_request_id or "",
    ]


def _payments(report: Report) -> Iterator[Payment]:
    """The account's payments made in the interval, newest first, a page at a time."""
    filters = Filters(created_gte=report.interval_start, created_lt=report.interval_end)
    return every_payment(Scope(report.account_id, (report.mode,)), filters)


def rows(report: Report) -> Iterator[list[str]]:
    """The report's rows after its header, read from the ledger (or the list of payments) as
    they are written."""
    zone = report.interval.zone
    if report.type == PAYMENTS:
        for payment in _payments(report):
            yield payment_row(payment, zone)
        return
    for currency in _currencies(report):
        if report.type == BALANCE_SUMMARY:
            summary = Summary(currency)
            for before in _entries(report, currency, BEGINNING, report.interval_start):
                summary.before(before)
            for during in _entries(report, currency, report.interval_start, report.interval_end):
                summary.during(during)
            yield from summary.rows()
        else:
            for transaction in _entries(report, currency, report.interval_start, report.interval_end):
                yield transaction_row(transaction, zone)


def write(report: Report, into: IO[bytes]) -> int:
    """Write the report's CSV (UTF-8, a header, CRLF line ends as RFC 4180 says) into `into`;
    the number of rows after the header."""
    text = io.TextIOWrapper(into, encoding="utf-8", newline="")
    writer = csv.writer(text)
    writer.writerow(COLUMNS[report.type])
    count = 0
    for row in rows(report):
        writer.writerow(row)
        count += 1
    text.flush()
    text.detach()  # `into` stays open for the upload
    return count


def _parse(message: Any) -> tuple[str, str, str] | None:
    if not isinstance(message, dict):
        return None
    account_id, mode, report_id = message.get("account_id"), message.get("mode"), message.get("report_id")
    if not (is_ulid(account_id) and mode in ("test", "live") and is_ulid(report_id)):
        return None
    return str(account_id), str(mode), str(report_id)


def build(message: Any, receive_count: int = 1) -> str | None:
    """Build the report a ReportQueue message names; its status afterwards (None: no such
    report, or a malformed message, dropped). A fault of AWS is raised (the message comes back)
    until the last receive, which marks the report failed instead."""
    named = _parse(message)
    if named is None:
        logger.error("report message dropped: malformed", body=str(message)[:200])
        return None
    report = deps.reports().get(*named)
    if report is None:
        logger.error("report message dropped: no such report", report_id=named[2])
        return None
    if report.status != Status.PENDING:
        return report.status  # an earlier delivery built it
    key = file_key(report, new_id())
    try:
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
            count = write(report, spool)
            size = spool.tell()
            spool.seek(0)
            keep_file(key, spool, file_name(report))
    except Exception as exc:
        if is_dependency_fault(exc) and receive_count < MAX_RECEIVES:
            raise
        logger.exception("report failed", report_id=report.report_id)
        return _finish(report, Status.FAILED, {"failure_code": "report_failed", "failure_message": _why(exc)})
    return _finish(report, Status.SUCCEEDED, {"rows": count, "size_bytes": size, "object_key": key})


def _why(exc: BaseException) -> str:
    if is_dependency_fault(exc):
        return "A dependency of the service was unavailable while the report was built; ask for it again."
    return "The report could not be built; ask for it again."


def _finish(report: Report, status: str, changes: dict[str, Any]) -> str:
    now = iso(datetime.now(UTC))
    changes = {**changes, "status": status, "completed_at": now, "updated_at": now}
    after = report.changed(changes)
    kind = SUCCEEDED_EVENT if status == Status.SUCCEEDED else FAILED_EVENT
    data = {"object": view(after)}
    event = new_event(kind, report.account_id, report.mode, "report", report.report_id, data, now, report.callback_url)
    try:
        deps.reports().finish(report, changes, event)
    except Finished:
        logger.info("report finished by another delivery", report_id=report.report_id)
        fresh = deps.reports().get(report.account_id, report.mode, report.report_id)
        return fresh.status if fresh else status
    logger.info("report finished", report_id=report.report_id, status=status, rows=changes.get("rows"))
    return status
