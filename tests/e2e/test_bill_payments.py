"""Bill payments over HTTP through the local stack (issue 17, items 2 and 3): quotes of each kind
of simulated product with every code of the quote (reference_not_found, reference_rejected,
amount_out_of_range, biller_unavailable 503 and 422, invoice_closed, quote_expired), and reads;
payments follow in this module's second half."""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import ROOT, RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_billers import manage
from tests.e2e.test_charges import Merchant, created, events_of
from tests.e2e.test_payouts import funded, stack_secret
from tests.e2e.test_refunds import assert_ledger_balances, balance
from tests.e2e.test_webhooks import Receiver

pytestmark = pytest.mark.e2e

DATA = json.loads((ROOT / "layers/core/python/mzpay/domain/data/billers.json").read_text(encoding="utf-8"))
ELECTRICITY = "01M8A0MH8BAHW8JZV956J9ME20"
WATER = "01M8A0MH8BAHW8JZV956J9ME22"
TV_COMPACTO = "01M8A0MH8BAHW8JZV956J9ME24"
AIRTIME = "01M8A0MH8BAHW8JZV956J9ME27"
SCHOOL = "01M8A0MH8BAHW8JZV956J9ME29"


def seeded(product_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return next((b, p) for b in DATA["billers"] for p in b["products"] if p["product_id"] == product_id)


def fresh(stack: RunningStack, product_id: str, **changes: Any) -> tuple[str, str]:
    """A new biller with a copy of a seeded product (its own invoices, limits and status): their ids."""
    biller, product = seeded(product_id)
    fields = {k: v for k, v in biller.items() if k not in ("products", "biller_id")}
    made = manage(stack, "POST", "/v1/billers", fields).json()
    body = {**{k: v for k, v in product.items() if k != "product_id"}, **changes}
    added = manage(stack, "POST", f"/v1/billers/{made['biller_id']}/products", body)
    assert added.status_code == 201, added.text
    return made["biller_id"], added.json()["product_id"]


def quote(
    shop: Merchant, product_id: str, reference: str, amount: str | None = None, key: str | None = None
) -> requests.Response:
    body = {"product_id": product_id, "reference": reference, **({"amount": amount} if amount else {})}
    return shop.call("POST", "/v1/bill-payments/quotes", body, key=key, idempotency_key=None)


def refused(answer: requests.Response, status: int, code: str, detail: str | None = None) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == code
    if detail is not None:
        assert answer.json()["detail"] == detail


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


# ---------------------------------------------------------------- quotes
# What the quote for Ana's 500.00 MZN of prepaid electricity says, and the payment of it again.
ANAS_ELECTRICITY = {
    "product_id": ELECTRICITY,
    "product_name": "Credelec prepaid electricity",
    "biller_id": "01M8A0MH8BAHW8JZV956J9ME1Z",
    "biller_name": "EDM Credelec",
    "reference": "04000000001",
    "customer_name": "Ana Machava",
    "amount": "500.00",
    "currency": "MZN",
    "fee": {"amount": "5.00", "bearer": "payer"},
    "discount": None,
    "total": "505.00",
    "channel_debit": "505.00",
}


def test_a_prepaid_electricity_quote(shop: Merchant) -> None:
    body = created(quote(shop, ELECTRICITY, "04000000001", "500.00"))
    assert body == {
        "quote_id": body["quote_id"],
        "status": "quoted",
        **ANAS_ELECTRICITY,
        "invoice": None,
        "yields": "token",
        "payment_id": None,
        "expires_at": body["expires_at"],
        "created_at": body["created_at"],
    }
    assert body["expires_at"] > body["created_at"]
    read = shop.call("GET", f"/v1/bill-payments/quotes/{body['quote_id']}", idempotency_key=None)
    assert read.status_code == 200 and read.json() == body


INVOICE_DUE = {"number": "FT2026-000102", "amount_due": "800.00", "outstanding": "800.00", "due_date": "2026-12-15"}


@pytest.mark.parametrize(
    ("product_id", "reference", "amount", "expected"),
    [
        (
            TV_COMPACTO,
            "7010000001",
            None,
            {"amount": "1250.00", "discount": {"amount": "50.00", "bearer": "biller"}, "total": "1200.00"}
            | {"channel_debit": "1200.00", "customer_name": "Fátima Cossa"},
        ),
        (AIRTIME, "+258841234567", "100.00", {"amount": "100.00", "total": "100.00", "yields": "receipt"}),
        (
            WATER,
            "FT2026-000102",
            None,
            {"amount": "800.00", "fee": {"amount": "10.00", "bearer": "biller"}, "total": "800.00"}
            | {"channel_debit": "800.00", "invoice": INVOICE_DUE},
        ),
        (SCHOOL, "PROP-2026-0001", None, {"amount": "12500.00", "customer_name": "Inês Tembe"}),
    ],
    ids=["tv", "airtime", "water", "school"],
)
def test_quotes_of_each_kind(
    shop: Merchant, product_id: str, reference: str, amount: str | None, expected: dict[str, Any]
) -> None:
    answer = quote(shop, product_id, reference, amount).json()
    assert {name: answer[name] for name in expected} == expected


@pytest.mark.parametrize(
    ("product_id", "reference", "amount", "detail"),
    [
        (ELECTRICITY, "04000000001", "19.99", "Credelec prepaid electricity takes from 20.00 to 50000.00."),
        (ELECTRICITY, "04000000009", "1000.01", "The biller takes at most 1000.00 for this reference."),
        (TV_COMPACTO, "7010000001", "1000.00", "TVCabo Compacto (1 month) costs exactly 1250.00."),
        (
            AIRTIME,
            "+258841234567",
            "75.00",
            "Vodacom recharge is sold in 20.00, 50.00, 100.00, 200.00, 500.00, 1000.00 only.",
        ),
        (WATER, "FT2026-000101", "1500.01", "Invoice FT2026-000101 owes 1500.00; it takes no more."),
        (SCHOOL, "PROP-2026-0001", "5000.00", "Invoice PROP-2026-0001 is paid in full only (12500.00)."),
    ],
)
def test_an_amount_the_product_or_reference_refuses_is_amount_out_of_range(
    shop: Merchant, product_id: str, reference: str, amount: str, detail: str
) -> None:
    refused(quote(shop, product_id, reference, amount), 422, "amount_out_of_range", detail)


def test_an_open_amount_needs_the_amount(shop: Merchant) -> None:
    answer = quote(shop, ELECTRICITY, "04000000001")
    refused(answer, 400, "invalid_request", "amount: a open product needs the amount.")
    assert answer.json()["errors"] == [
        {"field": "amount", "code": "required", "message": "a open product needs the amount"}
    ]
    refused(quote(shop, ELECTRICITY, "04000000001", "1.001"), 400, "invalid_amount")


def test_references_the_biller_does_not_take(shop: Merchant) -> None:
    refused(
        quote(shop, ELECTRICITY, "04000000077", "100.00"),
        422,
        "reference_not_found",
        "EDM Credelec knows no customer for reference 04000000077.",
    )
    refused(
        quote(shop, ELECTRICITY, "04000000403", "100.00"),
        422,
        "reference_rejected",
        "The biller refused this reference (blocked or suspended there).",
    )
    refused(quote(shop, TV_COMPACTO, "7010000403"), 422, "reference_rejected")
    refused(quote(shop, AIRTIME, "+258840000403", "20.00"), 422, "reference_rejected")


def test_an_invoice_no_longer_open_is_invoice_closed(shop: Merchant) -> None:
    refused(quote(shop, WATER, "FT2026-000103"), 409, "invoice_closed", "Invoice FT2026-000103 is paid.")
    refused(quote(shop, WATER, "FT2026-000104"), 409, "invoice_closed", "Invoice FT2026-000104 is cancelled.")
    refused(quote(shop, SCHOOL, "PROP-2026-0002"), 409, "invoice_closed", "Invoice PROP-2026-0002 is expired.")


def test_a_supplier_outage_is_503_biller_unavailable_with_retry_after(shop: Merchant) -> None:
    answer = quote(shop, ELECTRICITY, "04000000503", "100.00")
    refused(answer, 503, "biller_unavailable", "EDM Credelec's system does not answer; retry in 60 s.")
    assert answer.headers["Retry-After"] == "60"
    refused(quote(shop, WATER, "FT2026-000503"), 503, "biller_unavailable")


def test_a_biller_not_accepting_payments_is_422_biller_unavailable(stack: RunningStack, shop: Merchant) -> None:
    biller_id, product_id = fresh(stack, ELECTRICITY)
    assert quote(shop, product_id, "04000000001", "100.00").status_code == 201
    assert manage(stack, "PATCH", f"/v1/billers/{biller_id}", {"status": "paused"}).status_code == 200
    refused(
        quote(shop, product_id, "04000000001", "100.00"),
        422,
        "biller_unavailable",
        "EDM Credelec is not accepting payments (paused).",
    )
    # the simulated supplier answers test traffic only: a live quote has no supplier
    assert manage(stack, "PATCH", f"/v1/billers/{biller_id}", {"status": "active"}).status_code == 200
    refused(
        quote(shop, product_id, "04000000001", "100.00", key=shop.live_key),
        422,
        "biller_unavailable",
        "EDM Credelec has no supplier configured for live payments.",
    )


def test_a_quote_past_its_validity_reads_expired(shop: Merchant) -> None:
    made = quote(shop, ELECTRICITY, "04000000410", "100.00").json()
    time.sleep(1.2)
    read = shop.call("GET", f"/v1/bill-payments/quotes/{made['quote_id']}", idempotency_key=None).json()
    assert read["status"] == "expired"


def test_an_unknown_product_or_quote_is_not_found(shop: Merchant) -> None:
    refused(quote(shop, "01JD8Z5K3M2N4P6Q7R8S9T0VWX", "x", "1.00"), 404, "not_found", "No such bill product.")
    missing = shop.call("GET", "/v1/bill-payments/quotes/01JD8Z5K3M2N4P6Q7R8S9T0VWX", idempotency_key=None)
    refused(missing, 404, "not_found", "No such bill quote.")


# ---------------------------------------------------------------- payments
def pay(shop: Merchant, quote_id: str, idempotency_key: str | None = "fresh", **extra: Any) -> requests.Response:
    return shop.call("POST", "/v1/bill-payments", {"quote_id": quote_id, **extra}, idempotency_key=idempotency_key)


def paying(shop: Merchant, quote_id: str, attempts: int = 5) -> requests.Response:
    """A payment as a careful client makes it: a 503 (a busy machine's authorizer, a conflict) is
    retried as is, with the same Idempotency-Key, after its Retry-After."""
    key = str(uuid.uuid4())
    for _ in range(attempts):
        answer = pay(shop, quote_id, key)
        if answer.status_code != 503:
            return answer
        time.sleep(float(answer.headers.get("Retry-After", "1")))
    return answer


def quoted(shop: Merchant, product_id: str, reference: str, amount: str | None = None) -> dict[str, Any]:
    answer = quote(shop, product_id, reference, amount)
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def paid_ok(shop: Merchant, product_id: str, reference: str, amount: str | None = None) -> dict[str, Any]:
    answer = pay(shop, quoted(shop, product_id, reference, amount)["quote_id"])
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "succeeded", answer.text
    return answer.json()  # type: ignore[no-any-return]


def floats(shop: Merchant) -> list[dict[str, str]]:
    return balance(shop)["balances"]  # type: ignore[no-any-return]


def test_a_prepaid_token_is_delivered_from_the_channels_float(stack: RunningStack, receiver: Receiver) -> None:
    shop = funded(stack, "1000.00")
    secret = stack_secret(stack, shop)
    url = receiver.endpoint()
    made = quoted(shop, ELECTRICITY, "04000000001", "500.00")
    key = str(uuid.uuid4())
    body = created(pay(shop, made["quote_id"], key, callback_url=url, payer={"phone_number": "+258841234567"}))
    assert body == {
        "payment_id": body["payment_id"],
        "quote_id": made["quote_id"],
        "status": "succeeded",
        **ANAS_ELECTRICITY,
        "invoice_number": None,
        "token": body["token"],
        "receipt_number": body["receipt_number"],
        "failure_code": None,
        "failure_message": None,
        "payer": {"phone_number": "+258841234567"},
        "resends": 0,
        "metadata": {},
        "created_at": body["created_at"],
        "updated_at": body["updated_at"],
    }
    assert len(body["token"]) == 20 and body["token"].isdigit() and body["receipt_number"].startswith("SIM")
    assert floats(shop) == [{"currency": "MZN", "available": "495.00", "held": "0.00", "fees": "0.00"}]
    assert_ledger_balances(stack, shop)
    read = shop.call("GET", f"/v1/bill-payments/{body['payment_id']}", idempotency_key=None)
    assert read.status_code == 200 and read.json() == body
    used = shop.call("GET", f"/v1/bill-payments/quotes/{made['quote_id']}", idempotency_key=None).json()
    assert (used["status"], used["payment_id"]) == ("used", body["payment_id"])
    replay = pay(shop, made["quote_id"], key, callback_url=url, payer={"phone_number": "+258841234567"})
    assert replay.status_code == 201 and replay.json() == body and replay.headers["Idempotent-Replayed"] == "true"
    again = pay(shop, made["quote_id"])
    refused(again, 409, "quote_used", f"This quote was already paid ({body['payment_id']}); quote again.")
    assert floats(shop) == [{"currency": "MZN", "available": "495.00", "held": "0.00", "fees": "0.00"}]
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    event = json.loads(arrival.body)
    assert (event["type"], event["resource_id"], event["data"]["object"]) == (
        "bill_payment.succeeded",
        body["payment_id"],
        body,
    )
    assert events_of(stack, body["payment_id"]) == ["bill_payment.created", "bill_payment.succeeded"]


def test_concurrent_payments_of_one_quote_have_exactly_one_winner(stack: RunningStack) -> None:
    shop = funded(stack, "2000.00")
    made = quoted(shop, TV_COMPACTO, "7010000002")
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: paying(shop, made["quote_id"]), range(8)))
    won = [a for a in answers if a.status_code == 201]
    assert len(won) == 1, [a.text for a in answers]
    for lost in answers:
        if lost is not won[0]:
            refused(lost, 409, "quote_used")
    assert won[0].json()["status"] == "succeeded"
    assert floats(shop) == [{"currency": "MZN", "available": "800.00", "held": "0.00", "fees": "0.00"}]


def test_a_float_that_does_not_cover_it_is_insufficient_balance(stack: RunningStack) -> None:
    shop = funded(stack, "100.00")
    made = quoted(shop, AIRTIME, "+258842345678", "200.00")
    refused(
        pay(shop, made["quote_id"]), 422, "insufficient_balance", "The available balance does not cover 200.00 MZN."
    )
    assert quote_status(shop, made["quote_id"]) == "quoted"
    assert floats(shop) == [{"currency": "MZN", "available": "100.00", "held": "0.00", "fees": "0.00"}]
    assert paid_ok(shop, AIRTIME, "+258842345678", "100.00")["receipt_number"].startswith("SIM")
    assert floats(shop) == [{"currency": "MZN", "available": "0.00", "held": "0.00", "fees": "0.00"}]


def quote_status(shop: Merchant, quote_id: str) -> str:
    return shop.call("GET", f"/v1/bill-payments/quotes/{quote_id}", idempotency_key=None).json()["status"]  # type: ignore[no-any-return]


def test_an_expired_quote_is_quote_expired(stack: RunningStack) -> None:
    shop = funded(stack, "500.00")
    made = quoted(shop, ELECTRICITY, "04000000410", "100.00")
    time.sleep(1.2)
    refused(
        pay(shop, made["quote_id"]), 422, "quote_expired", f"This quote expired at {made['expires_at']}; quote again."
    )
    assert quote_status(shop, made["quote_id"]) == "expired"
    refused(pay(shop, made["quote_id"]), 422, "quote_expired")
    assert floats(shop) == [{"currency": "MZN", "available": "500.00", "held": "0.00", "fees": "0.00"}]


def test_an_invoice_is_paid_partly_then_fully_then_closed(stack: RunningStack) -> None:
    shop = funded(stack, "2000.00")
    _biller, water = fresh(stack, WATER)
    first = paid_ok(shop, water, "FT2026-000101", "600.00")
    assert (first["invoice_number"], first["channel_debit"], first["token"]) == ("FT2026-000101", "600.00", None)
    rest = quoted(shop, water, "FT2026-000101")
    assert (rest["amount"], rest["invoice"]["outstanding"]) == ("900.00", "900.00")
    refused(quote(shop, water, "FT2026-000101", "900.01"), 422, "amount_out_of_range")
    second = pay(shop, rest["quote_id"])
    assert second.status_code == 201 and second.json()["status"] == "succeeded"
    refused(quote(shop, water, "FT2026-000101"), 409, "invoice_closed", "Invoice FT2026-000101 is paid.")
    assert floats(shop) == [{"currency": "MZN", "available": "500.00", "held": "0.00", "fees": "0.00"}]


def test_two_quotes_of_one_invoice_cannot_both_pay_it(stack: RunningStack) -> None:
    shop = funded(stack, "30000.00")
    _biller, school = fresh(stack, SCHOOL)
    one, two = quoted(shop, school, "PROP-2026-0001"), quoted(shop, school, "PROP-2026-0001")
    assert pay(shop, one["quote_id"]).json()["status"] == "succeeded"
    refused(pay(shop, two["quote_id"]), 409, "invoice_closed", "Invoice PROP-2026-0001 is paid.")
    assert quote_status(shop, two["quote_id"]) == "quoted"
    assert floats(shop) == [{"currency": "MZN", "available": "17500.00", "held": "0.00", "fees": "0.00"}]


def test_racing_quotes_of_one_invoice_pay_it_once(stack: RunningStack) -> None:
    shop = funded(stack, "30000.00")
    _biller, school = fresh(stack, SCHOOL)
    quotes = [quoted(shop, school, "PROP-2026-0001")["quote_id"] for _ in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda quote_id: paying(shop, quote_id), quotes))
    won = [a for a in answers if a.status_code == 201]
    assert len(won) == 1 and won[0].json()["status"] == "succeeded", [a.text for a in answers]
    assert sorted(a.json()["code"] for a in answers if a is not won[0]) in (
        ["invalid_state", "invalid_state", "invalid_state"],
        ["invalid_state", "invalid_state", "invoice_closed"],
        ["invalid_state", "invoice_closed", "invoice_closed"],
        ["invoice_closed", "invoice_closed", "invoice_closed"],
    )
    assert floats(shop) == [{"currency": "MZN", "available": "17500.00", "held": "0.00", "fees": "0.00"}]


def test_each_kind_of_product_is_paid(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    tv = paid_ok(shop, TV_COMPACTO, "7010000001")
    assert (tv["total"], tv["channel_debit"], tv["token"]) == ("1200.00", "1200.00", None)
    airtime = paid_ok(shop, AIRTIME, "+258841234567", "50.00")
    assert airtime["receipt_number"].startswith("SIM") and airtime["token"] is None
    assert floats(shop) == [{"currency": "MZN", "available": "3750.00", "held": "0.00", "fees": "0.00"}]


def test_product_daily_limits_are_limit_exceeded(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    _biller, airtime = fresh(stack, AIRTIME, daily_limit_per_reference="1000.00", daily_limit_per_channel="1500.00")
    paid_ok(shop, airtime, "+258841234567", "1000.00")
    over = pay(shop, quoted(shop, airtime, "+258841234567", "20.00")["quote_id"])
    refused(over, 422, "limit_exceeded", "The product's daily limit per reference (1000.00 MZN) would be exceeded.")
    assert over.json()["rule"] == "reference_daily" and over.json()["rejection_id"]
    paid_ok(shop, airtime, "+258842345678", "500.00")
    channel = pay(shop, quoted(shop, airtime, "+258842345678", "20.00")["quote_id"])
    refused(channel, 422, "limit_exceeded", "The product's daily limit per channel (1500.00 MZN) would be exceeded.")
    assert channel.json()["rule"] == "channel_daily"
    assert floats(shop) == [{"currency": "MZN", "available": "3500.00", "held": "0.00", "fees": "0.00"}]
    assert events_of(stack, over.json()["rejection_id"]) == ["transaction.rejected"]


def test_a_payment_the_biller_refuses_gives_the_float_back(stack: RunningStack, receiver: Receiver) -> None:
    shop = funded(stack, "500.00")
    url = receiver.endpoint()
    answer = pay(shop, quoted(shop, ELECTRICITY, "04000000402", "100.00")["quote_id"], callback_url=url)
    assert answer.status_code == 201
    body = answer.json()
    assert (body["status"], body["failure_code"], body["failure_message"], body["token"]) == (
        "failed",
        "supplier_declined",
        "The biller declined it.",
        None,
    )
    assert floats(shop) == [{"currency": "MZN", "available": "500.00", "held": "0.00", "fees": "0.00"}]
    assert_ledger_balances(stack, shop)
    (arrival,) = receiver.wait_for(url, 1)
    assert json.loads(arrival.body)["type"] == "bill_payment.failed"


def test_a_supplier_timeout_leaves_it_pending_until_reconciliation(stack: RunningStack) -> None:
    shop = funded(stack, "500.00")
    answer = pay(shop, quoted(shop, ELECTRICITY, "04000000408", "100.00")["quote_id"])
    assert answer.status_code == 201
    body = answer.json()
    assert (body["status"], body["token"], body["receipt_number"]) == ("pending", None, None)
    assert floats(shop) in (
        [{"currency": "MZN", "available": "395.00", "held": "105.00", "fees": "0.00"}],
        [
            {"currency": "MZN", "available": "395.00", "held": "0.00", "fees": "0.00"}
        ],  # the sweep was quicker than this read
    )
    deadline = time.monotonic() + 30
    while True:
        read = shop.call("GET", f"/v1/bill-payments/{body['payment_id']}", idempotency_key=None).json()
        if read["status"] != "pending" or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert read["status"] == "succeeded" and len(read["token"]) == 20
    assert floats(shop) == [{"currency": "MZN", "available": "395.00", "held": "0.00", "fees": "0.00"}]
    assert events_of(stack, body["payment_id"]) == ["bill_payment.created", "bill_payment.succeeded"]


def test_a_payment_needs_an_idempotency_key_and_a_valid_body(stack: RunningStack) -> None:
    shop = funded(stack, "100.00")
    made = quoted(shop, AIRTIME, "+258841234567", "20.00")
    refused(pay(shop, made["quote_id"], idempotency_key=None), 400, "idempotency_key_required")
    refused(pay(shop, made["quote_id"], payer={"phone_number": "84123"}), 400, "invalid_phone")
    refused(pay(shop, made["quote_id"], callback_url="ftp://x"), 400, "invalid_callback_url")
    refused(pay(shop, "01JD8Z5K3M2N4P6Q7R8S9T0VWX"), 404, "not_found", "No such bill quote.")
    assert quote_status(shop, made["quote_id"]) == "quoted"
