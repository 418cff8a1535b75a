"""A collection request's life over HTTP on the local stack (issue 34, item 2; docs/collection-
requests.md, "A request's life"): instalments through recorded payments and the payment link
(partially_paid, then paid), a cancel after which every payment is refused (and the audit trail
keeps it), overdue in the read, the list and the payer's read, and each change's notification at
the request's callback_url, once."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import simplejson

from devstack.launcher import RunningStack
from mzpay.domain.messages import format as fmt
from tests.e2e.collection_client import Collection, assert_error, assert_ok
from tests.e2e.test_audit import records
from tests.e2e.test_collection_requests import Payer, create, full, wait_for
from tests.e2e.test_local_stack import local_lambda
from tests.e2e.test_webhooks import Receiver
from tests.polling import eventually

pytestmark = pytest.mark.e2e
PAID_AT = "2026-11-03T08:40:00Z"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def pay(mz: Collection, request_id: str, value: float, key: str) -> Any:
    """POST /v1/payments: a bank transfer the business received, recorded against the request."""
    body = {
        "collection_request_id": request_id,
        "amount": {"currency": "MZN", "value": value},
        "channel": "bank_transfer",
        "reference": "BCI-TRF-0042",
        "paid_at": PAID_AT,
    }
    return mz.call("POST", "/v1/payments", body, headers={"Idempotency-Key": key})


def notified(receiver: Receiver, callback: str, count: int) -> list[dict[str, Any]]:
    """The request's notifications at `callback` once `count` came (and no more), oldest first."""
    arrivals = receiver.wait_for(callback, count)
    assert len(arrivals) == count, [a.body for a in arrivals]
    events = [simplejson.loads(arrival.body, use_decimal=True) for arrival in arrivals]
    return sorted(events, key=lambda event: event["data"]["object"]["updated_at"])


def test_instalments_through_a_recorded_payment_and_the_link(mz: Collection, receiver: Receiver) -> None:
    callback = receiver.endpoint(200)
    made = create(
        mz,
        amount={"currency": "MZN", "value": 1000},
        allow_installments=True,
        integration_routing={"source_system": "erp-1", "callback_url": callback},
    )
    request_id = made["id"]
    assert_ok(pay(mz, request_id, 400, f"part-{request_id}"))
    part = full(mz, request_id)
    assert (part["status"], part["amount_paid"]["value"], part["amount_due"]["value"]) == ("partially_paid", 400, 600)
    listed = assert_ok(mz.call("GET", "/v1/collection-requests", None, params={"page_size": 1}))["items"][0]
    assert (listed["id"], listed["status"]) == (request_id, "partially_paid")

    browser = Payer()
    opened = browser.open(f"{mz.url}/pay/{request_id}")
    assert opened.status_code == 303, opened.text
    checkout_url = opened.headers["Location"]
    assert '<p class="amount">600,00\xa0MTn</p>' in browser.get(checkout_url, timeout=30).text  # what is due
    assert "Pago. Obrigado!" in browser.pay(checkout_url, "succeed")
    paid = wait_for(mz, request_id, lambda r: r["status"] == "paid")
    assert (paid["amount_paid"]["value"], paid["amount_due"]["value"], "overpayment" in paid) == (1000, 0, False)
    assert paid["payment_reconciliation"]["reconciliation_status"] == "matched"
    closed = pay(mz, request_id, 1, f"late-{request_id}")
    assert_error(
        closed, 409, "invoice_closed", "The collection request is paid: nothing is due.", {"request_status": "paid"}
    )

    events = notified(receiver, callback, 3)
    assert [event["type"] for event in events] == [
        "collection_request.created",
        "collection_request.partially_paid",
        "collection_request.paid",
    ]
    assert events[1]["data"]["object"]["amount_due"]["value"] == 600


def test_a_part_of_a_request_without_instalments_is_refused(mz: Collection) -> None:
    request_id = create(mz, amount={"currency": "MZN", "value": 1000})["id"]
    part = pay(mz, request_id, 400, f"part-{request_id}")
    assert_error(
        part,
        422,
        "amount_out_of_range",
        "The collection request takes one payment of what is due, not a part of it.",
        {"amount_due": {"currency": "MZN", "value": 1000.0}, "allow_installments": False},
    )
    assert full(mz, request_id)["status"] == "pending"


def test_a_cancelled_request_takes_no_payment(mz: Collection, receiver: Receiver, stack: RunningStack) -> None:
    callback = receiver.endpoint(200)
    made = create(
        mz,
        allow_installments=True,
        integration_routing={"source_system": "erp-1", "callback_url": callback},
    )
    request_id = made["id"]
    assert_ok(pay(mz, request_id, 500, f"part-{request_id}"))
    too_long = mz.call("POST", f"/v1/collection-requests/{request_id}/cancel", {"reason": "x" * 201})
    assert too_long.status_code == 400 and too_long.json()["code"] == "validation_error", too_long.text
    cancelled = assert_ok(mz.call("POST", f"/v1/collection-requests/{request_id}/cancel", {"reason": "Issued twice"}))
    view = cancelled["collection_request"]
    assert (view["status"], view["bill_info"]["status"], view["amount_paid"]["value"]) == (
        "cancelled",
        "cancelled",
        500,
    )
    assert view["cancellation"]["reason"] == "Issued twice" and view["cancellation"]["cancelled_by"]
    assert full(mz, request_id)["status"] == "cancelled"

    again = mz.call("POST", f"/v1/collection-requests/{request_id}/cancel", {})
    assert_error(again, 409, "invoice_closed", "The collection request is cancelled.", {"request_status": "cancelled"})
    late = pay(mz, request_id, 1000.5, f"late-{request_id}")
    assert_error(late, 409, "invoice_closed", "The collection request is cancelled.", {"request_status": "cancelled"})
    link = Payer().open(f"{mz.url}/pay/{request_id}")
    assert (link.status_code, "Location" in link.headers) == (409, False)  # no checkout: no money moves
    payments = assert_ok(mz.call("GET", "/v1/payments", None, params={"collection_request_id": request_id}))
    assert len(payments["data"]) == 1  # the instalment only

    events = notified(receiver, callback, 3)
    assert [event["type"] for event in events] == [
        "collection_request.created",
        "collection_request.partially_paid",
        "collection_request.cancelled",
    ]
    (kept,) = eventually(
        lambda: [
            r
            for r in records(stack, target_type="collection_request", target_id=request_id)
            if r["action"] == "cancel_collection_request"
        ],
        bool,
    )
    assert (kept["outcome"]["status"], kept["before"]["status"], kept["after"]) == (
        200,
        "partially_paid",
        {"status": "cancelled", "reason": "Issued twice"},
    )


def test_a_paid_request_is_not_cancelled(mz: Collection) -> None:
    request_id = create(mz, amount={"currency": "MZN", "value": 250})["id"]
    assert_ok(pay(mz, request_id, 250, f"all-{request_id}"))
    refused = mz.call("POST", f"/v1/collection-requests/{request_id}/cancel", {"reason": "Too late"})
    assert_error(
        refused, 409, "invoice_closed", "The collection request is paid: nothing is due.", {"request_status": "paid"}
    )


def test_overdue_shows_in_the_read_the_list_and_the_payers_read(mz: Collection) -> None:
    late = create(
        mz,
        amount={"currency": "MZN", "value": 300},
        allow_installments=True,
        invoice_metadata={"issue_date": "2026-01-05", "due_date": "2026-01-31"},
    )
    request_id = late["id"]
    assert late["status"] == "pending"  # the creation answer: just issued
    assert full(mz, request_id)["status"] == "overdue"
    listed = assert_ok(mz.call("GET", "/v1/collection-requests", None, params={"page_size": 1}))["items"][0]
    assert (listed["id"], listed["status"]) == (request_id, "overdue")
    public = assert_ok(mz.call("GET", f"/v1/kulpay/collection-requests/get-request/{request_id}", token=None))
    assert public["collection_request"]["status"] == "overdue"
    assert_ok(pay(mz, request_id, 100, f"part-{request_id}"))
    part = full(mz, request_id)
    assert (part["status"], part["amount_due"]["value"]) == ("overdue", 200)  # partly paid, still late
    assert_ok(pay(mz, request_id, 200, f"rest-{request_id}"))
    assert full(mz, request_id)["status"] == "paid"
    on_time = create(mz, invoice_metadata={"due_date": "2099-12-31"})
    assert full(mz, on_time["id"])["status"] == "pending"


def test_the_link_pays_the_instalment_it_names(mz: Collection) -> None:
    request_id = create(mz, amount={"currency": "MZN", "value": 1000}, allow_installments=True)["id"]
    browser = Payer()
    opened = browser.open(f"{mz.url}/pay/{request_id}?amount=250")
    assert opened.status_code == 303, opened.text
    first = opened.headers["Location"]
    assert '<p class="amount">250,00\xa0MTn</p>' in browser.get(first, timeout=30).text
    assert "Pago. Obrigado!" in browser.pay(first, "succeed")
    part = wait_for(mz, request_id, lambda r: r["status"] == "partially_paid")
    assert (part["amount_paid"]["value"], part["amount_due"]["value"]) == (250, 750)
    rest = browser.open(f"{mz.url}/pay/{request_id}?amount=5000")  # never more than is due
    assert rest.status_code == 303 and rest.headers["Location"] != first
    assert '<p class="amount">750,00\xa0MTn</p>' in browser.get(rest.headers["Location"], timeout=30).text
    assert "Pago. Obrigado!" in browser.pay(rest.headers["Location"], "succeed")
    done = wait_for(mz, request_id, lambda r: r["status"] == "paid")
    assert (done["amount_paid"]["value"], done["amount_due"]["value"]) == (1000, 0)


def test_the_daily_sweep_sends_the_overdue_event_once(mz: Collection, receiver: Receiver, stack: RunningStack) -> None:
    """DueDateSweepFunction invoked in the local stack for today (twice, as a replayed run): the
    request due two days ago gets collection_request.overdue at its callback_url once; one due in
    the future, swept as if it were late (a day replayed ahead), gets none."""
    callback = receiver.endpoint(200)
    today = fmt.today_in_maputo(datetime.now(UTC))
    due = today - timedelta(days=2)
    routing = {"source_system": "erp-1", "callback_url": callback}
    late = create(
        mz,
        integration_routing=routing,
        invoice_metadata={"issue_date": (due - timedelta(days=5)).isoformat(), "due_date": due.isoformat()},
    )["id"]
    lambda_api = local_lambda(stack)

    def sweep(day: date) -> dict[str, Any]:
        answer = lambda_api.invoke(FunctionName="DueDateSweepFunction", Payload=json.dumps({"day": day.isoformat()}))
        assert "FunctionError" not in answer, answer
        return json.loads(answer["Payload"].read())  # type: ignore[no-any-return]

    sweep(today)
    sweep(today)
    events = notified(receiver, callback, 2)
    assert [event["type"] for event in events] == ["collection_request.created", "collection_request.overdue"]
    assert (events[1]["resource_id"], events[1]["data"]["object"]["status"]) == (late, "overdue")

    ahead = receiver.endpoint(200)
    future = today + timedelta(days=10)
    create(
        mz, integration_routing={**routing, "callback_url": ahead}, invoice_metadata={"due_date": future.isoformat()}
    )
    sweep(future + timedelta(days=1))
    assert [event["type"] for event in notified(receiver, ahead, 1)] == ["collection_request.created"]


def test_a_method_that_allows_instalments_and_its_minimum(mz: Collection) -> None:
    token = mz.active_business("Loja das Prestações", "instalments-owner")[1]
    bad = mz.call(
        "POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test", "min_installment": 100}, token=token
    )
    assert (bad.status_code, bad.json()["code"]) == (400, "validation_error"), bad.text
    assert [e["field"] for e in bad.json()["metadata"]["errors"]] == ["min_installment"]
    method = assert_ok(
        mz.call(
            "POST",
            "/v1/collection-methods",
            {"type": "mpesa", "mode": "test", "allow_installments": True, "min_installment": 100},
            token=token,
        )
    )
    assert (method["allow_installments"], method["min_installment"]) == (True, 100)
    body = {
        "collection_method_ids": [method["id"]],
        "amount": {"currency": "MZN", "value": 300},
        "payer": {"first_name": "Rui", "last_name": "Cossa", "type": "individual", "delivery_method": "erp"},
    }
    made = assert_ok(mz.call("POST", "/v1/collection-requests", body, token=token))
    assert made["allow_installments"] is True
    small = {
        "collection_request_id": made["id"],
        "amount": {"currency": "MZN", "value": 50},
        "channel": "cash",
        "reference": "REC-1",
        "paid_at": PAID_AT,
    }
    refused = mz.call("POST", "/v1/payments", small, token=token, headers={"Idempotency-Key": f"s-{made['id']}"})
    assert (refused.status_code, refused.json()["code"]) == (422, "amount_out_of_range"), refused.text
    assert refused.json()["metadata"]["min_installment"] == {"currency": "MZN", "value": 100}
