"""Suspended means stopped, over HTTP (docs/onboarding.md): a business a reviewer suspended, and a
token naming a gateway account that never onboarded, are refused on every collection route that
carries the active-business gate (listed from the route tables, so a new gated route needs its
case here) with the whole 403 answer, and nothing is stored; the payment link of a suspended
business shows its payer a page (pt, en) and opens no checkout, and a checkout the link opened
before the suspension takes no payment. Reactivated, the business works again."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.collection.access import CALLER_ACTIVE
from tests.e2e.collection_client import Collection, assert_error, assert_ok
from tests.e2e.management_client import Operator
from tests.e2e.test_collection_kyc import PNG
from tests.e2e.test_collection_requests import payer
from tests.polling import eventually
from tests.unit.test_business_gate import ROUTES

pytestmark = pytest.mark.e2e
GATED = {route for route, access in ROUTES.items() if access.business == CALLER_ACTIVE}
SUSPENDED = "The business account is suspended: only an active account may do this."
NOT_ONBOARDED = "The account has not onboarded as a business: only an active account may do this."


class Business:
    """A fresh gateway account, onboarded and approved as a business, with a test M-Pesa method,
    a customer with a test wallet that received a pay_in, two collection requests (the first
    one's payment link opened: its checkout is open) and a bank statement line waiting."""

    def __init__(self, mz: Collection) -> None:
        self.mz = mz
        self.account_id, self.token = mz.active_business("Loja Suspensa", "suspended-business")
        self.test_key = Operator(mz.stack, "mz").key(self.account_id)["key"]
        self.reviewer = mz.mint(account_id=None, sub="reviewer-1", scope="account:review")
        self.method_id = self.ok("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"})["id"]
        customer = self.ok("POST", "/v1/customers", {"name": "Pedro Cossa", "document_type": "bi"})
        self.customer_id, self.kyc_id = customer["id"], customer["kyc"]["kyc_id"]
        wallet = {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {"phone_number": "+258841120000"}}
        self.pm_id = self.ok("POST", f"/v1/customers/{self.customer_id}/payment_methods", {**wallet, "mode": "test"})[
            "payment_method"
        ]["id"]
        paid_in = self.transaction({"transaction_type": "pay_in", "amount": 500, "description": "Quota"})
        assert paid_in.status_code == 200 and paid_in.json()["status"] == "succeeded", paid_in.text
        self.opened = self.ok("POST", "/v1/collection-requests", self.request_body())["id"]
        link = requests.get(f"{mz.url}/pay/{self.opened}", allow_redirects=False, timeout=30)
        assert link.status_code == 303, link.text
        self.checkout_url = link.headers["Location"]
        self.unopened = self.ok("POST", "/v1/collection-requests", self.request_body())["id"]
        waiting = {
            "mode": "test",
            "format": "lines",
            "lines": [{"date": "2026-11-03", "amount": 10, "description": "X"}],
        }
        assert self.ok("POST", "/v1/bank-statements", waiting)["unmatched"] == 1
        lines = self.ok("GET", "/v1/bank-statement-lines?mode=test")["data"]
        self.line_id = lines[0]["id"]

    def ok(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        return assert_ok(self.mz.call(method, path, body, token=self.token))

    def request_body(self) -> dict[str, Any]:
        return {
            "description": "Factura de Dezembro",
            "collection_method_ids": [self.method_id],
            "amount": {"currency": "MZN", "value": 250},
            # delivered to the ERP: no message is sent in the background, so storage stays still
            # while the test compares it (docs/notifications.md)
            "payer": payer("+258841234567", delivery_method="erp"),
        }

    def transaction(self, body: dict[str, Any], token: str | None = None) -> requests.Response:
        path = f"/v1/customers/{self.customer_id}/payment_methods/{self.pm_id}/transactions"
        return self.mz.call(
            "POST", path, body, token=token or self.token, headers={"Idempotency-Key": str(uuid.uuid4())}
        )

    def review(self, action: str) -> None:
        """A reviewer's decision; a suspension's e-mail to the business (docs/notifications.md) is
        sent in the background: waited for, so that it is not taken for a refused route's write."""
        sent = self.suspension_notices()
        assert_ok(self.mz.call("POST", f"/v1/accounts/{self.account_id}/{action}", {}, token=self.reviewer))
        if action == "suspend":
            eventually(self.suspension_notices, lambda count: count > sent, timeout=30)

    def suspension_notices(self) -> int:
        """How many suspension e-mails to this business were sent (their provider records)."""
        cause = f"business_account.suspended:{self.account_id}"
        return sum(
            1
            for item in self.scan("PaymentsTable")
            if item["pk"]["S"].startswith("PROVIDER#") and item.get("message", {}).get("S", "").startswith(cause)
        )

    def scan(self, table: str) -> Iterator[dict[str, Any]]:
        state = self.mz.stack.state
        dynamodb = boto3.client(
            "dynamodb",
            endpoint_url=state["aws_endpoint"],
            region_name=state["aws_regions"]["mz"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        for page in dynamodb.get_paginator("scan").paginate(TableName=state["resources"]["mz"][table]):
            yield from page["Items"]

    def cases(self) -> dict[tuple[str, str], tuple[str, Any]]:
        """For each gated route: a concrete path of this business's resources and a body of the
        route's shape (a refusal must come from the gate, not from the body)."""
        customer, kyc = self.customer_id, self.kyc_id
        return {
            ("POST", "/v1/collection-methods"): ("/v1/collection-methods", {"type": "emola", "mode": "test"}),
            ("POST", "/v1/collection-methods/{method_id}/status"): (
                f"/v1/collection-methods/{self.method_id}/status",
                {"status": "inactive"},
            ),
            ("POST", "/v1/collection-requests"): ("/v1/collection-requests", self.request_body()),
            ("PUT", "/v1/collection-requests/{request_id}"): (
                f"/v1/collection-requests/{self.unopened}",
                {"description": "changed"},
            ),
            ("DELETE", "/v1/collection-requests/{request_id}"): (f"/v1/collection-requests/{self.unopened}", None),
            ("POST", "/v1/collection-requests/{request_id}/cancel"): (
                f"/v1/collection-requests/{self.unopened}/cancel",
                {"reason": "Issued twice"},
            ),
            ("POST", "/v1/payments"): (
                "/v1/payments",
                {
                    "collection_request_id": self.unopened,
                    "amount": {"currency": "MZN", "value": 250},
                    "channel": "cash",
                    "reference": "REC-1",
                    "paid_at": "2026-11-03T08:40:00Z",
                },
            ),
            ("POST", "/v1/bank-statements"): (
                "/v1/bank-statements",
                {
                    "mode": "test",
                    "format": "lines",
                    "lines": [{"date": "2026-11-03", "amount": 250, "description": "Y"}],
                },
            ),
            ("POST", "/v1/bank-statement-lines/{line_id}/assign"): (
                f"/v1/bank-statement-lines/{self.line_id}/assign",
                {"collection_request_id": self.unopened},
            ),
            ("POST", "/v1/bank-statement-lines/{line_id}/dismiss"): (
                f"/v1/bank-statement-lines/{self.line_id}/dismiss",
                {"reason": "Our own account"},
            ),
            ("POST", "/v1/customers"): ("/v1/customers", {"name": "Ana Machava", "document_type": "bi"}),
            ("PUT", "/v1/customers/{customer_id}"): (f"/v1/customers/{customer}", {"email": "ana@example.co.mz"}),
            ("DELETE", "/v1/customers/{customer_id}"): (f"/v1/customers/{customer}", None),
            ("POST", "/v1/customers/{customer_id}/payment_methods"): (
                f"/v1/customers/{customer}/payment_methods",
                {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {"phone_number": "+258841120001"}},
            ),
            ("POST", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}/status"): (
                f"/v1/customers/{customer}/payment_methods/{self.pm_id}/status",
                {"status": "inactive"},
            ),
            ("POST", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}/transactions"): (
                f"/v1/customers/{customer}/payment_methods/{self.pm_id}/transactions",
                {"transaction_type": "pay_in", "amount": 100},
            ),
            ("PUT", "/v1/customers/{customer_id}/kyc/{kyc_id}/reviews"): (
                f"/v1/customers/{customer}/kyc/{kyc}/reviews",
                {"status": "verified", "reviewer_id": "rev-1", "additional_request": {"checklist_items": []}},
            ),
            ("POST", "/v1/customers/{customer_id}/kyc/{kyc_id}/reviews/ready"): (
                f"/v1/customers/{customer}/kyc/{kyc}/reviews/ready",
                None,
            ),
            ("POST", "/v1/kyc/{kyc_id}/logs"): (f"/v1/kyc/{kyc}/logs", {"comment": "Documento recebido."}),
            ("POST", "/v1/kyc/{kyc_id}/logs/save"): (f"/v1/kyc/{kyc}/logs/save", "multipart"),
            ("POST", "/v1/kyc/{kyc_id}/logs/save-date"): (
                f"/v1/kyc/{kyc}/logs/save-date",
                {"expiry_date": "2030-01-01", "reference": "BI-1"},
            ),
        }

    def send(self, method: str, path: str, body: Any, token: str) -> requests.Response:
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        if body == "multipart":
            form = {"reference": "BI-1", "document_name": "BI", "type": "bi", "side": "front"}
            return requests.post(
                self.mz.url + path,
                headers={"Authorization": f"Bearer {token}", **headers},
                data=form,
                files={"attachment": ("side.png", PNG, "image/png")},
                timeout=30,
            )
        return self.mz.call(method, path, body, token=token, headers=headers)

    # ---------------------------------------------------------------- what is stored
    def stored(self) -> dict[str, Any]:
        """Every item of the stack's tables that names this account (keys and contents), and what
        the business's own reads answer."""
        items: list[str] = []
        for table in ("CollectionTable", "PaymentsTable", "IdempotencyTable", "EventsTable"):
            for item in self.scan(table):
                text = json.dumps(item, sort_keys=True)
                if item["pk"]["S"].startswith("RATE#"):  # the gateway's rate-limit counters of reads
                    continue
                if self.account_id in text or self.customer_id in text or self.opened in text:
                    # CollectionTable whole; elsewhere the keys (the workers may mark records later)
                    kept = text if table == "CollectionTable" else json.dumps([item["pk"], item.get("sk")])
                    items.append(f"{table} {kept}")
        return {"items": set(items), "reads": self.reads()}

    def reads(self) -> dict[str, Any]:
        customer = self.customer_id
        return {
            path: assert_ok(self.mz.call("GET", path, token=self.token))
            for path in (
                "/v1/collection-methods",
                "/v1/collection-requests",
                f"/v1/collection-requests/{self.opened}",
                f"/v1/collection-requests/{self.unopened}",
                f"/v1/customers/{customer}/payment_methods",
                f"/v1/customers/{customer}/transactions",
                f"/v1/customers/{customer}/kyc/logs",
            )
        }


def unchanged(business: Business, before: dict[str, Any]) -> None:
    after = business.stored()
    assert (after["items"] - before["items"], before["items"] - after["items"]) == (set(), set())
    assert after["reads"] == before["reads"]


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


@pytest.fixture(scope="module")
def business(mz: Collection) -> Iterator[Business]:
    made = Business(mz)
    yield made


def test_every_gated_route_has_a_case_here(business: Business) -> None:
    assert set(business.cases()) == GATED


def refused_everywhere(business: Business, token: str, message: str, status: str) -> None:
    for route, (path, body) in business.cases().items():
        answer = business.send(route[0], path, body, token)
        try:
            assert_error(answer, 403, "forbidden", message, {"account_status": status})
        except AssertionError as failed:
            raise AssertionError(f"{route}: {failed}") from failed


def test_a_suspended_business_is_refused_everywhere_and_nothing_is_stored_until_reactivated(
    business: Business,
) -> None:
    mz = business.mz
    business.review("suspend")
    try:
        before = business.stored()
        refused_everywhere(business, business.token, SUSPENDED, "suspended")
        pay_bill = {  # a customer's bill (docs/partners.md): refused like the route's other types
            "transaction_type": "pay_bill",
            "amount": 500,
            "product_id": "01M8A0MH8BAHW8JZV956J9ME20",
            "destination": "04000000001",
        }
        assert_error(business.transaction(pay_bill), 403, "forbidden", SUSPENDED, {"account_status": "suspended"})
        unchanged(business, before)  # nothing stored, nothing changed
        # the business still reads its own data
        assert assert_ok(mz.call("GET", "/v1/account", token=business.token))["status"] == "suspended"
    finally:
        business.review("reactivate")
    # reactivated, it works again: money moves, customers and requests are registered
    paid_in = assert_ok(business.transaction({"transaction_type": "pay_in", "amount": 100}))
    assert (paid_in["transaction_type"], paid_in["status"]) == ("pay_in", "succeeded")
    customer = business.ok("POST", "/v1/customers", {"name": "Ana Machava", "document_type": "bi"})
    assert (customer["object"], customer["name"]) == ("customer", "Ana Machava")
    created = business.ok("POST", "/v1/collection-requests", business.request_body())
    assert (created["object"], created["status"]) == ("collection_request", "pending")
    route, (path, body) = ("POST", "/v1/payments"), business.cases()[("POST", "/v1/payments")]
    recorded = assert_ok(
        business.send(route[0], path, {**body, "collection_request_id": created["id"]}, business.token)
    )
    assert (recorded["payment"]["status"], recorded["payment"]["channel"]) == ("succeeded", "cash")


def test_a_token_naming_a_gateway_account_that_never_onboarded_is_refused_everywhere(business: Business) -> None:
    mz = business.mz
    token = mz.new_account("Nunca Integrada", "never-onboarded")[1]
    before = business.stored()
    refused_everywhere(business, token, NOT_ONBOARDED, "not_onboarded")
    unchanged(business, before)
    assert_error(
        mz.call("GET", "/v1/account", token=token),
        404,
        "not_found",
        "This account has not started onboarding: POST /v1/account/onboarding/initialize first.",
    )


def page_state(answer: requests.Response) -> str | None:
    found = re.search(r'data-state="([a-z_]+)"', answer.text)
    return found.group(1) if found else None


def test_the_payment_link_of_a_suspended_business_shows_a_page_and_takes_no_payment(business: Business) -> None:
    mz = business.mz
    payment_id = business.checkout_url.rsplit("/", 1)[1]
    gateway = mz.stack.state["regions"]["mz"]["gateway"]
    read_payment: Callable[[], dict[str, Any]] = lambda: requests.get(  # noqa: E731
        f"{gateway}/payments/{payment_id}", headers={"Authorization": f"Bearer {business.test_key}"}, timeout=30
    ).json()
    assert read_payment()["status"] == "requires_payment_method"
    browser = requests.Session()
    page = browser.get(business.checkout_url, timeout=30)  # the payer had the checkout open
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token is not None, page.text
    business.review("suspend")
    try:
        before = business.stored()
        for link in (business.opened, business.unopened):
            pt = requests.get(f"{mz.url}/pay/{link}", allow_redirects=False, timeout=30)
            assert (pt.status_code, pt.headers["Content-Type"], pt.headers["Content-Language"]) == (
                403,
                "text/html; charset=utf-8",
                "pt",
            )
            assert "Location" not in pt.headers and page_state(pt) == "suspended"
            assert "Este comerciante não pode receber pagamentos agora" in pt.text
            assert "Nada foi cobrado. Pergunte ao comerciante como pagar esta factura." in pt.text
            en = requests.get(f"{mz.url}/pay/{link}?lang=en", allow_redirects=False, timeout=30)
            assert (en.status_code, en.headers["Content-Language"], page_state(en)) == (403, "en", "suspended")
            assert "This merchant cannot take payments now" in en.text
            assert "Nothing was charged. Ask the merchant how to pay this invoice." in en.text
        # the checkout opened before the suspension shows no form and refuses the payment (the test
        # toolbar and the form)
        shown = browser.get(business.checkout_url, timeout=30)
        assert (shown.status_code, shown.headers["Content-Type"]) == (403, "text/html; charset=utf-8")
        assert 'data-code="account_suspended"' in shown.text and "csrf_token" not in shown.text
        assert "Este comerciante não pode receber pagamentos agora" in shown.text
        for action, form in (
            ("test/succeed", {"csrf_token": token.group(1)}),
            ("pay", {"csrf_token": token.group(1), "network": "mpesa", "phone_number": "840000000"}),
        ):
            refused = browser.post(f"{business.checkout_url}/{action}", data=form, allow_redirects=False, timeout=30)
            assert (refused.status_code, refused.headers["Content-Type"]) == (403, "text/html; charset=utf-8")
            assert 'data-code="account_suspended"' in refused.text
            assert "Este comerciante não pode receber pagamentos agora" in refused.text
        assert read_payment()["status"] == "requires_payment_method"  # no money moved
        unchanged(business, before)  # no checkout opened for the other request
        unopened = business.reads()[f"/v1/collection-requests/{business.unopened}"]["collection_request"]
        assert unopened["payment_reconciliation"]["payment_status"] == "pending"
    finally:
        business.review("reactivate")
    again = requests.get(f"{mz.url}/pay/{business.opened}", allow_redirects=False, timeout=30)
    assert (again.status_code, again.headers["Location"]) == (303, business.checkout_url)
