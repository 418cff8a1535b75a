"""A collection request's life against the provisioned stack in in-process moto, where threads race
for the same request (issue 34, item 2; docs/collection-requests.md, "A request's life"): two
payments completing the last instalment (exactly one makes it paid), a recorded payment and a
payer's checkout racing a cancel (never both: the money is refused before it moves), two cancels
(one event), and the overdue event the sweep records once."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.cases import checkout, due_dates
from mzpay.collection import collection_methods, collection_requests, payment_links, payments
from mzpay.domain.common.errors import ServiceError
from mzpay.steps.collection_payments import reconcile_collection
from tests.integration.races import race
from tests.integration.test_collection_recorded_payments import body
from tests.integration.test_collection_request_races import (
    business,
    issued,
    opened_checkout,
    payer_racing,
    stack,
    succeeded_event,
)

__all__ = ["business", "stack"]  # the fixtures of the collection requests' races, used here too
GATEWAY = "https://gateway.example"


def record(account_id: str, given: dict[str, Any]) -> Any:
    return payments.record(account_id, given, str(uuid.uuid4())).payment


def events_of(account_id: str, request_id: str) -> list[str]:
    found, _ = deps.events().page(account_id, "test", 50, None, resource_id=request_id)
    return sorted(event.type for event in found)


def test_two_payments_completing_the_last_instalment_make_it_paid_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    for _round in range(3):
        request_id = issued(*business, allow_installments=True)
        record(account_id, body(request_id, "100"))
        with atomic_dynamodb():
            results = race(2, lambda index, r=request_id: record(account_id, body(r, "150", reference=f"R-{index}")))
        won = [value for kind, value in results if kind == "ok"]
        lost = [value for kind, value in results if kind == "error"]
        assert len(won) == 1 and len(lost) == 1, results
        assert (lost[0].status, lost[0].code, lost[0].extensions) == (409, "invoice_closed", {"request_status": "paid"})
        request = deps.collection_requests().get(request_id)
        assert request is not None and (request.status, request.amount_paid, request.version) == ("paid", 250, 3)
        assert events_of(account_id, request_id) == [
            "collection_request.created",
            "collection_request.paid",
            "collection_request.partially_paid",
        ]


def test_a_method_that_allows_instalments_gives_its_requests_its_minimum(business: tuple[str, str]) -> None:
    account_id, _ = business
    method = collection_methods.add(account_id, "emola", None, "test", True, Decimal(100))
    assert (method.allow_installments, method.min_installment) == (True, Decimal("100.00"))
    request_id = issued(account_id, method.id)
    small = refused_by(lambda: record(account_id, body(request_id, "50")))
    assert (small.status, small.code) == (422, "amount_out_of_range")
    record(account_id, body(request_id, "100"))
    view = collection_requests.read(account_id, request_id).collection_request.wire()
    assert (view["status"], view["min_installment"]["value"], view["amount_due"]["value"]) == (
        "partially_paid",
        100,
        150,
    )


def refused_by(work: Any) -> ServiceError:
    try:
        work()
    except ServiceError as refusal:
        return refusal
    raise AssertionError("not refused")


def test_a_recorded_payment_racing_a_cancel_never_both(business: tuple[str, str]) -> None:
    account_id, _ = business
    for _round in range(3):
        request_id = issued(*business)

        def act(index: int, request: str = request_id) -> Any:
            if index == 0:
                return record(account_id, body(request)).status
            return collection_requests.cancel(account_id, "tester", request, "Issued twice").collection_request.status

        with atomic_dynamodb():
            (paid_kind, paid), (cancel_kind, cancelled) = race(2, act)
        request = deps.collection_requests().get(request_id)
        assert request is not None
        listed = payments.listed(account_id, {"collection_request_id": request_id}).data
        if cancel_kind == "ok":  # the cancel won: the payment was refused, nothing written
            assert cancelled == "cancelled" and request.status == "cancelled" and listed == []
            assert paid_kind == "error" and (paid.status, paid.code) == (409, "invoice_closed")
        else:  # the payment won: the request is paid, the cancel refused
            assert paid_kind == "ok" and request.status == "paid" and len(listed) == 1
            assert (cancelled.status, cancelled.code, cancelled.extensions) == (
                409,
                "invoice_closed",
                {"request_status": "paid"},
            )


def test_a_payer_paying_while_the_business_cancels_one_of_them_wins(business: tuple[str, str]) -> None:
    account_id, _ = business
    for _round in range(3):
        request_id, provider_payment_id, results = payer_racing(
            business,
            lambda request: collection_requests.cancel(account_id, "tester", request, None).collection_request.status,
        )
        (paid_kind, paid), (cancel_kind, cancelled) = results
        payment = deps.payments().get(provider_payment_id)
        assert payment is not None
        if cancel_kind == "ok":  # the cancel won: the checkout was canceled before any money moved
            assert cancelled == "cancelled" and payment.status == "canceled"
            assert paid_kind == "error" and (paid.status, paid.code) == (409, "invalid_state")
            assert payment_links.open_link(request_id, GATEWAY).state == "not_payable"
        else:  # the payer won: the cancel is refused while the payment settles, then the request is paid
            assert paid_kind == "ok" and paid == "succeeded"
            assert (cancelled.status, cancelled.code) == (400, "invalid_request")
            assert reconcile_collection(succeeded_event(account_id, provider_payment_id)) == "collection_request.paid"
            again = refused_by(lambda r=request_id: collection_requests.cancel(account_id, "tester", r, None))
            assert (again.status, again.code) == (409, "invoice_closed")
        request = deps.collection_requests().get(request_id)
        assert request is not None and request.overpayment == 0 and request.status in ("cancelled", "paid")


def test_two_cancels_cancel_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    record(account_id, body(request_id, "100"))
    with atomic_dynamodb():
        results = race(2, lambda _: collection_requests.cancel(account_id, "tester", request_id, "Issued twice"))
    won = [value for kind, value in results if kind == "ok"]
    lost = [value for kind, value in results if kind == "error"]
    assert len(won) == 1 and len(lost) == 1, results
    assert (lost[0].status, lost[0].code, lost[0].extensions) == (
        409,
        "invoice_closed",
        {"request_status": "cancelled"},
    )
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid, request.version) == ("cancelled", 100, 3)
    assert events_of(account_id, request_id).count("collection_request.cancelled") == 1
    late = refused_by(lambda: record(account_id, body(request_id, "150")))
    assert (late.status, late.code, late.extensions) == (409, "invoice_closed", {"request_status": "cancelled"})
    assert payment_links.open_link(request_id, GATEWAY).state == "not_payable"


def test_a_checkout_paid_after_a_cancel_is_kept_to_refund(business: tuple[str, str]) -> None:
    """The corner the cancel's checks leave: the checkout's money reaching a cancelled request
    (here forced by cancelling behind the checkout's back) is kept as an overpayment, once."""
    account_id, _ = business
    request_id = issued(*business)
    provider_payment_id = opened_checkout(request_id)
    checkout.test_action(provider_payment_id, "succeed")
    request = deps.collection_requests().get(request_id)
    assert request is not None
    deps.collection_requests().transition(request, {"status": "cancelled"}, [])
    succeeded = succeeded_event(account_id, provider_payment_id)
    with atomic_dynamodb():
        results = race(2, lambda _: reconcile_collection(succeeded))
    assert sorted(str(value) for _, value in results) == ["None", "collection_request.refund_due"]
    flagged = deps.collection_requests().get(request_id)
    assert flagged is not None and (flagged.status, flagged.overpayment) == ("cancelled", 250)


def test_the_overdue_event_is_recorded_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    late = issued(*business, invoice_metadata={"issue_date": "2026-01-02", "due_date": "2026-01-05"})
    paid = issued(*business, invoice_metadata={"issue_date": "2026-01-02", "due_date": "2026-01-05"})
    record(account_id, body(paid))
    assert collection_requests.read(account_id, late).collection_request.wire()["status"] == "overdue"
    due = list(deps.collection_requests().due_on("2026-01-05"))
    assert [request.request_id for request in due] == [late]  # a paid request left the due-date index
    with atomic_dynamodb():
        results = race(2, lambda _: due_dates.mark_overdue(due[0]))
    assert sorted(value for _, value in results) == [False, True]
    assert events_of(account_id, late).count("collection_request.overdue") == 1
    marked = deps.collection_requests().get(late)
    assert marked is not None and marked.overdue_notified
    assert due_dates.mark_overdue(marked) is False  # the next run: nothing
    listed = collection_requests.listed(account_id, 50, None).wire()["items"]
    assert {item["id"]: item["status"] for item in listed}[late] == "overdue"


def test_the_link_pays_an_instalment_then_the_rest(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    destination = payment_links.open_link(request_id, GATEWAY, Decimal(100))
    assert destination.checkout_url is not None
    first = destination.checkout_url.rsplit("/", 1)[1]
    opened = deps.payments().get(first)
    assert opened is not None and opened.amount == "100.00"
    checkout.test_action(first, "succeed")
    with atomic_dynamodb():
        results = race(2, lambda _: reconcile_collection(succeeded_event(account_id, first)))
    assert sorted(str(value) for _, value in results) == ["None", "collection_request.partially_paid"]
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid) == ("partially_paid", 100)
    rest = opened_checkout(request_id)  # a new checkout, for what is due
    assert rest != first
    remaining = deps.payments().get(rest)
    assert remaining is not None and remaining.amount == "150.00"
    checkout.test_action(rest, "succeed")
    assert reconcile_collection(succeeded_event(account_id, rest)) == "collection_request.paid"
    done = deps.collection_requests().get(request_id)
    assert done is not None and (done.status, done.amount_paid, done.overpayment) == ("paid", 250, 0)
    assert events_of(account_id, request_id) == [
        "collection_request.created",
        "collection_request.paid",
        "collection_request.partially_paid",
    ]
