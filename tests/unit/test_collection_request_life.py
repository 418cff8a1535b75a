"""A collection request's life (issue 34, item 2; docs/collection-requests.md, "A request's life"):
every allowed and refused transition of its state machine, pure: pending -> partially_paid ->
paid by recorded payments and by its checkout's payment, cancel of an open request only, a
payment of a cancelled request refused, overdue computed from the due date and Maputo's date,
the overpayment kept to refund, a method's instalment rule, and what reminders are sent for."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.collection.payment_links import instalment
from mzpay.domain.collection import life, recorded
from mzpay.domain.collection.methods import CollectionMethod, check_installments, installments_of
from mzpay.domain.collection.notices import awaits_payment
from mzpay.domain.collection.requests import CollectionRequest
from mzpay.steps.collection_payments import _settled
from tests.unit.builders import refused
from tests.unit.test_payer_reads import request

NOW = "2026-11-29T12:00:00Z"
PAID_AT = "2026-11-28T09:00:00Z"
OPEN = ("pending", "partially_paid")
CLOSED = ("paid", "cancelled")


def step(before: CollectionRequest, value: str) -> CollectionRequest:
    """The request after a recorded payment of `value` (judged first)."""
    recorded.judge(before, "MZN", Decimal(value))
    return before.changed(recorded.settled(before, Decimal(value), "cash", "PAY", PAID_AT, NOW))


def test_instalments_go_pending_partially_paid_paid() -> None:
    pending = request(allow_installments=True)
    first = step(pending, "500")
    assert (first.status, first.amount_paid, first.outstanding) == ("partially_paid", 500, Decimal("1000.5"))
    view = first.view()
    assert (view["status"], view["amount_paid"]["value"], view["amount_due"]["value"]) == (
        "partially_paid",
        Decimal("500.00"),
        Decimal("1000.50"),
    )
    second = step(first, "1000")
    assert (second.status, second.outstanding) == ("partially_paid", Decimal("0.5"))
    done = step(second, "0.50")
    assert (done.status, done.outstanding, done.bill_info["status"]) == ("paid", 0, "paid")


def test_without_instalments_a_part_is_refused_and_the_whole_pays() -> None:
    part = refused(lambda: step(request(), "1000"))
    assert (part.status, part.code, part.extensions["allow_installments"]) == (422, "amount_out_of_range", False)
    assert step(request(), "1500.50").status == "paid"


@pytest.mark.parametrize("status", CLOSED)
def test_a_closed_request_takes_no_payment(status: str) -> None:
    closed = refused(lambda: recorded.judge(request(status=status, allow_installments=True), "MZN", Decimal(1)))
    assert (closed.status, closed.code, closed.extensions) == (409, "invoice_closed", {"request_status": status})


@pytest.mark.parametrize("status", OPEN)
def test_an_open_request_is_cancelled(status: str) -> None:
    before = request(status=status, amount_paid=Decimal(100) if status == "partially_paid" else Decimal(0))
    changes = life.cancelled(before, "usr_1", "Issued twice", NOW)
    after = before.changed(changes)
    assert (after.status, after.bill_info["status"]) == ("cancelled", "cancelled")
    assert after.view()["cancellation"] == {"cancelled_at": NOW, "cancelled_by": "usr_1", "reason": "Issued twice"}
    assert after.amount_paid == before.amount_paid  # what instalments paid stays recorded
    assert not awaits_payment(after.status)


def test_an_overdue_request_is_cancelled() -> None:
    overdue = request(invoice_metadata={"invoice_number": "INV-1", "due_date": "2020-01-31"})
    assert overdue.view()["status"] == "overdue"
    assert overdue.changed(life.cancelled(overdue, "usr_1", None, NOW)).view()["status"] == "cancelled"


@pytest.mark.parametrize("status", CLOSED)
def test_a_paid_or_cancelled_request_is_not_cancelled(status: str) -> None:
    again = refused(lambda: life.cancelled(request(status=status), "usr_1", None, NOW))
    assert (again.status, again.code, again.extensions) == (409, "invoice_closed", {"request_status": status})


@pytest.mark.parametrize(
    ("reason", "problem"),
    [
        (None, None),
        ("Issued twice", None),
        ("", "a text of 1 to 200 characters"),
        ("x" * 201, "a text of 1 to 200 characters"),
    ],
)
def test_a_cancel_reason_is_bounded(reason: str | None, problem: str | None) -> None:
    assert life.cancel_reason_problem(reason) == problem


def due(day: str, **changes: Any) -> CollectionRequest:
    return request(invoice_metadata={"invoice_number": "INV-1", "due_date": day}, **changes)


@pytest.mark.parametrize(
    ("status", "day", "today", "shown"),
    [
        ("pending", "2026-11-28", "2026-11-29", "overdue"),
        ("partially_paid", "2026-11-28", "2026-11-29", "overdue"),
        ("pending", "2026-11-29", "2026-11-29", "pending"),  # due today: not yet
        ("pending", "2026-11-29T23:00:00", "2026-11-30", "overdue"),
        ("paid", "2026-11-01", "2026-11-29", "paid"),
        ("cancelled", "2026-11-01", "2026-11-29", "cancelled"),
    ],
)
def test_overdue_is_read_from_the_due_date_and_maputos_day(status: str, day: str, today: str, shown: str) -> None:
    assert due(day, status=status).shown_status(today) == shown


def test_overdue_shows_in_reads_lists_and_the_payers_reads_but_not_the_creation_answer() -> None:
    late = due("2020-01-31")
    assert [late.view()["status"], late.summary()["status"], late.public_item()["status"]] == ["overdue"] * 3
    assert late.public_view()["collection_request"]["status"] == "overdue"
    assert late.created_view()["status"] == "pending"
    assert request().view()["status"] == "pending"  # no due date: never overdue


@pytest.mark.parametrize(
    ("status", "awaits"),
    [("pending", True), ("partially_paid", True), ("overdue", True), ("paid", False), ("cancelled", False)],
)
def test_reminders_go_on_for_partially_paid_and_stop_for_cancelled(status: str, awaits: bool) -> None:
    assert awaits_payment(status) is awaits


def paid_checkout(amount: str, payment_id: str = "PAYLINK") -> dict[str, Any]:
    return {
        "provider_payment_id": payment_id,
        "money": {"currency": "MZN", "amount": amount},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa"}},
        "last_updated_at": PAID_AT,
    }


@pytest.mark.parametrize(
    ("amount", "overpayment"),
    [
        ("1000.50", Decimal(0)),  # what instalments left due
        ("1500.50", Decimal(500)),  # the checkout asked for it all; a recorded 500 came meanwhile
    ],
)
def test_the_checkout_pays_what_is_due_and_keeps_any_more_to_refund(amount: str, overpayment: Decimal) -> None:
    part = request(
        status="partially_paid", allow_installments=True, amount_paid=Decimal(500), checkout_payment_id="PAYLINK"
    )
    changes = _settled(part, paid_checkout(amount), "paid", NOW)
    assert changes is not None
    after = part.changed(changes)
    assert (after.status, after.amount_paid, after.overpayment) == ("paid", Decimal("1500.5"), overpayment)
    assert after.view().get("overpayment") == (
        {"currency": "MZN", "value": overpayment.quantize(Decimal("0.01"))} if overpayment else None
    )


def test_a_checkout_paid_on_a_cancelled_request_is_kept_to_refund_once() -> None:
    gone = request(status="cancelled", checkout_payment_id="PAYLINK")
    changes = _settled(gone, paid_checkout("1500.50"), "paid", NOW)
    assert changes is not None
    flagged = gone.changed(changes)
    assert (flagged.status, flagged.overpayment) == ("cancelled", Decimal("1500.50"))
    assert _settled(flagged, paid_checkout("1500.50"), "paid", NOW) is None  # played again: nothing more
    assert _settled(gone, paid_checkout("1500.50"), "failed", NOW) is None


def test_a_paid_request_is_not_settled_again() -> None:
    done = request(status="paid", checkout_payment_id="PAYLINK")
    assert _settled(done, paid_checkout("1500.50"), "paid", NOW) is None


def method(**changes: Any) -> CollectionMethod:
    fields: dict[str, Any] = {
        "method_id": "cm_1",
        "account_id": "acc",
        "type": "mpesa",
        "name": "M-Pesa",
        "mode": "test",
        "status": "active",
        "version": 1,
        "created_at": NOW,
        "updated_at": NOW,
    }
    return CollectionMethod(**(fields | changes))


def test_a_methods_instalment_rule() -> None:
    assert "allow_installments" not in method().view()
    taking = method(allow_installments=True, min_installment=Decimal(250))
    assert (taking.view()["allow_installments"], taking.view()["min_installment"]) == (True, Decimal("250.00"))
    assert installments_of([method(), taking, method(allow_installments=True, min_installment=Decimal(100))]) == (
        True,
        Decimal(250),
    )
    assert installments_of([method()]) == (False, None)
    check_installments(True, Decimal("0.01"))
    check_installments(False, None)
    for allow, least in [(False, Decimal(1)), (True, Decimal(0)), (True, Decimal("1.001")), (True, Decimal(10**8))]:
        problem = refused(lambda allow=allow, least=least: check_installments(allow, least))
        assert (problem.code, [e.field for e in problem.errors]) == ("validation_error", ["min_installment"])


def test_an_instalment_is_at_least_the_minimum_unless_it_pays_all_that_is_due() -> None:
    parts = request(
        status="partially_paid", allow_installments=True, min_installment=Decimal(500), amount_paid=Decimal(1200)
    )
    small = refused(
        lambda: recorded.judge(request(allow_installments=True, min_installment=Decimal(500)), "MZN", Decimal(499))
    )
    assert (small.status, small.code, small.extensions["min_installment"]["value"]) == (
        422,
        "amount_out_of_range",
        Decimal("500.00"),
    )
    recorded.judge(parts, "MZN", Decimal("300.50"))  # less than the minimum, but all that is due


@pytest.mark.parametrize(
    ("asked", "changes", "asks"),
    [
        (None, {"allow_installments": True}, Decimal("1500.5")),  # no part named: all that is due
        (Decimal(400), {}, Decimal("1500.5")),  # one payment only: all that is due
        (Decimal(400), {"allow_installments": True}, Decimal("400.00")),
        (Decimal(9000), {"allow_installments": True}, Decimal("1500.5")),  # never more than is due
        (Decimal(100), {"allow_installments": True, "min_installment": Decimal(250)}, Decimal(250)),
        (Decimal(0), {"allow_installments": True}, Decimal("0.01")),
    ],
)
def test_the_link_asks_for_an_instalment_within_its_bounds(
    asked: Decimal | None, changes: dict[str, Any], asks: Decimal
) -> None:
    assert instalment(request(**changes), asked) == asks


def test_a_checkout_paying_an_instalment_leaves_the_request_partially_paid_once() -> None:
    parts = request(allow_installments=True, checkout_payment_id="PAYLINK")
    changes = _settled(parts, paid_checkout("400.00"), "paid", NOW)
    assert changes is not None
    after = parts.changed(changes)
    assert (after.status, after.amount_paid, after.outstanding) == ("partially_paid", 400, Decimal("1100.50"))
    reconciliation = after.payment_reconciliation
    assert (reconciliation["payment_status"], reconciliation["gateway_transaction_id"]) == ("pending", "PAYLINK")
    assert _settled(after, paid_checkout("400.00"), "paid", NOW) is None  # played again: nothing more
    one_payment = request(checkout_payment_id="PAYLINK")  # a part of a request without instalments
    unmatched = _settled(one_payment, paid_checkout("400.00"), "paid", NOW)
    assert unmatched is not None and "status" not in unmatched
    assert unmatched["payment_reconciliation"]["reconciliation_status"] == "unmatched"
