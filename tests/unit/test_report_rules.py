"""Reports' pure rules (docs/reports.md): the request's checks (each refusal names its field),
days cut at midnight in the report's time zone, the CSV rows of balance transactions and of the
balance summary, and the file the builder writes from the ledger (an in-memory ledger)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mzpay import deps
from mzpay.answers.reports import Report as ReportAnswer
from mzpay.cases import report_builder
from mzpay.domain.money import ledger
from mzpay.domain.money.reports import (
    PAYMENT_COLUMNS,
    SUMMARY_COLUMNS,
    TRANSACTION_COLUMNS,
    ReportRequest,
    Status,
    Summary,
    file_name,
    interval_of,
    new_report,
    transaction_row,
    view,
)
from mzpay.domain.money.transactions import describe
from mzpay.domain.payments.rules import Payment
from tests.unit.builders import refused

ACCOUNT = "01JACC0000000000000000000A"
MAPUTO = ZoneInfo("Africa/Maputo")
NOW = "2026-12-01T06:00:00Z"


def request(**fields: Any) -> ReportRequest:
    body = {"type": "balance_transactions", "interval_start": "2026-11-01", "interval_end": "2026-12-01"} | fields
    return ReportRequest.model_validate({k: v for k, v in body.items() if v is not None})


def problem(**fields: Any) -> tuple[int, str, list[dict[str, str]]]:
    error = refused(lambda: interval_of(request(**fields)))
    return error.status, error.code, [e.as_dict() for e in error.errors or []]


# ---------------------------------------------------------------- the interval
def test_days_are_cut_at_midnight_in_maputo_by_default() -> None:
    interval = interval_of(request())
    assert (interval.start.isoformat(), interval.end.isoformat(), interval.timezone) == (
        "2026-10-31T22:00:00+00:00",
        "2026-11-30T22:00:00+00:00",
        "Africa/Maputo",
    )


def test_a_named_zone_cuts_its_own_days_across_a_daylight_saving_change() -> None:
    """Lisbon's 29 March 2026 has 23 hours: the day is cut at its two midnights, not 24 h apart."""
    interval = interval_of(request(interval_start="2026-03-29", interval_end="2026-03-30", timezone="Europe/Lisbon"))
    assert (interval.start.isoformat(), interval.end.isoformat()) == (
        "2026-03-29T00:00:00+00:00",
        "2026-03-29T23:00:00+00:00",
    )


def test_date_times_are_times_of_the_zone_unless_they_carry_an_offset() -> None:
    naive = interval_of(request(interval_start="2026-11-01T08:00:00", interval_end="2026-11-01T17:00:00Z"))
    assert (naive.start.isoformat(), naive.end.isoformat()) == (
        "2026-11-01T06:00:00+00:00",
        "2026-11-01T17:00:00+00:00",
    )
    offset = interval_of(request(interval_start="2026-11-01T08:00:00+01:00", interval_end="2026-11-02"))
    assert offset.start.isoformat() == "2026-11-01T07:00:00+00:00"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"interval_start": "01/11/2026"}, "interval_start", "an ISO 8601 date (2026-11-01) or date-time"),
        ({"interval_start": "2026-02-30"}, "interval_start", "an ISO 8601 date (2026-11-01) or date-time"),
        ({"interval_end": "2026-11-01T25:00:00"}, "interval_end", "an ISO 8601 date (2026-11-01) or date-time"),
        ({"interval_end": "2026-11"}, "interval_end", "an ISO 8601 date (2026-11-01) or date-time"),
        ({"interval_end": "2026-11-01"}, "interval_end", "after interval_start"),
        ({"interval_end": "2026-10-01"}, "interval_end", "after interval_start"),
        ({"interval_end": "2027-11-03"}, "interval_end", "at most 366 days after interval_start"),
        ({"timezone": "Mars/Olympus"}, "timezone", "an IANA time zone name, e.g. Africa/Maputo"),
        ({"timezone": "../../etc/passwd"}, "timezone", "an IANA time zone name, e.g. Africa/Maputo"),
        ({"timezone": ""}, "timezone", "an IANA time zone name, e.g. Africa/Maputo"),
        ({"type": "everything"}, "type", "one of balance_summary, balance_transactions, payments"),
        ({"type": "Payments"}, "type", "one of balance_summary, balance_transactions, payments"),
    ],
)
def test_a_bad_request_is_400_naming_its_field(fields: dict[str, Any], field: str, message: str) -> None:
    status, code, errors = problem(**fields)
    assert (status, code) == (400, "invalid_request")
    assert [(e["field"], e["code"]) for e in errors] == [(field, "invalid_value")]
    assert errors[0]["message"].startswith(message)


def test_a_year_and_a_leap_day_fit_in_366_days() -> None:
    interval = interval_of(request(interval_start="2028-01-01", interval_end="2029-01-01"))
    assert (interval.end - interval.start).days == 366


def test_a_payment_row_is_its_money_on_its_local_day() -> None:
    """22:29 UTC on 25 November is 00:29 on the 26th in Maputo; the net is what is left of the
    captured money after refunds and lost disputes (no fee recorded on this payment: empty)."""
    payment = Payment(
        provider_payment_id="01JDA6Q0Z8X4M2N7P5R3T9V1W6",
        payment_id="order-1",
        account_id=ACCOUNT,
        mode="test",
        status="succeeded",
        version=3,
        amount="250.00",
        currency="MZN",
        country="MZ",
        authorized_amount="250.00",
        captured_amount="250.00",
        refunded_amount=Decimal("10.00"),
        charged_back_amount=Decimal("5.50"),
        source={"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        customer={"id": "cliente-7"},
        fingerprint="f",
        created_at="2026-11-25T22:29:00Z",
        updated_at="2026-11-26T08:00:00Z",
    )
    assert report_builder.payment_row(payment, MAPUTO) == [
        "01JDA6Q0Z8X4M2N7P5R3T9V1W6",
        "order-1",
        "2026-11-26T00:29:00+02:00",
        "2026-11-26",
        "succeeded",
        "mobile_wallet",
        "mpesa",
        "MZN",
        "250.00",
        "250.00",
        "10.00",
        "5.50",
        "",
        "234.50",
        "cliente-7",
        "",
    ]
    assert len(PAYMENT_COLUMNS) == len(report_builder.payment_row(payment, MAPUTO))


def test_the_view_is_the_answer_model_and_names_the_file_by_local_days() -> None:
    report = new_report("01JDC4R8T2V6X0Z4B8D2F6H0K4", ACCOUNT, "test", request(), NOW)
    assert view(report) == {
        "report_id": "01JDC4R8T2V6X0Z4B8D2F6H0K4",
        "type": "balance_transactions",
        "status": "pending",
        "interval_start": "2026-10-31T22:00:00Z",
        "interval_end": "2026-11-30T22:00:00Z",
        "timezone": "Africa/Maputo",
        "mode": "test",
        "created_at": NOW,
        "completed_at": None,
        "rows": None,
        "size_bytes": None,
        "url": None,
        "url_expires_at": None,
        "failure": None,
    }
    assert ReportAnswer.of(view(report)).wire() == view(report)
    assert file_name(report) == "balance_transactions_2026-11-01_2026-12-01.csv"


# ---------------------------------------------------------------- rows
def entry(movement: ledger.Movement, at: str, ulid: str, currency: str = "MZN") -> dict[str, Any]:
    """An entry item as mzpay.store.ledger writes it."""
    return {
        "pk": f"LEDGER#{ACCOUNT}#test#{currency}",
        "sk": f"ENT#{ulid}",
        "kind": movement.kind,
        "event_id": "01JEVENT000000000000000000",
        "resource_id": "01JPAYMENT0000000000000000",
        "legs": {name: amount for name, amount in movement.legs().items() if amount},
        "created_at": at,
    }


def test_a_row_falls_on_the_local_day_across_midnight() -> None:
    """21:59:59 UTC is 23:59:59 of 1 November in Maputo; 22:00:00 UTC is already 2 November."""
    late = describe(entry(ledger.captured(Decimal("150.00"), Decimal("3.00")), "2026-11-01T21:59:59Z", "0" * 26))
    early = describe(entry(ledger.hold("refund.created", Decimal("50.00")), "2026-11-01T22:00:00Z", "1" * 26))
    assert transaction_row(late, MAPUTO) == [
        "btx_" + "0" * 26,
        "2026-11-01T23:59:59+02:00",
        "2026-11-01",
        "charge",
        "MZN",
        "150.00",
        "3.00",
        "147.00",
        "0.00",
        "01JPAYMENT0000000000000000",
    ]
    assert transaction_row(early, MAPUTO)[1:9] == [
        "2026-11-02T00:00:00+02:00",
        "2026-11-02",
        "refund",
        "MZN",
        "-50.00",
        "0.00",
        "-50.00",
        "50.00",
    ]


def test_the_summary_opens_moves_by_type_and_closes() -> None:
    summary = Summary("MZN")
    summary.before(describe(entry(ledger.captured(Decimal("1000.00")), "2026-10-30T10:00:00Z", "0" * 26)))
    summary.before(describe(entry(ledger.hold("payout.created", Decimal("200.00")), "2026-10-30T11:00:00Z", "1" * 26)))
    for movement in (
        ledger.captured(Decimal("150.00"), Decimal("3.00")),
        ledger.captured(Decimal("50.00")),
        ledger.paid_out("payout.paid", Decimal("200.00")),
        ledger.hold("refund.created", Decimal("20.00")),
    ):
        summary.during(describe(entry(movement, "2026-11-02T10:00:00Z", "2" * 26)))
    assert list(summary.rows()) == [
        ["MZN", "opening_balance", "", "", "", "", "800.00", "200.00"],
        ["MZN", "activity", "charge", "2", "200.00", "3.00", "197.00", "0.00"],
        ["MZN", "activity", "payout", "1", "0.00", "0.00", "0.00", "-200.00"],
        ["MZN", "activity", "refund", "1", "-20.00", "0.00", "-20.00", "20.00"],
        ["MZN", "closing_balance", "", "", "", "", "977.00", "20.00"],
    ]


# ---------------------------------------------------------------- the file, from an in-memory ledger
class Ledger:
    """The ledger store's reads the builder makes, over a list of entry items."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    def balances(self, account_id: str, mode: str) -> list[dict[str, Any]]:
        currencies = {str(i["pk"]).rsplit("#", 1)[1] for i in self.items}
        return [{"currency": c} for c in currencies]

    def entries_between(
        self, account_id: str, mode: str, currency: str, start_iso: str, end_iso: str
    ) -> Iterator[dict[str, Any]]:
        for item in self.items:
            if item["pk"] == f"LEDGER#{account_id}#{mode}#{currency}" and start_iso <= item["created_at"] < end_iso:
                yield item


ITEMS = [
    entry(ledger.captured(Decimal("500.00")), "2026-10-31T21:59:59Z", "01JD0000000000000000000001"),  # 31 Oct, local
    entry(ledger.captured(Decimal("150.00"), Decimal("3.00")), "2026-10-31T22:00:00Z", "01JD0000000000000000000002"),
    entry(ledger.hold("refund.created", Decimal("50.00")), "2026-11-15T09:30:00Z", "01JD0000000000000000000003"),
    entry(ledger.captured(Decimal("75.50")), "2026-11-30T21:59:59Z", "01JD0000000000000000000004"),
    entry(ledger.captured(Decimal("9.00")), "2026-11-30T22:00:00Z", "01JD0000000000000000000005"),  # 1 Dec, local
    entry(ledger.captured(Decimal("10.00")), "2026-11-10T10:00:00Z", "01JD0000000000000000000006", "USD"),
]


def built(kind: str) -> tuple[list[list[str]], int]:
    report = new_report("01JDC4R8T2V6X0Z4B8D2F6H0K4", ACCOUNT, "test", request(type=kind), NOW)
    into = io.BytesIO()
    with deps.substitute(ledger=Ledger(ITEMS)):
        count = report_builder.write(report, into)
    text = into.getvalue().decode("utf-8")
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text))), count


def test_the_transactions_file_holds_november_in_maputo_per_currency() -> None:
    rows, count = built("balance_transactions")
    assert rows[0] == list(TRANSACTION_COLUMNS)
    assert [(r[0], r[2], r[4], r[7]) for r in rows[1:]] == [
        ("btx_01JD0000000000000000000002", "2026-11-01", "MZN", "147.00"),
        ("btx_01JD0000000000000000000003", "2026-11-15", "MZN", "-50.00"),
        ("btx_01JD0000000000000000000004", "2026-11-30", "MZN", "75.50"),
        ("btx_01JD0000000000000000000006", "2026-11-10", "USD", "10.00"),
    ]
    assert count == 4


def test_the_summary_file_opens_with_what_came_before() -> None:
    rows, count = built("balance_summary")
    assert rows == [
        list(SUMMARY_COLUMNS),
        ["MZN", "opening_balance", "", "", "", "", "500.00", "0.00"],
        ["MZN", "activity", "charge", "2", "225.50", "3.00", "222.50", "0.00"],
        ["MZN", "activity", "refund", "1", "-50.00", "0.00", "-50.00", "50.00"],
        ["MZN", "closing_balance", "", "", "", "", "672.50", "50.00"],
        ["USD", "opening_balance", "", "", "", "", "0.00", "0.00"],
        ["USD", "activity", "charge", "1", "10.00", "0.00", "10.00", "0.00"],
        ["USD", "closing_balance", "", "", "", "", "10.00", "0.00"],
    ]
    assert count == 7


def test_a_report_starts_pending() -> None:
    assert new_report("01JDC4R8T2V6X0Z4B8D2F6H0K4", ACCOUNT, "live", request(), NOW).status == Status.PENDING


# ---------------------------------------------------------------- the outbox's step and the builder's message
def test_only_report_created_is_queued_and_a_malformed_one_is_poison() -> None:
    from mzpay.steps.reports import dispatch_report
    from mzpay.webhooks.outbox import PoisonRecord

    assert dispatch_report({"type": "report.succeeded", "account_id": ACCOUNT}) is False
    with pytest.raises(PoisonRecord) as poison:
        dispatch_report({"type": "report.created", "account_id": ACCOUNT, "mode": "test", "resource_id": "../x"})
    assert (poison.value.reason, poison.value.detail) == (
        "malformed_event",
        "a report event without its account, mode or report",
    )


@pytest.mark.parametrize(
    "message",
    [
        None,
        "report",
        {"account_id": ACCOUNT, "mode": "test"},
        {"account_id": ACCOUNT, "mode": "staging", "report_id": "01JDC4R8T2V6X0Z4B8D2F6H0K4"},
        {"account_id": "acct", "mode": "test", "report_id": "01JDC4R8T2V6X0Z4B8D2F6H0K4"},
    ],
)
def test_a_malformed_message_is_dropped_before_anything_is_read(message: Any) -> None:
    class Untouchable:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"read {name}")

    with deps.substitute(reports=Untouchable(), ledger=Untouchable()):
        assert report_builder.build(message) is None
