"""The daily sweep's selection of reminders and overdue notices (mzpay.cases.due_dates), on a frozen
clock: which due dates a day looks at (N days ahead, CATCH_UP_DAYS behind: a missed day is covered
by the next run), and which requests among them get a notice (awaiting payment, existing on the
day the notice is about). tests/integration/test_due_messages.py sweeps a real table."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from mzpay.cases.due_dates import CATCH_UP_DAYS, due_notices, wanted
from mzpay.domain.collection.notices import awaits_payment
from mzpay.domain.messages import format as fmt
from mzpay.messages import OVERDUE, REMINDER
from tests.unit.test_payer_reads import request as a_request


def request(due: str, created: str = "2026-12-01T09:00:00Z", **changes: Any) -> Any:
    invoice = {"invoice_number": "INV-1", "due_date": due, "payment_link": "https://c.example/pay/cr_1"}
    return a_request(invoice_metadata=invoice, created_at=created, **changes)


def test_a_day_looks_n_days_ahead_for_reminders_and_back_for_overdue_notices() -> None:
    assert CATCH_UP_DAYS == 3
    assert due_notices(date(2026, 12, 7), 3) == [
        ("2026-12-08", REMINDER),
        ("2026-12-09", REMINDER),
        ("2026-12-10", REMINDER),
        ("2026-12-06", OVERDUE),
        ("2026-12-05", OVERDUE),
        ("2026-12-04", OVERDUE),
    ]
    assert due_notices(date(2027, 1, 1), 1) == [
        ("2027-01-02", REMINDER),
        ("2026-12-31", OVERDUE),
        ("2026-12-30", OVERDUE),
        ("2026-12-29", OVERDUE),
    ]


def test_the_day_is_maputos() -> None:
    assert fmt.today_in_maputo(datetime(2026, 12, 6, 22, 30, tzinfo=UTC)) == date(2026, 12, 7)
    assert fmt.maputo_day("2026-12-06T21:59:59Z") == "2026-12-06"
    assert fmt.maputo_day("2026-12-06T22:00:00Z") == "2026-12-07"


@pytest.mark.parametrize(
    ("created", "notice", "expected"),
    [
        ("2026-12-01T09:00:00Z", REMINDER, True),
        ("2026-12-06T21:00:00Z", REMINDER, True),  # the 6th in Maputo: before its reminder day (the 7th)
        ("2026-12-06T22:30:00Z", REMINDER, False),  # the 7th in Maputo: it was just sent, no reminder
        ("2026-12-09T09:00:00Z", REMINDER, False),
        ("2026-12-09T09:00:00Z", OVERDUE, True),  # it existed on its due date
        ("2026-12-10T21:00:00Z", OVERDUE, True),
        ("2026-12-10T22:30:00Z", OVERDUE, False),  # created after its due date: nothing is overdue to it yet
    ],
)
def test_a_notice_needs_the_request_to_have_existed_on_its_day(created: str, notice: str, expected: bool) -> None:
    assert wanted(request("2026-12-10", created), "2026-12-10", notice, 3) is expected


def test_only_a_request_awaiting_payment_is_reminded() -> None:
    assert wanted(request("2026-12-10"), "2026-12-10", REMINDER, 3)
    for status in ("paid", "deleted", "cancelled"):
        assert not awaits_payment(status)
        assert not wanted(request("2026-12-10", status=status), "2026-12-10", REMINDER, 3)
    # its due date moved since the index said otherwise
    assert not wanted(request("2026-12-12"), "2026-12-10", REMINDER, 3)
