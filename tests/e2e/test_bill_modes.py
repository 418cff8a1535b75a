"""Modes never meet on bill invoices (issue 30, item 4), over HTTP through the local stack. An
invoice number names one invoice per mode (docs/bills.md, "Modes"): a test payment of a biller's
invoice by an unrelated channel never locks the biller's live invoice, a live edit never changes
what test quotes and test reads show, and a test key never reads what a live key wrote. The
simulated supplier answers test traffic only, so the live side answers as a live invoice the
gateway was never shown: 422 biller_unavailable (until issue 30 it answered from the test
record: 409 invoice_locked after a test payment, 200 with the change shared by both modes)."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_bill_payments import pay, quote, quoted
from tests.e2e.test_biller_api import PDF, registered
from tests.e2e.test_charges import Merchant
from tests.e2e.test_payouts import funded
from tests.expected import problem

pytestmark = pytest.mark.e2e

BILLER = "Águas da Região de Maputo"
NO_LIVE_SUPPLIER = problem(
    422, "Unprocessable Content", "biller_unavailable", f"{BILLER} has no supplier configured for live payments."
)


def patch(shop: Merchant, number: str, body: dict[str, Any], key: str | None = None) -> requests.Response:
    return shop.call("PATCH", f"/v1/biller/invoices/{number}", body, key=key, idempotency_key=None)


def attach(shop: Merchant, number: str, key: str) -> requests.Response:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/pdf"}
    return requests.put(f"{shop.gateway}/v1/biller/invoices/{number}/document", data=PDF, headers=headers, timeout=30)


def answered(response: requests.Response, status: int, body: dict[str, Any]) -> None:
    assert (response.status_code, response.json()) == (status, body), response.text


def water_invoice(number: str, customer: str, due: str, **changes: Any) -> dict[str, Any]:
    """A water invoice as the biller's test key reads it (the simulator's data, docs/test-mode.md)."""
    return {
        "number": number,
        "status": "open",
        "customer_name": customer,
        "amount_due": due,
        "paid": "0.00",
        "outstanding": due,
        "currency": "MZN",
        "due_date": "2026-12-15",
        "description": None,
        "document": None,
        **changes,
    }


def test_a_test_payment_by_another_channel_never_locks_the_live_invoice(stack: RunningStack) -> None:
    organisation, product_id = registered(stack)
    live_before = patch(organisation, "FT2026-000102", {"description": "live"}, key=organisation.live_key)
    answered(live_before, 422, NO_LIVE_SUPPLIER)

    channel = funded(stack, "1000.00")  # an unrelated merchant, in test mode
    paid = pay(channel, quoted(channel, product_id, "FT2026-000102")["quote_id"])
    assert (paid.status_code, paid.json()["status"], paid.json()["amount"]) == (201, "succeeded", "800.00"), paid.text
    locked = patch(organisation, "FT2026-000102", {"description": "test"})
    answered(
        locked,
        409,
        problem(
            409,
            "Conflict",
            "invoice_locked",
            "Invoice FT2026-000102 is paid or paid in part: it cannot change.",
        ),
    )

    # the live invoice is not the paid test one: the live key and a live quote answer as before
    answered(
        patch(organisation, "FT2026-000102", {"description": "live"}, key=organisation.live_key), 422, NO_LIVE_SUPPLIER
    )
    answered(attach(organisation, "FT2026-000102", organisation.live_key), 422, NO_LIVE_SUPPLIER)
    answered(quote(channel, product_id, "FT2026-000102", key=channel.live_key), 422, NO_LIVE_SUPPLIER)


def test_a_live_edit_never_changes_test_quotes_or_test_reads(stack: RunningStack) -> None:
    organisation, product_id = registered(stack)
    channel = Merchant(stack)
    first = quoted(channel, product_id, "FT2026-000101")  # the test invoice is kept from here on
    assert first["invoice"]["amount_due"] == "1500.00", first

    live = {
        "amount_due": "1.00",
        "customer_name": "Live Customer",
        "description": "live only",
        "due_date": "2027-01-31",
    }
    answered(patch(organisation, "FT2026-000101", live, key=organisation.live_key), 422, NO_LIVE_SUPPLIER)
    answered(attach(organisation, "FT2026-000101", organisation.live_key), 422, NO_LIVE_SUPPLIER)

    made = quoted(channel, product_id, "FT2026-000101")
    assert (made["customer_name"], made["amount"], made["invoice"]) == (
        "Ana Machava",
        "1500.00",
        {"number": "FT2026-000101", "amount_due": "1500.00", "outstanding": "1500.00", "due_date": "2026-12-15"},
    )
    read = patch(organisation, "FT2026-000101", {})  # an empty change reads the test invoice
    assert read.status_code == 200, read.text
    assert read.json() == {
        **water_invoice("FT2026-000101", "Ana Machava", "1500.00"),
        "updated_at": read.json()["updated_at"],
    }


def test_what_a_test_key_writes_stays_in_test(stack: RunningStack) -> None:
    """The other direction: the test invoice's change and its PDF (kept under the test mode's
    prefix) are read by test keys only; the live key still has no invoice of that number."""
    organisation, product_id = registered(stack)
    changed = patch(organisation, "FT2026-000102", {"amount_due": "750.00", "description": "test only"})
    assert changed.status_code == 200, changed.text
    document = attach(organisation, "FT2026-000102", organisation.test_key)
    assert document.status_code == 200, document.text
    answered(patch(organisation, "FT2026-000102", {}, key=organisation.live_key), 422, NO_LIVE_SUPPLIER)
    kept = document.json()["document"]
    assert kept["key"].startswith("invoices/") and "/test/FT2026-000102/" in kept["key"], kept
    assert document.json() == {
        **water_invoice("FT2026-000102", "Carlos Nhantumbo", "750.00", description="test only", document=kept),
        "updated_at": document.json()["updated_at"],
    }
    channel = Merchant(stack)
    answered(quote(channel, product_id, "FT2026-000102", key=channel.live_key), 422, NO_LIVE_SUPPLIER)
    assert quoted(channel, product_id, "FT2026-000102")["invoice"]["amount_due"] == "750.00"


def invoices_of(stack: RunningStack, biller_id: str) -> list[tuple[str, str]]:
    """The payments table's invoice records of a biller: (pk, mode), from DynamoDB itself."""
    dynamodb = stack.aws("dynamodb")
    table = stack.state["resources"]["mz"]["PaymentsTable"]
    found: list[tuple[str, str]] = []
    start: dict[str, Any] | None = None
    while True:
        page = dynamodb.scan(
            TableName=table,
            ConsistentRead=True,
            FilterExpression="begins_with(pk, :invoices)",
            ExpressionAttributeValues={":invoices": {"S": f"INVOICE#{biller_id}#"}},
            **({"ExclusiveStartKey": start} if start else {}),
        )
        found += [(item["pk"]["S"], item["mode"]["S"]) for item in page["Items"]]
        start = page.get("LastEvaluatedKey")
        if not start:
            return sorted(found)


def test_operators_write_the_catalogue_and_an_invoice_enters_in_the_mode_that_asked(stack: RunningStack) -> None:
    """What operators register (a biller and its product, on the management API) is one catalogue
    for both modes and holds no invoice; the first test quote keeps the test invoice only."""
    organisation, product_id = registered(stack)
    channel = Merchant(stack)
    answered(quote(channel, product_id, "FT2026-000105", key=channel.live_key), 422, NO_LIVE_SUPPLIER)
    made = quoted(channel, product_id, "FT2026-000105")  # the same product, in test
    biller_id = made["biller_id"]
    assert invoices_of(stack, biller_id) == [(f"INVOICE#{biller_id}#test#FT2026-000105", "test")]
    assert patch(organisation, "FT2026-000105", {"description": "test"}).status_code == 200
    assert invoices_of(stack, biller_id) == [(f"INVOICE#{biller_id}#test#FT2026-000105", "test")]
