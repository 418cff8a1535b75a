"""Statements and reports (docs/reports.md): what a merchant may ask for, how its interval is cut
into days in a time zone, the report's lifecycle, and the CSV it becomes. Pure: no AWS.

A report covers [interval_start, interval_end): a date means midnight at the start of that day in
the report's time zone (Africa/Maputo unless named), a date-time without an offset is a time of
that zone, one with an offset (or Z) is that instant. Times in the file are written in the zone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field

from mzpay.domain.common.clock import iso, parse_iso
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import invalid_field
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.money.transactions import BalanceTransaction

DEFAULT_TIMEZONE = "Africa/Maputo"
MAX_DAYS = 366  # the longest interval one report covers
MAX_TIMEZONE = 64
MAX_DATE_TEXT = 40
URL_SECONDS = 300  # a download link lives five minutes; GET the report again for a fresh one
RETENTION_DAYS = 30  # the bucket's lifecycle deletes files older than this (stacks/data.yaml)

BALANCE_SUMMARY = "balance_summary"
BALANCE_TRANSACTIONS = "balance_transactions"
PAYMENTS = "payments"
TYPES = (BALANCE_SUMMARY, BALANCE_TRANSACTIONS, PAYMENTS)

CREATED_EVENT = "report.created"  # recorded with the report: the outbox queues its building
SUCCEEDED_EVENT = "report.succeeded"
FAILED_EVENT = "report.failed"

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Status:
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class ReportRequest(Strict):
    """The body of POST /v1/reports."""

    model_config = examples(
        {
            "type": "balance_transactions",
            "interval_start": "2026-11-01",
            "interval_end": "2026-12-01",
            "timezone": "Africa/Maputo",
        }
    )

    type: str = Field(max_length=40, description="balance_summary, balance_transactions or payments.")
    interval_start: str = Field(
        max_length=MAX_DATE_TEXT,
        description="First moment covered (ISO 8601): a date is midnight of that day in `timezone`.",
    )
    interval_end: str = Field(
        max_length=MAX_DATE_TEXT,
        description="First moment no longer covered (ISO 8601, after interval_start, at most 366 days on).",
    )
    timezone: str | None = Field(
        default=None,
        max_length=MAX_TIMEZONE,
        description="An IANA time zone (Africa/Maputo by default): where days are cut and times written.",
    )


@dataclass(frozen=True)
class Interval:
    """What a report covers: [start, end) as UTC instants, and the zone its days are cut in."""

    start: datetime
    end: datetime
    timezone: str

    @property
    def zone(self) -> tzinfo:
        return ZoneInfo(self.timezone)


def zone_named(name: str | None) -> str:
    """The IANA zone `name` (Africa/Maputo for None); 400 naming `timezone` otherwise."""
    if name is None:
        return DEFAULT_TIMEZONE
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*", name) or name != name.strip():
        raise invalid_field("timezone", "an IANA time zone name, e.g. Africa/Maputo")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid_field("timezone", "an IANA time zone name, e.g. Africa/Maputo") from None
    return name


def moment(name: str, text: str, zone: tzinfo) -> datetime:
    """The instant `text` names in `zone` (a date: its midnight there); 400 naming `name`."""
    refused = invalid_field(name, "an ISO 8601 date (2026-11-01) or date-time (2026-11-01T08:00:00+02:00)")
    try:
        if _DATE.fullmatch(text):
            return datetime.combine(date.fromisoformat(text), time(0), tzinfo=zone).astimezone(UTC)
        if "T" not in text:
            raise refused
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise refused from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return parsed.astimezone(UTC)


def interval_of(request: ReportRequest) -> Interval:
    """The request's interval, checked: a known type, a zone, two moments, the end after the
    start, at most MAX_DAYS long (400 naming the field)."""
    if request.type not in TYPES:
        raise invalid_field("type", f"one of {', '.join(TYPES)}")
    name = zone_named(request.timezone)
    zone = ZoneInfo(name)
    start = moment("interval_start", request.interval_start, zone)
    end = moment("interval_end", request.interval_end, zone)
    if end <= start:
        raise invalid_field("interval_end", "after interval_start")
    if end - start > timedelta(days=MAX_DAYS):
        raise invalid_field("interval_end", f"at most {MAX_DAYS} days after interval_start")
    return Interval(start, end, name)


# ---------------------------------------------------------------- the report
class Report(Entity):
    """A report asked for by an account in one mode: `pending` until the worker wrote its file
    (`succeeded`, with `object_key`) or gave up (`failed`)."""

    report_id: str
    account_id: str
    mode: str
    type: str
    interval_start: str  # UTC, ISO 8601 with Z
    interval_end: str
    timezone: str
    created_at: str
    updated_at: str
    completed_at: str | None = None
    rows: int | None = None
    size_bytes: int | None = None
    object_key: str | None = None
    failure_code: str | None = None
    failure_message: str | None = None
    callback_url: str | None = None

    @property
    def interval(self) -> Interval:
        start, end = parse_iso(self.interval_start), parse_iso(self.interval_end)
        assert start is not None and end is not None
        return Interval(start, end, self.timezone)


def new_report(report_id: str, account_id: str, mode: str, request: ReportRequest, now: str) -> Report:
    interval = interval_of(request)
    return Report(
        report_id=report_id,
        account_id=account_id,
        mode=mode,
        type=request.type,
        status=Status.PENDING,
        version=1,
        interval_start=iso(interval.start),
        interval_end=iso(interval.end),
        timezone=interval.timezone,
        created_at=now,
        updated_at=now,
    )


def view(report: Report, url: str | None = None, url_expires_at: str | None = None) -> dict[str, Any]:
    """The report as the gateway answers it (and as its events carry it, without a link)."""
    failure = (
        {"code": report.failure_code, "message": report.failure_message} if report.status == Status.FAILED else None
    )
    return {
        "report_id": report.report_id,
        "type": report.type,
        "status": report.status,
        "interval_start": report.interval_start,
        "interval_end": report.interval_end,
        "timezone": report.timezone,
        "mode": report.mode,
        "created_at": report.created_at,
        "completed_at": report.completed_at,
        "rows": report.rows,
        "size_bytes": report.size_bytes,
        "url": url,
        "url_expires_at": url_expires_at,
        "failure": failure,
    }


def file_name(report: Report) -> str:
    """The name a download is saved under, e.g. balance_transactions_2026-11-01_2026-12-01.csv."""
    interval = report.interval
    first = interval.start.astimezone(interval.zone).date()
    last = interval.end.astimezone(interval.zone)
    return f"{report.type}_{first.isoformat()}_{last.date().isoformat()}.csv"


# ---------------------------------------------------------------- the file's rows
TRANSACTION_COLUMNS = (
    "balance_transaction_id",
    "created_at",
    "created_date",
    "type",
    "currency",
    "amount",
    "fee",
    "net",
    "held_change",
    "source_id",
)
SUMMARY_COLUMNS = ("currency", "category", "type", "count", "amount", "fee", "net", "held_change")
PAYMENT_COLUMNS = (
    "payment_id",
    "merchant_payment_id",
    "created_at",
    "created_date",
    "status",
    "method",
    "network",
    "currency",
    "amount",
    "captured_amount",
    "refunded_amount",
    "charged_back_amount",
    "fee",
    "net",
    "customer_id",
    "collection_request_id",
)
COLUMNS = {BALANCE_SUMMARY: SUMMARY_COLUMNS, BALANCE_TRANSACTIONS: TRANSACTION_COLUMNS, PAYMENTS: PAYMENT_COLUMNS}


def local_time(text: str, zone: tzinfo) -> datetime:
    """The UTC time `text` as a time of `zone`."""
    found = parse_iso(text)
    assert found is not None
    return found.astimezone(zone)


def money(value: Decimal, currency: str) -> str:
    """A decimal string with the currency's fraction digits, as the gateway writes money (signed)."""
    return format_amount(value, currency)


def transaction_row(transaction: BalanceTransaction, zone: tzinfo) -> list[str]:
    """One balance transaction as a CSV row: its time written in the report's zone with its
    offset, and the local day it falls on."""
    at = local_time(transaction.created_at, zone)
    return [
        transaction.id,
        at.isoformat(timespec="seconds"),
        at.date().isoformat(),
        transaction.type,
        transaction.currency,
        money(transaction.amount, transaction.currency),
        money(transaction.fee, transaction.currency),
        money(transaction.net, transaction.currency),
        money(transaction.held, transaction.currency),
        transaction.source,
    ]


@dataclass
class Totals:
    """Movements of one type in one currency: how many, and their sums."""

    count: int = 0
    amount: Decimal = Decimal(0)
    fee: Decimal = Decimal(0)
    net: Decimal = Decimal(0)
    held: Decimal = Decimal(0)

    def add(self, transaction: BalanceTransaction) -> None:
        self.count += 1
        self.amount += transaction.amount
        self.fee += transaction.fee
        self.net += transaction.net
        self.held += transaction.held


@dataclass
class Summary:
    """One currency's statement: the balances before the interval (available and held), the
    movements in it by type, and the balances after (opening + the movements' net and held)."""

    currency: str
    opening: Totals = field(default_factory=Totals)
    movements: dict[str, Totals] = field(default_factory=dict)

    def before(self, transaction: BalanceTransaction) -> None:
        """An entry before the interval: it counts in the opening balance."""
        self.opening.add(transaction)

    def during(self, transaction: BalanceTransaction) -> None:
        """An entry in the interval: it counts in its type's movements."""
        self.movements.setdefault(transaction.type, Totals()).add(transaction)

    def rows(self) -> Iterator[list[str]]:
        currency, opening, moved = self.currency, self.opening, list(self.movements.values())
        closing_net = opening.net + sum((t.net for t in moved), Decimal(0))
        closing_held = opening.held + sum((t.held for t in moved), Decimal(0))
        yield [currency, "opening_balance", "", "", "", "", money(opening.net, currency), money(opening.held, currency)]
        for kind in sorted(self.movements):
            t = self.movements[kind]
            sums = (money(t.amount, currency), money(t.fee, currency), money(t.net, currency), money(t.held, currency))
            yield [currency, "activity", kind, str(t.count), *sums]
        yield [currency, "closing_balance", "", "", "", "", money(closing_net, currency), money(closing_held, currency)]
