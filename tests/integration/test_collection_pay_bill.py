"""A customer's pay_bill (issue 34, item 5) against the stack of template.yaml in in-process
moto, through the real use cases: the customer's wallet charged the bill's total by the gateway's
own charge path, the bill paid from the business's float by the gateway's own bill payment, the
token in the answer and the history; a supplier's decline kept as failed with the charge
refunded; unknown products and billers refused before anything is written; a retry after a
fault and two racing tries of one movement pay the bill once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from devstack.collection_demo import DEMO_DETAILS
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access, charges
from mzpay.collection import kyc, onboarding, payment_methods, transactions
from mzpay.connectors.bill_suppliers import DATA
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.billers import BillerIn, ProductIn
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.errors import ServiceError
from mzpay.operators import billers
from mzpay.steps.business import gateway_account_of
from tests.integration.races import race
from tests.integration.support import functions_stack

REVIEWER = Identity("reviewer-1", "https://issuer.example", None, frozenset({"account:review"}), "configured")
ELECTRICITY = "01M8A0MH8BAHW8JZV956J9ME20"  # Credelec prepaid electricity: fee 5.00 borne by the payer
CREDELEC = "01M8A0MH8BAHW8JZV956J9ME1Z"
TV = "01M8A0MH8BAHW8JZV956J9ME23"
FUNCTIONS = ("CollectionTransactionsFunction", "CollectionRequestsFunction", "ManagementOperationsFunction")


@pytest.fixture(scope="module")
def stack() -> Iterator[ProvisionedStack]:
    with functions_stack(*FUNCTIONS) as provisioned:
        load_billers()
        yield provisioned


def load_billers() -> None:
    """The catalogue's Credelec and TV billers with their products (the simulated supplier)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for biller in data["billers"]:
        if biller["biller_id"] in (CREDELEC, TV):
            billers.create_biller(BillerIn.model_validate({k: v for k, v in biller.items() if k != "products"}))
            for product in biller["products"]:
                billers.add_product(biller["biller_id"], ProductIn.model_validate(product))


def business_with_wallet(
    name: str = "Loja", contact: dict[str, str] | None = None, phone: str = "+258841120000"
) -> tuple[str, str, str]:
    """An active business, its customer (with `contact`) and the customer's test M-Pesa wallet
    (`phone`: one ending in 0000 is charged at once, docs/test-mode.md)."""
    account_id = access.create_account(name, "mz").id
    onboarding.initialize(account_id)
    onboarding.put_details(account_id, DEMO_DETAILS)
    onboarding.finish(account_id)
    onboarding.decide(REVIEWER, "203.0.113.9", account_id, "approve")
    customer_id = kyc.register(account_id, "Rita Sitoe", "bi", contact).id
    details = {"phone_number": phone}
    pm = payment_methods.add(account_id, customer_id, "ptn_mpesa", "mobile_wallet", details, "test")
    return account_id, customer_id, pm.payment_method.id


def bill_body(meter: str = "04000000001", **changes: Any) -> dict[str, Any]:
    body = {
        "transaction_type": "pay_bill",
        "amount": Decimal("500"),
        "currency": "MZN",
        "product_id": ELECTRICITY,
        "destination": meter,
        "metadata": {},
    }
    return {**body, **changes}


def recorded(account_id: str, event_type: str) -> list[Any]:
    events, _ = deps.events().page(gateway_account_of(account_id), "test", 50, None, event_type=event_type)
    return events


def float_of(account_id: str) -> Decimal:
    item = deps.payments().table.get_item(Key={"pk": f"BAL#{gateway_account_of(account_id)}#test", "sk": "CUR#MZN"})
    return Decimal(item.get("Item", {}).get("available", 0))


def test_a_pay_bill_charges_the_total_and_pays_the_bill_with_its_token(stack: ProvisionedStack) -> None:
    account_id, customer_id, pm_id = business_with_wallet()
    result = transactions.process(
        account_id, customer_id, pm_id, bill_body(), "7f0c6b1e-3a2d-5b4c-8d9e-0f1a2b3c4d5e"
    ).wire()
    bill = result["bill"]
    assert (result["transaction_type"], result["status"]) == ("pay_bill", "succeeded")
    assert (bill["status"], bill["product_id"], bill["biller_id"], bill["reference"]) == (
        "succeeded",
        ELECTRICITY,
        CREDELEC,
        "04000000001",
    )
    assert (bill["amount"], bill["total"], bill["customer_name"]) == (Decimal("500"), Decimal("505"), "Ana Machava")
    assert len(bill["token"]) == 20 and bill["token"].isdigit() and bill["refund_id"] is None
    paid = deps.bill_payments().get(bill["payment_id"])
    assert paid is not None and (paid.status, paid.token, paid.amount) == ("succeeded", bill["token"], "500.00")
    (charge,) = recorded(account_id, "payment.succeeded")
    assert charge.data["object"]["money"] == {"amount": "505.00", "currency": "MZN"}
    assert float_of(account_id) == Decimal("0")  # the charge's 505.00 paid the bill's 505.00
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    assert (item["transaction_type"], item["status"], item["destination"], item["amount"]) == (
        "PAY_BILL",
        "succeeded",
        "04000000001",
        Decimal("500.00"),
    )
    assert item["reference"] == charge.resource_id and item["bill"] == bill


def test_notify_customer_sends_the_total_charged_and_names_the_customer_as_the_bills_payer(
    stack: ProvisionedStack,
) -> None:
    """The transaction's own message (the total the customer paid) and the bill's token or receipt
    to the customer's e-mail (the gateway's bill payment's payer: docs/notifications.md)."""
    account_id, customer_id, pm_id = business_with_wallet(contact={"email": "rita@example.co.mz"})
    body = bill_body(notify_customer=True)
    result = transactions.process(account_id, customer_id, pm_id, body, "6e4b8c0d-2f5a-5b7c-9d1e-3f4a5b6c7d8e").wire()
    paid = deps.bill_payments().get(result["bill"]["payment_id"])
    assert paid is not None and paid.payer == {"email": "rita@example.co.mz"}
    events, _ = deps.events().page(account_id, "test", 50, None, event_type="customer_transaction.processed")
    (notice,) = [e.data["object"] for e in events]
    assert (notice["instruction_id"], notice["amount"], notice["direction"], notice["status"]) == (
        result["transaction_id"],
        "505.00",
        "in",
        "succeeded",
    )
    quiet_account, quiet_customer, quiet_pm = business_with_wallet("Calada", {"email": "rita@example.co.mz"})
    quiet = transactions.process(
        quiet_account, quiet_customer, quiet_pm, bill_body(), "7f5c9d1e-3a6b-5c8d-8e2f-4a5b6c7d8e9f"
    )
    unnamed = deps.bill_payments().get(quiet.wire()["bill"]["payment_id"])
    assert unnamed is not None and unnamed.payer is None  # without notify_customer nothing is sent
    assert deps.events().page(quiet_account, "test", 50, None, event_type="customer_transaction.processed")[0] == []


def test_a_declined_bill_is_transaction_failed_kept_and_the_charge_refunded(stack: ProvisionedStack) -> None:
    account_id, customer_id, pm_id = business_with_wallet()
    with pytest.raises(ServiceError) as refused:
        transactions.process(
            account_id, customer_id, pm_id, bill_body("04000000402"), "3b1e5f7a-9c2d-5e4f-8a6b-0c1d2e3f4a5b"
        )
    assert (refused.value.status, refused.value.code) == (400, "transaction_failed")
    assert refused.value.extensions["error_code"] == "supplier_declined"
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    assert (item["status"], item["bill"]["status"], item["bill"]["failure_code"]) == (
        "failed",
        "failed",
        "supplier_declined",
    )
    assert item["instruction_id"] == refused.value.extensions["transaction_id"]
    (refund,) = recorded(account_id, "refund.created")
    assert refund.resource_id == item["bill"]["refund_id"]
    assert refund.data["object"]["money"] == {"amount": "505.00", "currency": "MZN"}


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"product_id": "01M8A0MH8BAHW8JZV956J9MZZZ"}, "product_id", "No such bill product."),
        ({"product_id": "not-an-id"}, "product_id", "No such bill product."),
        ({"biller_id": "01M8A0MH8BAHW8JZV956J9MZZZ"}, "biller_id", "No such biller."),
        ({"biller_id": TV}, "product_id", "The product is another biller's."),
    ],
)
def test_an_unknown_product_or_biller_is_refused_naming_it_before_anything_is_written(
    stack: ProvisionedStack, changes: dict[str, Any], field: str, message: str
) -> None:
    account_id, customer_id, pm_id = business_with_wallet()
    with pytest.raises(ServiceError) as refused:
        transactions.process(
            account_id, customer_id, pm_id, bill_body(**changes), "4c2f6a8b-0d3e-5f5a-9b7c-1d2e3f4a5b6c"
        )
    assert (refused.value.status, refused.value.code) == (400, "validation_error")
    assert [(e.field, e.code, e.message) for e in refused.value.errors] == [(field, "NOT_FOUND", message)]
    assert transactions.listed(account_id, customer_id, {}, 1, 20).data == []
    assert recorded(account_id, "payment.created") == []


def test_a_pay_bill_cut_by_a_fault_after_the_bill_is_finished_by_its_retry(stack: ProvisionedStack) -> None:
    """The charge and the bill went through but the history was not written: the retry (same
    movement) finds the charge and the bill payment and records them; nothing is paid twice."""
    from tests.integration.test_collection_request_races import FailingOnce

    account_id, customer_id, pm_id = business_with_wallet()
    movement_id = "2a7d9c4e-1b3f-5e6a-8c0d-4f2e1a3b5c7d"
    flaky = FailingOnce(deps.payment_methods(), "record")
    with deps.substitute(payment_methods=flaky), pytest.raises(Exception, match="Read timeout"):
        transactions.process(account_id, customer_id, pm_id, bill_body(), movement_id)
    assert transactions.listed(account_id, customer_id, {}, 1, 20).data == []
    result = transactions.process(account_id, customer_id, pm_id, bill_body(), movement_id).wire()
    assert (result["status"], result["bill"]["status"]) == ("succeeded", "succeeded")
    assert len(recorded(account_id, "bill_payment.created")) == 1
    assert len(recorded(account_id, "payment.created")) == 1
    assert recorded(account_id, "refund.created") == []


def test_two_racing_tries_of_one_movement_pay_the_bill_once(stack: ProvisionedStack) -> None:
    account_id, customer_id, pm_id = business_with_wallet()
    movement_id = "9e8d7c6b-5a4f-5e3d-8c2b-1a0f9e8d7c6b"
    outcomes = race(2, lambda _: transactions.process(account_id, customer_id, pm_id, bill_body(), movement_id))
    assert any(kind == "ok" for kind, _ in outcomes), outcomes
    # the loser may find the winner's bill payment still waiting for its supplier: pending
    bills = [result.wire()["bill"] for kind, result in outcomes if kind == "ok"]
    assert len({bill["payment_id"] for bill in bills}) == 1 and {b["status"] for b in bills} <= {"succeeded", "pending"}
    assert len(recorded(account_id, "bill_payment.created")) == 1
    assert len(recorded(account_id, "payment.created")) == 1
    assert recorded(account_id, "refund.created") == []


def test_another_business_reaches_no_customer_of_ours(stack: ProvisionedStack) -> None:
    _, customer_id, pm_id = business_with_wallet()
    other, _, _ = business_with_wallet("Outra")
    with pytest.raises(ServiceError) as refused:
        transactions.process(other, customer_id, pm_id, bill_body(), "5d3a7b9c-1e4f-5a6b-8c8d-2e3f4a5b6c7d")
    assert (refused.value.status, refused.value.code) == (404, "customer_not_found")


def test_a_charge_waiting_for_the_payer_pays_the_bill_once_read_after_it_succeeded(stack: ProvisionedStack) -> None:
    """A wallet whose charge waits for the payer's approval on the phone: the pay_bill is pending
    with no bill paid; once the payer approved, the next read pays the bill (once, whoever reads)."""
    account_id, customer_id, pm_id = business_with_wallet(phone="+258841121234")
    waiting = transactions.process(account_id, customer_id, pm_id, bill_body(), "8a6d0e2f-4b7c-5d9e-8f3a-5b6c7d8e9f0a")
    assert (waiting.status, waiting.wire()["bill"]["payment_id"], waiting.wire()["bill"]["status"]) == (
        "pending",
        None,
        None,
    )
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    assert item["status"] == "pending" and recorded(account_id, "bill_payment.created") == []
    merchant = Principal.of_account(gateway_account_of(account_id), "test")
    assert charges.complete_action(merchant, item["reference"], None, None).status == "succeeded"
    reads = race(2, lambda _: transactions.read(account_id, customer_id, item["instruction_id"]).wire()["transaction"])
    settled = [read for kind, read in reads if kind == "ok"]
    assert len(settled) == 2, reads
    for read in settled:
        assert (read["status"], read["bill"]["status"], len(read["bill"]["token"])) == ("succeeded", "succeeded", 20)
    (stored,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    assert stored["bill"] == settled[0]["bill"] and stored["status"] == "succeeded"
    assert len(recorded(account_id, "bill_payment.created")) == 1
    assert recorded(account_id, "refund.created") == []


def test_a_declined_charge_pays_no_bill(stack: ProvisionedStack) -> None:
    account_id, customer_id, pm_id = business_with_wallet(phone="+258841120001")  # insufficient funds
    with pytest.raises(ServiceError) as refused:
        transactions.process(account_id, customer_id, pm_id, bill_body(), "9b7e1f3a-5c8d-5e0f-9a4b-6c7d8e9f0a1b")
    assert (refused.value.code, refused.value.extensions["error_code"]) == ("transaction_failed", "insufficient_funds")
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).wire()["data"]
    assert (item["status"], item["bill"]["payment_id"], item["bill"]["total"]) == ("failed", None, Decimal("505"))
    assert recorded(account_id, "bill_payment.created") == [] and recorded(account_id, "refund.created") == []
