"""Transactions on customers' payment methods through the local stack, in test mode: queries
answered by the simulator's documented numbers, money moved by the gateway (a pay_in is a charge
of the business's account, a transfer a payout that settles through the queue), declines and
provider failures in the spec's codes, the history with its filters, and tenancy."""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest

from devstack.launcher import RunningStack
from mzpay.domain.partners.transactions import TYPES
from tests.e2e.collection_client import Collection, assert_error, assert_ok, validation
from tests.polling import eventually

pytestmark = pytest.mark.e2e
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


@pytest.fixture(scope="module")
def customer(mz: Collection) -> str:
    return str(assert_ok(mz.call("POST", "/v1/customers", {"name": "Pedro Cossa", "document_type": "bi"}))["id"])


def wallet(mz: Collection, customer: str, phone: str, mode: str = "test") -> str:
    body = {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {"phone_number": phone}, "mode": mode}
    return str(assert_ok(mz.call("POST", f"/v1/customers/{customer}/payment_methods", body))["payment_method"]["id"])


def process(
    mz: Collection, customer: str, pm_id: str, body: dict[str, Any], token: str = "demo", key: str | None = None
) -> Any:
    """One transaction request, with an Idempotency-Key of its own unless `key` names one."""
    path = f"/v1/customers/{customer}/payment_methods/{pm_id}/transactions"
    return mz.call("POST", path, body, token=token, headers={"Idempotency-Key": key or str(uuid.uuid4())})


def history(mz: Collection, customer: str, **params: Any) -> dict[str, Any]:
    return assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions", params=params))


def test_check_balance_is_answered_by_the_simulator(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841110000")
    result = assert_ok(process(mz, customer, pm_id, {"transaction_type": "check_balance"}))
    assert STAMP.match(result["processed_at"]) and result["transaction_id"].startswith("ins_")
    assert result == {
        "object": "transaction",
        "transaction_id": result["transaction_id"],
        "transaction_type": "check_balance",
        "status": "succeeded",
        "balance": {"available": 10000.0, "pending": 0.0, "currency": "MZN"},
        "authorization": None,
        "processed_at": result["processed_at"],
        "error_code": None,
        "error_message": None,
    }
    item = assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions/{result['transaction_id']}"))
    assert item["object"] == "transaction"
    assert item["transaction"] == {
        "reference": result["transaction_id"],
        "instruction_id": result["transaction_id"],
        "transaction_type": "BALANCE_QUERY",
        "amount": None,
        "currency": "MZN",
        "description": None,
        "destination": None,
        "status": "succeeded",
        "role": "sender",
        "payment_method_id": pm_id,
        "partner_id": "ptn_mpesa",
        "created_at": item["transaction"]["created_at"],
        "processed_at": result["processed_at"],
    }


def test_a_declined_query_is_transaction_failed_and_a_provider_failure_502(mz: Collection, customer: str) -> None:
    declined = wallet(mz, customer, "+258841110001")
    answer = process(mz, customer, declined, {"transaction_type": "check_balance"})
    assert answer.status_code == 400 and answer.json()["code"] == "transaction_failed", answer.text
    assert answer.json()["message"] == "The account has insufficient funds."
    assert answer.json()["metadata"]["error_code"] == "insufficient_funds"
    failed = history(mz, customer, payment_method_id=declined)["data"]
    assert [(t["status"], t["instruction_id"]) for t in failed] == [
        ("failed", answer.json()["metadata"]["transaction_id"])
    ]
    down = wallet(mz, customer, "+258841110003")
    assert_error(
        process(mz, customer, down, {"transaction_type": "validata"}),
        502,
        "provider_error",
        "The provider did not answer; retry later.",
    )
    assert history(mz, customer, payment_method_id=down)["data"] == []


def test_a_pay_in_is_a_gateway_charge_and_a_transfer_a_payout(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841120000")
    paid_in = assert_ok(
        process(mz, customer, pm_id, {"transaction_type": "pay_in", "amount": 500, "description": "Quota de Dezembro"})
    )
    assert (paid_in["status"], paid_in["transaction_type"]) == ("succeeded", "pay_in")
    item = assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions/{paid_in['transaction_id']}"))[
        "transaction"
    ]
    gateway = mz.stack.state["regions"]["mz"]["gateway"]
    import requests

    headers = {"Authorization": f"Bearer {mz.demo['test_key']}"}
    charge = requests.get(f"{gateway}/payments/{item['reference']}", headers=headers, timeout=30).json()
    assert (charge["status"], charge["money"]) == ("succeeded", {"amount": "500.00", "currency": "MZN"})
    assert (item["transaction_type"], item["amount"], item["role"]) == ("PAY_IN", 500.0, "receiver")

    sent = assert_ok(
        process(mz, customer, pm_id, {"transaction_type": "transfer", "amount": 120.5, "destination": "+258841130000"})
    )
    assert sent["status"] == "pending"  # a payout: it settles through the queue
    deadline = time.monotonic() + 30
    while True:
        moved = assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions/{sent['transaction_id']}"))[
            "transaction"
        ]
        if moved["status"] != "pending" or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert (moved["status"], moved["transaction_type"], moved["destination"], moved["amount"]) == (
        "succeeded",
        "TRANSFER",
        "+258841130000",
        120.5,
    )
    payout = requests.get(f"{gateway}/payouts/{moved['reference']}", headers=headers, timeout=30).json()
    assert payout["status"] == "paid"
    transfers = history(mz, customer, type="mobile_wallet", description="dezembro")["data"]
    assert [t["instruction_id"] for t in transfers] == [paid_in["transaction_id"]]
    page = history(mz, customer, payment_method_id=pm_id, limit=1, page=2)
    assert [t["instruction_id"] for t in page["data"]] == [paid_in["transaction_id"]] and page["has_more"] is False


MPESA_ONLY = "M-Pesa numbers start with +258 84 or 85"
REFUSED_BODIES = [  # (body, code, message, the refused fields)
    (
        {"transaction_type": "transfer"},
        "missing_field",
        "The request has problems: amount.",
        [("amount", "REQUIRED", "a transfer moves money: how much")],
    ),
    (
        {"transaction_type": "refund", "amount": -1},
        "validation_error",
        "The request has problems: transaction_type, amount.",
        [
            ("transaction_type", "INVALID_FORMAT", "one of " + ", ".join(TYPES)),
            ("amount", "INVALID_FORMAT", "a number more than zero, at most 10000000.00"),
        ],
    ),
    (  # an M-Pesa method pays out to M-Pesa numbers: the payout's own rule, never a 500
        {"transaction_type": "transfer", "amount": 5, "destination": "+258861230000"},
        "validation_error",
        "The request has problems: destination.",
        [("destination", "INVALID_FORMAT", MPESA_ONLY)],
    ),
]


def test_refusals(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841140000")
    for body, code, message, fields in REFUSED_BODIES:
        assert_error(process(mz, customer, pm_id, body), 400, code, message, validation(*fields))
    assert history(mz, customer, payment_method_id=pm_id)["data"] == []  # nothing moved, nothing recorded
    assert_ok(mz.call("POST", f"/v1/customers/{customer}/payment_methods/{pm_id}/status", {"status": "inactive"}))
    assert_error(
        process(mz, customer, pm_id, {"transaction_type": "check_balance"}),
        400,
        "invalid_request",
        "The payment method is inactive.",
        {"payment_method_status": "inactive"},
    )
    other = mz.active_business()[1]  # an active business: its writes pass the gate, reach nothing of ours
    assert_error(
        process(mz, customer, pm_id, {"transaction_type": "check_balance"}, token=other),
        404,
        "customer_not_found",
        "No such customer.",
    )
    assert_error(
        mz.call("GET", f"/v1/customers/{customer}/transactions", token=other),
        404,
        "customer_not_found",
        "No such customer.",
    )
    assert_error(
        mz.call("GET", f"/v1/customers/{customer}/transactions/ins_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        404,
        "not_found",
        "No such transaction.",
    )
    answer = mz.call("GET", f"/v1/customers/{customer}/transactions", params={"limit": 101})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"


def test_a_transaction_runs_once_per_idempotency_key(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841150000")
    body = {"transaction_type": "pay_in", "amount": 40}
    assert_error(
        process(mz, customer, pm_id, body, key="k" * 256),
        400,
        "invalid_idempotency_key",
        "Idempotency-Key is longer than 255 bytes.",
    )
    assert history(mz, customer, payment_method_id=pm_id)["data"] == []
    key = str(uuid.uuid4())
    first = process(mz, customer, pm_id, body, key=key)
    paid = assert_ok(first)
    again = process(mz, customer, pm_id, body, key=key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == paid
    assert [t["instruction_id"] for t in history(mz, customer, payment_method_id=pm_id)["data"]] == [
        paid["transaction_id"]
    ]
    assert_error(
        process(mz, customer, pm_id, {**body, "amount": 41}, key=key),
        409,
        "idempotency_key_reused",
        "This Idempotency-Key was used for another request (method, path or body).",
    )
    other = mz.active_business()[1]  # an active business: its writes pass the gate, reach nothing of ours
    assert_error(
        process(mz, customer, pm_id, body, token=other, key=key), 404, "customer_not_found", "No such customer."
    )


# pay_bill (docs/partners.md, "pay_bill: a customer's bill"): the simulated Credelec's prepaid
# electricity (fee 5.00 borne by the payer) answers by the meter (docs/test-mode.md, "Bill payments")
ELECTRICITY = "01M8A0MH8BAHW8JZV956J9ME20"
CREDELEC = "01M8A0MH8BAHW8JZV956J9ME1Z"
TVCABO = "01M8A0MH8BAHW8JZV956J9ME23"
TOKEN = re.compile(r"^\d{20}$")


def bill(meter: str = "04000000001", **changes: Any) -> dict[str, Any]:
    return {"transaction_type": "pay_bill", "amount": 500, "product_id": ELECTRICITY, "destination": meter, **changes}


def on_gateway(mz: Collection, path: str, **params: Any) -> dict[str, Any]:
    """A read of the business's gateway account (the demo account), with its test key."""
    import requests

    gateway = mz.stack.state["regions"]["mz"]["gateway"]
    headers = {"Authorization": f"Bearer {mz.demo['test_key']}"}
    answer = requests.get(f"{gateway}{path}", headers=headers, params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def charges_of(mz: Collection, phone: str) -> list[dict[str, Any]]:
    """The gateway payments made from the customer's wallet (`phone`, unique to the test): the
    account's payment.created events, every page."""
    found, params = [], {"type": "payment.created", "limit": 100}
    while True:
        page = on_gateway(mz, "/v1/events", **params)
        found += [e for e in page["data"] if json.dumps(e["data"]["object"].get("source")).count(phone)]
        if not page["has_more"]:
            return found
        params["starting_after"] = page["next_cursor"]


def test_a_pay_bill_charges_the_customer_and_pays_the_bill_with_its_token(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841160000")
    paid = assert_ok(process(mz, customer, pm_id, bill(description="Credelec de Dezembro", biller_id=CREDELEC)))
    token = paid["bill"]["token"]
    assert TOKEN.match(token) and STAMP.match(paid["processed_at"])
    assert paid == {
        "object": "transaction",
        "transaction_id": paid["transaction_id"],
        "transaction_type": "pay_bill",
        "status": "succeeded",
        "balance": None,
        "authorization": None,
        "processed_at": paid["processed_at"],
        "error_code": None,
        "error_message": None,
        "bill": paid["bill"],
    }
    assert paid["bill"] == {
        "payment_id": paid["bill"]["payment_id"],
        "biller_id": CREDELEC,
        "product_id": ELECTRICITY,
        "reference": "04000000001",
        "customer_name": "Ana Machava",
        "amount": 500.0,
        "total": 505.0,
        "status": "succeeded",
        "token": token,
        "receipt_number": paid["bill"]["receipt_number"],
        "failure_code": None,
        "refund_id": None,
    }
    assert paid["bill"]["receipt_number"].startswith("SIM")  # the simulated supplier's receipt
    item = assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions/{paid['transaction_id']}"))["transaction"]
    assert item == {
        "reference": item["reference"],
        "instruction_id": paid["transaction_id"],
        "transaction_type": "PAY_BILL",
        "amount": 500.0,
        "currency": "MZN",
        "description": "Credelec de Dezembro",
        "destination": "04000000001",
        "status": "succeeded",
        "role": "sender",
        "payment_method_id": pm_id,
        "partner_id": "ptn_mpesa",
        "created_at": item["created_at"],
        "processed_at": paid["processed_at"],
        "bill": paid["bill"],
    }
    charge = on_gateway(mz, f"/payments/{item['reference']}")  # the customer paid the bill's total
    assert (charge["status"], charge["money"]) == ("succeeded", {"amount": "505.00", "currency": "MZN"})
    gateway_bill = on_gateway(mz, f"/v1/bill-payments/{paid['bill']['payment_id']}")
    assert (gateway_bill["status"], gateway_bill["token"], gateway_bill["amount"], gateway_bill["reference"]) == (
        "succeeded",
        token,
        "500.00",
        "04000000001",
    )
    listed = history(mz, customer, payment_method_id=pm_id)["data"]
    assert [(t["transaction_type"], t["bill"]["token"]) for t in listed] == [("PAY_BILL", token)]


def test_a_declined_bill_is_transaction_failed_kept_and_the_charge_refunded(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841170000")
    answer = process(mz, customer, pm_id, bill("04000000402"))
    assert answer.status_code == 400 and answer.json()["code"] == "transaction_failed", answer.text
    metadata = answer.json()["metadata"]
    assert metadata["error_code"] == "supplier_declined"
    (item,) = history(mz, customer, payment_method_id=pm_id)["data"]
    assert (item["instruction_id"], item["status"], item["transaction_type"]) == (
        metadata["transaction_id"],
        "failed",
        "PAY_BILL",
    )
    assert (item["bill"]["status"], item["bill"]["failure_code"], item["bill"]["token"]) == (
        "failed",
        "supplier_declined",
        None,
    )
    refund = on_gateway(mz, f"/v1/refunds/{item['bill']['refund_id']}")
    assert (refund["provider_payment_id"], refund["money"]) == (
        item["reference"],
        {"amount": "505.00", "currency": "MZN"},
    )


PAY_BILL_REFUSALS = [  # (body, status, code, message, the refused fields)
    (
        {"transaction_type": "pay_bill", "amount": 500},
        400,
        "missing_field",
        "The request has problems: product_id, destination.",
        [
            ("product_id", "REQUIRED", "the bill product to pay"),
            ("destination", "REQUIRED", "the meter, account, phone or invoice number to pay"),
        ],
    ),
    (
        bill(product_id="01M8A0MH8BAHW8JZV956J9MZZZ"),
        400,
        "validation_error",
        "The request has problems: product_id.",
        [("product_id", "NOT_FOUND", "No such bill product.")],
    ),
    (
        bill(biller_id="01M8A0MH8BAHW8JZV956J9MZZZ"),
        400,
        "validation_error",
        "The request has problems: biller_id.",
        [("biller_id", "NOT_FOUND", "No such biller.")],
    ),
    (
        bill(biller_id=TVCABO),
        400,
        "validation_error",
        "The request has problems: product_id.",
        [("product_id", "NOT_FOUND", "The product is another biller's.")],
    ),
    (
        {"transaction_type": "pay_in", "amount": 5, "product_id": ELECTRICITY},
        400,
        "validation_error",
        "The request has problems: product_id.",
        [("product_id", "INVALID_FORMAT", "only a pay_bill names a bill")],
    ),
]


def test_pay_bill_refusals_write_nothing(mz: Collection, customer: str) -> None:
    pm_id = wallet(mz, customer, "+258841180000")
    for body, status, code, message, fields in PAY_BILL_REFUSALS:
        assert_error(process(mz, customer, pm_id, body), status, code, message, validation(*fields))
    assert_error(  # the biller refuses the meter: before the customer is charged
        process(mz, customer, pm_id, bill("04000000403")),
        422,
        "reference_rejected",
        "The biller refused this reference (blocked or suspended there).",
    )
    assert history(mz, customer, payment_method_id=pm_id)["data"] == []
    assert charges_of(mz, "+258841180000") == []
    other = mz.active_business()[1]  # another business reaches no customer of ours
    assert_error(process(mz, customer, pm_id, bill(), token=other), 404, "customer_not_found", "No such customer.")
    assert history(mz, customer, payment_method_id=pm_id)["data"] == []


def test_two_identical_pay_bills_racing_with_one_key_pay_once(mz: Collection, customer: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    pm_id = wallet(mz, customer, "+258841190000")
    key = str(uuid.uuid4())
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: process(mz, customer, pm_id, bill(), key=key), range(2)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses in ([200, 200], [200, 409]), [a.text for a in answers]
    for answer in answers:
        if answer.status_code == 409:
            assert answer.json()["code"] == "request_in_progress", answer.text
    paid = next(answer.json() for answer in answers if answer.status_code == 200)
    again = process(mz, customer, pm_id, bill(), key=key)  # once both are done: the first answer
    assert again.status_code == 200 and again.json() == paid
    (item,) = history(mz, customer, payment_method_id=pm_id)["data"]
    assert item["bill"]["payment_id"] == paid["bill"]["payment_id"]
    (charge,) = charges_of(mz, "+258841190000")
    assert charge["data"]["object"]["provider_payment_id"] == item["reference"]
    created = on_gateway(mz, "/v1/events", type="bill_payment.created", resource_id=paid["bill"]["payment_id"])
    assert len(created["data"]) == 1


def test_a_pay_bill_whose_charge_waits_for_the_payer_pays_the_bill_once_the_charge_succeeded(
    mz: Collection, customer: str
) -> None:
    """A wallet not ending in 0000: the charge waits for the payer's approval (the simulated payer
    approves 3 s later, docs/test-mode.md); the bill is paid by the first read after the gateway
    has the charge succeeded."""
    pm_id = wallet(mz, customer, "+258841201234")
    waiting = assert_ok(process(mz, customer, pm_id, bill("04000000002")))
    assert (waiting["status"], waiting["bill"]["payment_id"], waiting["bill"]["status"]) == ("pending", None, None)
    item = assert_ok(mz.call("GET", f"/v1/customers/{customer}/transactions/{waiting['transaction_id']}"))
    charge = item["transaction"]["reference"]
    eventually(lambda: on_gateway(mz, f"/payments/{charge}")["status"], lambda status: status == "succeeded", 60)
    path = f"/v1/customers/{customer}/transactions/{waiting['transaction_id']}"
    paid = assert_ok(mz.call("GET", path))["transaction"]
    assert (paid["status"], paid["bill"]["status"], paid["bill"]["customer_name"]) == (
        "succeeded",
        "succeeded",
        "Carlos Nhantumbo",
    )
    assert TOKEN.match(paid["bill"]["token"]) and paid["reference"] == charge
    assert assert_ok(mz.call("GET", path))["transaction"] == paid  # read again: the same bill, paid once
    created = on_gateway(mz, "/v1/events", type="bill_payment.created", resource_id=paid["bill"]["payment_id"])
    assert len(created["data"]) == 1


def test_a_pay_bill_whose_charge_waits_is_paid_without_anyone_reading_it(mz: Collection, customer: str) -> None:
    """The charge waits for the payer (the simulated payer approves it); once the gateway has it
    succeeded, the outbox hands the charge's payment.succeeded over (PayBillSettlementQueue) and
    CollectionTransactionsFunction pays the bill: the bill payment appears on the gateway while
    nobody reads the transaction; the first read then finds it succeeded with its token."""
    phone = "+258841205678"
    pm_id = wallet(mz, customer, phone)
    waiting = assert_ok(process(mz, customer, pm_id, bill("04000000002")))
    assert (waiting["status"], waiting["bill"]["payment_id"]) == ("pending", None)
    opened = on_gateway(mz, "/v1/events", type="payment.created", limit=100)["data"]
    (charge,) = [
        e["data"]["object"]["provider_payment_id"]
        for e in opened
        if ((e["data"]["object"].get("source") or {}).get("mobile_wallet") or {}).get("phone_number") == phone
    ]
    # the simulated payer approves it; the gateway's read of its payment records payment.succeeded
    eventually(lambda: on_gateway(mz, f"/payments/{charge}")["status"], lambda status: status == "succeeded", 60)

    def bills_of_the_method() -> list[dict[str, Any]]:
        listed = on_gateway(mz, "/v1/bill-payments", product_id=ELECTRICITY, page_size=100)["data"]
        return [b for b in listed if (b.get("metadata") or {}).get("payment_method_id") == pm_id]

    paid = eventually(bills_of_the_method, lambda found: [b["status"] for b in found] == ["succeeded"], 120, 1)
    assert [b["status"] for b in paid] == ["succeeded"], paid
    path = f"/v1/customers/{customer}/transactions/{waiting['transaction_id']}"
    read = assert_ok(mz.call("GET", path))["transaction"]
    assert (read["status"], read["bill"]["status"], read["bill"]["payment_id"]) == (
        "succeeded",
        "succeeded",
        paid[0]["payment_id"],
    )
    assert TOKEN.match(read["bill"]["token"]) and read["bill"]["token"] == paid[0]["token"]
    created = on_gateway(mz, "/v1/events", type="bill_payment.created", resource_id=paid[0]["payment_id"])
    assert len(created["data"]) == 1
