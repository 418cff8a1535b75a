"""The billers' own API over HTTP through the local stack (issue 17, item 6): a key of a registered
biller's account changes its open, unpaid invoices (409 invoice_locked once paid in part or
closed) and attaches their PDF to S3 with its checksum (409 invoice_closed on a cancelled one);
any other key is 403 not_a_biller; an invoice a channel pays reaches the biller as a signed
webhook (bill_payment.received)."""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_bill_payments import WATER, pay, quoted, refused, seeded
from tests.e2e.test_billers import manage
from tests.e2e.test_charges import Merchant
from tests.e2e.test_payouts import funded, stack_secret
from tests.e2e.test_webhooks import Receiver

pytestmark = pytest.mark.e2e

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


def registered(stack: RunningStack) -> tuple[Merchant, str]:
    """An account registered as a water utility's (with a copy of the seeded water product)."""
    organisation = Merchant(stack)
    biller, product = seeded(WATER)
    fields = {k: v for k, v in biller.items() if k not in ("products", "biller_id")}
    made = manage(stack, "POST", "/v1/billers", {**fields, "account_id": organisation.account["id"]}).json()
    body = {k: v for k, v in product.items() if k != "product_id"}
    added = manage(stack, "POST", f"/v1/billers/{made['biller_id']}/products", body)
    assert added.status_code == 201, added.text
    return organisation, added.json()["product_id"]


def patch(shop: Merchant, number: str, body: dict[str, Any]) -> requests.Response:
    return shop.call("PATCH", f"/v1/biller/invoices/{number}", body, idempotency_key=None)


def attach(shop: Merchant, number: str, content: bytes = PDF, media: str = "application/pdf") -> requests.Response:
    headers = {"Authorization": f"Bearer {shop.test_key}", "Content-Type": media}
    url = f"{shop.gateway}/v1/biller/invoices/{number}/document"
    return requests.put(url, data=content, headers=headers, timeout=30)


def test_a_key_of_another_account_is_not_a_biller(stack: RunningStack) -> None:
    registered(stack)
    stranger = Merchant(stack)
    detail = "This account is not a registered biller: the billers' API is for billers."
    refused(patch(stranger, "FT2026-000101", {"amount_due": "1.00"}), 403, "not_a_biller", detail)
    refused(attach(stranger, "FT2026-000101"), 403, "not_a_biller", detail)


def test_a_biller_changes_an_open_unpaid_invoice_until_a_channel_pays_it(stack: RunningStack) -> None:
    organisation, product_id = registered(stack)
    changed = patch(organisation, "FT2026-000102", {"amount_due": "850", "due_date": "2026-12-31"})
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body == {
        "number": "FT2026-000102",
        "status": "open",
        "customer_name": "Carlos Nhantumbo",
        "amount_due": "850.00",
        "paid": "0.00",
        "outstanding": "850.00",
        "currency": "MZN",
        "due_date": "2026-12-31",
        "description": None,
        "document": None,
        "updated_at": body["updated_at"],
    }
    channel = funded(stack, "1000.00")
    made = quoted(channel, product_id, "FT2026-000102", "100.00")
    assert made["invoice"] == {
        "number": "FT2026-000102",
        "amount_due": "850.00",
        "outstanding": "850.00",
        "due_date": "2026-12-31",
    }
    assert pay(channel, made["quote_id"]).json()["status"] == "succeeded"
    locked = patch(organisation, "FT2026-000102", {"amount_due": "900.00"})
    refused(locked, 409, "invoice_locked", "Invoice FT2026-000102 is partially_paid or paid in part: it cannot change.")
    refused(patch(organisation, "FT2026-000103", {"description": "x"}), 409, "invoice_locked")  # paid at the biller
    refused(patch(organisation, "FT2026-999999", {"description": "x"}), 404, "not_found", "No such invoice.")
    refused(patch(organisation, "FT2026-000101", {"amount_due": "-1"}), 400, "invalid_amount")


def test_a_change_and_a_payment_racing_on_one_invoice_are_judged_one_after_the_other(stack: RunningStack) -> None:
    organisation, product_id = registered(stack)
    channel = funded(stack, "2000.00")
    made = quoted(channel, product_id, "FT2026-000101", "200.00")
    with ThreadPoolExecutor(max_workers=2) as pool:
        paying = pool.submit(pay, channel, made["quote_id"])
        changing = pool.submit(patch, organisation, "FT2026-000101", {"amount_due": "1600.00"})
        paid, changed = paying.result(), changing.result()
    invoice = quoted(channel, product_id, "FT2026-000101")["invoice"]
    due, owed = invoice["amount_due"], invoice["outstanding"]
    if changed.status_code == 200 and paid.status_code == 201:  # the change, then the payment on it
        assert (due, owed) == ("1600.00", "1400.00")
    elif changed.status_code == 200:  # the change landed between the payment's read and its write
        assert paid.status_code == 409 and paid.json()["code"] == "invalid_state", paid.text
        assert (due, owed) == ("1600.00", "1600.00")
    else:  # the payment came first: the invoice is paid in part and locked
        assert paid.status_code == 201 and changed.json()["code"] == "invoice_locked", changed.text
        assert (due, owed) == ("1500.00", "1300.00")


def test_a_biller_attaches_an_invoices_pdf_with_its_checksum(stack: RunningStack) -> None:
    organisation, _product_id = registered(stack)
    answer = attach(organisation, "FT2026-000101")
    assert answer.status_code == 200, answer.text
    document = answer.json()["document"]
    digest = hashlib.sha256(PDF).hexdigest()
    assert document == {
        "bucket": document["bucket"],
        "key": document["key"],
        "sha256": digest,
        "size": len(PDF),
        "content_type": "application/pdf",
        "uploaded_at": document["uploaded_at"],
    }
    assert document["key"].endswith(f"/FT2026-000101/{digest}.pdf")
    kept = stack.aws("s3").get_object(Bucket=document["bucket"], Key=document["key"])
    assert kept["Body"].read() == PDF
    assert (kept["ContentType"], kept["Metadata"]) == ("application/pdf", {"sha256": digest})
    refused(attach(organisation, "FT2026-000104"), 409, "invoice_closed", "Invoice FT2026-000104 is cancelled.")
    refused(attach(organisation, "FT2026-000101", b"not a pdf"), 400, "invalid_request")
    refused(attach(organisation, "FT2026-000101", PDF, "image/png"), 400, "invalid_request")


def test_an_invoice_paid_through_a_channel_reaches_the_biller_signed(stack: RunningStack, receiver: Receiver) -> None:
    organisation, product_id = registered(stack)
    secret = stack_secret(stack, organisation)
    url = receiver.endpoint()
    assert organisation.call("PUT", "/v1/webhook-endpoint", {"url": url}, idempotency_key=None).status_code == 200
    channel = funded(stack, "2000.00")
    payment = pay(channel, quoted(channel, product_id, "FT2026-000102")["quote_id"]).json()
    assert payment["status"] == "succeeded"
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    event = json.loads(arrival.body)
    assert (event["type"], event["resource_id"]) == ("bill_payment.received", payment["payment_id"])
    assert event["data"]["object"] == {
        "object": "bill_payment_received",
        "payment_id": payment["payment_id"],
        "biller_id": payment["biller_id"],
        "product_id": product_id,
        "reference": "FT2026-000102",
        "customer_name": "Carlos Nhantumbo",
        "invoice_number": "FT2026-000102",
        "amount": "800.00",
        "biller_credit": "790.00",
        "currency": "MZN",
        "receipt_number": payment["receipt_number"],
        "paid_at": event["data"]["object"]["paid_at"],
    }
