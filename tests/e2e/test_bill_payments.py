"""Bill payments over HTTP through the local stack (issue 17, items 2 and 3): quotes of each kind
of simulated product with every code of the quote (reference_not_found, reference_rejected,
amount_out_of_range, biller_unavailable 503 and 422, invoice_closed, quote_expired), and reads;
payments follow in this module's second half."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import requests

from devstack.launcher import ROOT, RunningStack
from tests.e2e.test_billers import manage
from tests.e2e.test_charges import Merchant

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
def test_a_prepaid_electricity_quote(shop: Merchant) -> None:
    answer = quote(shop, ELECTRICITY, "04000000001", "500.00")
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body == {
        "object": "bill_quote",
        "quote_id": body["quote_id"],
        "status": "quoted",
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
        "invoice": None,
        "yields": "token",
        "payment_id": None,
        "expires_at": body["expires_at"],
        "created_at": body["created_at"],
    }
    assert body["expires_at"] > body["created_at"]
    read = shop.call("GET", f"/v1/bill-payments/quotes/{body['quote_id']}", idempotency_key=None)
    assert read.status_code == 200 and read.json() == body


def test_quotes_of_each_kind(shop: Merchant) -> None:
    tv = quote(shop, TV_COMPACTO, "7010000001").json()
    assert (tv["amount"], tv["discount"], tv["total"], tv["channel_debit"]) == (
        "1250.00",
        {"amount": "50.00", "bearer": "biller"},
        "1200.00",
        "1200.00",
    )
    assert tv["customer_name"] == "Fátima Cossa"
    airtime = quote(shop, AIRTIME, "+258841234567", "100.00").json()
    assert (airtime["amount"], airtime["total"], airtime["yields"]) == ("100.00", "100.00", "receipt")
    water = quote(shop, WATER, "FT2026-000102").json()
    assert (water["amount"], water["fee"], water["total"], water["channel_debit"]) == (
        "800.00",
        {"amount": "10.00", "bearer": "biller"},
        "800.00",
        "800.00",
    )
    assert water["invoice"] == {
        "number": "FT2026-000102",
        "amount_due": "800.00",
        "outstanding": "800.00",
        "due_date": "2026-12-15",
    }
    school = quote(shop, SCHOOL, "PROP-2026-0001").json()
    assert (school["amount"], school["customer_name"]) == ("12500.00", "Inês Tembe")


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
