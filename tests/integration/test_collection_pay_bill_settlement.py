"""A pay_bill settled without anyone reading it (issue 34, item 5), against the stack of
template.yaml in in-process moto: the outbox's step hands a charge's or a bill payment's terminal
event over as one PayBillSettlementQueue message; CollectionTransactionsFunction takes it and
finishes the pay_bill by the path a read takes (the bill paid once, whoever comes first; a bill
that failed later refunds the charge, once). A biller down leaves the message on the queue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import charges
from mzpay.collection import bill_transactions, transactions
from mzpay.config import env
from mzpay.connectors.bill_suppliers import FAILED, SupplierPayment
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.partners.transactions import bill_payment_id
from mzpay.fanout.stream import dispatch_event
from mzpay.steps.bill_outcomes import apply_answer, reconcile_bill_payment
from mzpay.steps.business import gateway_account_of
from tests.integration import test_collection_pay_bill as pay_bill
from tests.integration.races import race
from tests.integration.support import REGION, function_app, functions_stack, sqs_records

WAITING = "+258841121234"  # a test wallet whose charge waits for the payer (docs/test-mode.md)
SLOW_METER = "04000000408"  # the simulated supplier does not answer: the bill payment stays pending
FUNCTIONS = (*pay_bill.FUNCTIONS, "WebhookDispatcherFunction")


@pytest.fixture(scope="module")
def stack() -> Iterator[ProvisionedStack]:
    with functions_stack(*FUNCTIONS) as provisioned:
        pay_bill.load_billers()
        yield provisioned


def queued(hidden: int = 60) -> list[dict[str, Any]]:
    """PayBillSettlementQueue's messages as the event source hands them over (left invisible)."""
    return sqs_records(env("PAY_BILL_SETTLEMENT_QUEUE_URL"), "PayBillSettlementQueue", hidden)


def consumed(records: list[dict[str, Any]]) -> dict[str, Any]:
    """CollectionTransactionsFunction's handler given the records, as the event source does."""
    app = function_app("collection_transactions", "collection_transactions_app")
    context = SimpleNamespace(
        function_name="CollectionTransactionsFunction",
        memory_limit_in_mb=512,
        invoked_function_arn=f"arn:aws:lambda:{REGION}:123456789012:function:CollectionTransactionsFunction",
        aws_request_id="test",
        get_remaining_time_in_millis=lambda: 28_000,
    )
    return app.lambda_handler({"Records": records}, context)  # type: ignore[no-any-return]


def stream_image(account_id: str, resource_id: str, event_type: str) -> dict[str, Any]:
    events, _ = deps.events().page(gateway_account_of(account_id), "test", 50, None, resource_id=resource_id)
    (event,) = [e for e in events if e.type == event_type]
    return event.item()


def waiting_pay_bill(
    movement_id: str, meter: str = "04000000001", notify: bool = False
) -> tuple[str, str, dict[str, Any]]:
    """A pay_bill whose charge waits for the payer, the charge then approved: (account, customer,
    the transaction's history item as written)."""
    contact = {"email": "rita@example.com"} if notify else None
    account_id, customer_id, pm_id = pay_bill.business_with_wallet(phone=WAITING, contact=contact)
    body = pay_bill.bill_body(meter, notify_customer=notify)
    assert transactions.process(account_id, customer_id, pm_id, body, movement_id).status == "pending"
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    merchant = Principal.of_account(gateway_account_of(account_id), "test")
    assert charges.complete_action(merchant, item["reference"], None, None).status == "succeeded"
    return account_id, customer_id, item


def told(account_id: str) -> list[Any]:
    """The business's customer_transaction.processed events (the customer's messages), newest first."""
    events, _ = deps.events().page(account_id, "test", 50, None, event_type="customer_transaction.processed")
    return events


def stored(customer_id: str) -> dict[str, Any]:
    (found,) = deps.payment_methods().transactions_of(customer_id, 10)
    return found.history_item()


def test_the_step_posts_once_per_event_and_the_consumer_pays_the_bill_once(stack: ProvisionedStack) -> None:
    movement_id = "1a2b3c4d-5e6f-5a7b-8c9d-0e1f2a3b4c5d"
    account_id, customer_id, item = waiting_pay_bill(movement_id)
    assert queued() == []  # the charge's own events so far: nothing settled
    dispatch_event(stream_image(account_id, item["reference"], "payment.succeeded"))
    (record,) = queued()
    assert json.loads(record["body"]) == {
        "event_type": "payment.succeeded",
        "bill_payment_id": bill_payment_id(movement_id),
    }
    assert consumed([record]) == {"batchItemFailures": []}
    settled = stored(customer_id)  # nobody read the transaction
    assert (settled["status"], settled["bill"]["status"], len(settled["bill"]["token"])) == (
        "succeeded",
        "succeeded",
        20,
    )
    assert settled["bill"]["payment_id"] == bill_payment_id(movement_id)
    assert len(pay_bill.recorded(account_id, "bill_payment.created")) == 1
    assert consumed([record]) == {"batchItemFailures": []}  # the message played again: nothing more
    assert stored(customer_id) == settled and len(pay_bill.recorded(account_id, "bill_payment.created")) == 1
    read = transactions.read(account_id, customer_id, item["instruction_id"]).wire()["transaction"]
    assert read == settled


def test_a_pay_in_charge_is_handed_over_and_finds_no_pay_bill(stack: ProvisionedStack) -> None:
    account_id, customer_id, pm_id = pay_bill.business_with_wallet(phone=WAITING)
    body = {"transaction_type": "pay_in", "amount": Decimal("50"), "currency": "MZN"}
    transactions.process(account_id, customer_id, pm_id, body, "2b3c4d5e-6f7a-5b8c-9d0e-1f2a3b4c5d6e")
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    merchant = Principal.of_account(gateway_account_of(account_id), "test")
    charges.complete_action(merchant, item["reference"], None, None)
    dispatch_event(stream_image(account_id, item["reference"], "payment.succeeded"))
    records = queued()
    assert len(records) == 1 and consumed(records) == {"batchItemFailures": []}
    assert queued() == [] and stored(customer_id)["status"] == "pending"  # a pay_in is read, as before


def test_the_consumer_and_a_read_racing_pay_one_bill(stack: ProvisionedStack) -> None:
    movement_id = "3c4d5e6f-7a8b-5c9d-8e1f-2a3b4c5d6e7f"
    account_id, customer_id, item = waiting_pay_bill(movement_id)
    instruction_id = item["instruction_id"]

    def either(index: int) -> Any:
        if index == 0:
            return bill_transactions.settle("payment.succeeded", bill_payment_id(movement_id))
        return transactions.read(account_id, customer_id, instruction_id).wire()["transaction"]["status"]

    outcomes = race(2, either)
    assert [kind for kind, _ in outcomes] == ["ok", "ok"], outcomes
    assert len(pay_bill.recorded(account_id, "bill_payment.created")) == 1
    settled = stored(customer_id)
    assert (settled["status"], settled["bill"]["status"]) == ("succeeded", "succeeded")
    assert pay_bill.recorded(account_id, "refund.created") == []


def test_a_biller_down_leaves_the_message_for_a_later_attempt(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    movement_id = "4d5e6f7a-8b9c-5d0e-9f2a-3b4c5d6e7f8a"
    account_id, customer_id, item = waiting_pay_bill(movement_id)

    def down(*_: Any) -> Any:
        raise ServiceError(503, "biller_unavailable", "The biller is not answering.")

    dispatch_event(stream_image(account_id, item["reference"], "payment.succeeded"))
    (record,) = queued(hidden=0)  # visible again at once, as after the visibility timeout
    with monkeypatch.context() as patched:
        patched.setattr(bill_transactions, "_quoted", down)
        assert consumed([record]) == {"batchItemFailures": [{"itemIdentifier": record["messageId"]}]}
    assert stored(customer_id)["status"] == "pending" and pay_bill.recorded(account_id, "bill_payment.created") == []
    (again,) = queued()  # the same message, back on the queue
    assert again["messageId"] == record["messageId"]
    assert consumed([again]) == {"batchItemFailures": []}
    assert stored(customer_id)["status"] == "succeeded"
    assert len(pay_bill.recorded(account_id, "bill_payment.created")) == 1


def test_a_pending_bill_that_fails_later_refunds_the_charge_once(stack: ProvisionedStack) -> None:
    movement_id = "5e6f7a8b-9c0d-5e1f-8a3b-4c5d6e7f8a9b"
    account_id, customer_id, _ = waiting_pay_bill(movement_id, meter=SLOW_METER)
    assert bill_transactions.settle("payment.succeeded", bill_payment_id(movement_id)) == "pending"
    waiting = stored(customer_id)
    assert (waiting["status"], waiting["bill"]["status"]) == ("pending", "pending")
    payment = deps.bill_payments().get(bill_payment_id(movement_id))
    assert payment is not None
    declined = SupplierPayment(FAILED, failure_code="supplier_declined", failure_message="The biller declined it.")
    apply_answer(payment, declined)
    image = stream_image(account_id, payment.payment_id, "bill_payment.failed")
    dispatch_event(image)
    (record,) = queued()
    assert json.loads(record["body"]) == {"event_type": "bill_payment.failed", "bill_payment_id": payment.payment_id}
    assert consumed([record, {**record, "messageId": "again"}]) == {"batchItemFailures": []}  # played twice
    failed = stored(customer_id)
    assert (failed["status"], failed["bill"]["status"], failed["bill"]["failure_code"]) == (
        "failed",
        "failed",
        "supplier_declined",
    )
    assert failed["bill"]["refund_id"] and len(pay_bill.recorded(account_id, "refund.created")) == 1


def test_a_pending_bill_that_succeeds_later_tells_the_customer_once(stack: ProvisionedStack) -> None:
    movement_id = "6f7a8b9c-0d1e-5f2a-9b4c-5d6e7f8a9b0c"
    account_id, customer_id, _ = waiting_pay_bill(movement_id, meter=SLOW_METER, notify=True)
    before = len(told(account_id))
    assert bill_transactions.settle("payment.succeeded", bill_payment_id(movement_id)) == "pending"
    payment = deps.bill_payments().get(bill_payment_id(movement_id))
    assert payment is not None and reconcile_bill_payment(payment) == 1  # the sweep asks the supplier again
    for _ in range(2):  # the message played twice
        bill_transactions.settle("bill_payment.succeeded", payment.payment_id)
    settled = stored(customer_id)
    assert (settled["status"], len(settled["bill"]["token"])) == ("succeeded", 20)
    notices = told(account_id)
    assert len(notices) == before + 1 and notices[0].data["object"]["status"] == "succeeded"
