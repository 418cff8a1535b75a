"""The rules of a payment a business records against its collection request (pure:
mzpay.domain.collection.recorded; docs/collection-payments.md, "Recording a payment received
outside the service"), and the route's body model (shapes, sizes, unknown fields)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.collection import recorded
from mzpay.http.collection_request_schemas import RecordedPaymentIn
from tests.unit.builders import refused
from tests.unit.test_payer_reads import request

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
DUE = {"currency": "MZN", "value": Decimal("1500.50")}


@pytest.mark.parametrize(
    ("paid_at", "problem"),
    [
        ("2026-11-29T12:00:00Z", None),
        ("2026-11-29T14:04:00+02:00", None),  # within the clock's skew
        ("2026-11-03T08:40:00.250-01:00", None),
        ("2026-11-29T12:06:00Z", "not in the future"),
        ("2026-11-29", "an ISO 8601 date and time with its offset, such as 2026-11-01T09:30:00Z"),
        ("2026-11-29T08:00:00", "an ISO 8601 date and time with its offset, such as 2026-11-01T09:30:00Z"),
        ("yesterday", "an ISO 8601 date and time, such as 2026-11-01T09:30:00Z"),
        ("0001-01-01T00:00:00+01:00", "an ISO 8601 date and time, such as 2026-11-01T09:30:00Z"),
        ("1999-12-31T23:59:59Z", "not before 2000-01-01"),
    ],
)
def test_paid_at_is_a_moment_with_its_offset_and_not_in_the_future(paid_at: str, problem: str | None) -> None:
    assert recorded.paid_at_problem(paid_at, NOW) == problem


def test_paid_at_is_kept_in_utc_to_the_second() -> None:
    assert recorded.paid_at_utc("2026-11-03T08:40:00.250-01:00") == "2026-11-03T09:40:00Z"


def test_the_channels() -> None:
    assert [recorded.channel_problem(c) for c in recorded.CHANNELS] == [None] * 4
    assert recorded.channel_problem("pigeon") == "one of bank_transfer, cash, simo_reference, other"


def test_a_request_that_takes_one_payment_takes_what_is_due_only() -> None:
    pending = request()
    recorded.judge(pending, "MZN", Decimal("1500.50"))
    part = refused(lambda: recorded.judge(pending, "MZN", Decimal("1500.49")))
    assert (part.status, part.code, part.extensions) == (
        422,
        "amount_out_of_range",
        {"amount_due": DUE, "allow_installments": False},
    )
    more = refused(lambda: recorded.judge(pending, "MZN", Decimal("1500.51")))
    assert (more.status, more.code, more.extensions) == (422, "amount_out_of_range", {"amount_due": DUE})
    currency = refused(lambda: recorded.judge(pending, "USD", Decimal("1500.50")))
    assert (currency.status, currency.code, [e.field for e in currency.errors]) == (
        400,
        "validation_error",
        ["amount.currency"],
    )


def test_instalments_take_parts_of_what_is_due_and_a_paid_request_nothing() -> None:
    parts = request(allow_installments=True, amount_paid=Decimal("1000"))
    recorded.judge(parts, "MZN", Decimal("0.01"))
    recorded.judge(parts, "MZN", Decimal("500.50"))
    more = refused(lambda: recorded.judge(parts, "MZN", Decimal("500.51")))
    assert more.extensions == {"amount_due": {"currency": "MZN", "value": Decimal("500.50")}}
    paid = refused(lambda: recorded.judge(request(status="paid"), "MZN", Decimal("1")))
    assert (paid.status, paid.code, paid.extensions) == (409, "invoice_closed", {"request_status": "paid"})


def test_what_a_record_changes_of_the_request() -> None:
    parts = request(allow_installments=True)
    now = "2026-11-29T12:00:00Z"
    assert recorded.settled(parts, Decimal("500"), "cash", "PAY1", "2026-11-28T09:00:00Z", now) == {
        "amount_paid": Decimal("500"),
        "updated_at": now,
        "status": "partially_paid",  # issue 34: a part paid, the rest due
    }
    done = recorded.settled(parts, Decimal("1500.5"), "bank_transfer", "PAY2", "2026-11-28T09:00:00Z", now)
    assert (done["status"], done["amount_paid"], done["bill_info"]["status"]) == ("paid", Decimal("1500.5"), "paid")
    assert done["payment_reconciliation"] == {
        "payment_status": "paid",
        "payment_type": "manual:bank_transfer",
        "gateway_transaction_id": "PAY2",
        "reconciliation_status": "matched",
        "date_payment": "2026-11-28T09:00:00Z",
        "date_reconciliation": now,
    }
    assert (done["compliance_audit"]["paid_at"], done["compliance_audit"]["reconciled_at"]) == (
        "2026-11-28T09:00:00Z",
        now,
    )


def test_a_request_shows_what_is_paid_and_due_only_when_it_takes_instalments_or_was_paid_in_part() -> None:
    assert {"allow_installments", "amount_paid", "amount_due"}.isdisjoint(request().view())
    view = request(allow_installments=True, amount_paid=Decimal("500")).view()
    assert (view["allow_installments"], view["amount_paid"], view["amount_due"]) == (
        True,
        {"currency": "MZN", "value": Decimal("500.00")},
        {"currency": "MZN", "value": Decimal("1000.50")},
    )
    assert "allow_installments" not in request().created_view()
    assert request(allow_installments=True).created_view()["allow_installments"] is True


def body(**changes: Any) -> dict[str, Any]:
    given: dict[str, Any] = {
        "collection_request_id": "cr_01JD0000000000000000000000",
        "amount": {"currency": "MZN", "value": 1500.5},
        "channel": "bank_transfer",
        "reference": "BCI-TRF-0042",
        "paid_at": "2026-11-28T09:00:00Z",
    }
    return {**given, **changes}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"reference": "R" * 65}, "reference"),
        ({"reference": ""}, "reference"),
        ({"channel": "c" * 65}, "channel"),
        ({"paid_at": "2" * 33}, "paid_at"),
        ({"description": "d" * 201}, "description"),
        ({"collection_request_id": "c" * 65}, "collection_request_id"),
        ({"metadata": {f"k{i}": "v" for i in range(21)}}, "metadata"),
        ({"metadata": {"k" * 41: "v"}}, "metadata"),
        ({"metadata": {"k": "v" * 501}}, "metadata"),
        ({"amount": {"currency": "MZN", "value": "1500.50"}}, "amount"),
    ],
)
def test_the_body_bounds_every_string_and_refuses_unknown_fields(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        RecordedPaymentIn.model_validate(body(**changes))
    assert {str(error["loc"][0]) for error in caught.value.errors()} == {field}


def test_the_body_as_the_use_case_takes_it() -> None:
    taken = RecordedPaymentIn.model_validate(body(description=" Transfer ", metadata={"erp": "RC-1"})).fields()
    assert taken == {**body(), "amount": {"currency": "MZN", "value": "1500.5"}} | {
        "description": "Transfer",
        "metadata": {"erp": "RC-1"},
    }
