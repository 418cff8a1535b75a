"""The dashboard's collection pages over HTTP on the local stack (docs/dashboard.md, "Collection"):
a merchant account that collects for a business shows that business's collection requests, payment
records and customers, in the session's mode; another business's request or customer, the other
mode's request and an account that collects for no business are the 404 page."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.http.page_locale import money
from tests.e2e.collection_client import Collection, assert_ok
from tests.e2e.dashboard_client import DashboardUser, new_user
from tests.e2e.test_charges import Merchant
from tests.e2e.test_collection_requests import unique_phone
from tests.unit.builders import collection_payer

pytestmark = pytest.mark.e2e

PAID_AT = "2026-11-03T10:00:00Z"


class Business:
    """A fresh active business of the collection surface (its own gateway account) with a test
    M-Pesa method, a customer, a request naming the customer (paid by bank transfer) and a request
    with a payer of its own."""

    def __init__(self, mz: Collection, name: str) -> None:
        self.mz = mz
        self.account_id, self.token = mz.active_business(name, f"dashboard-{uuid.uuid4().hex[:8]}")
        self.method = self.ok("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"})["id"]
        self.phone = unique_phone()
        customer = {"name": "Ana Machava", "document_type": "bi", "phone_number": self.phone, "nuit": "400123454"}
        self.customer = self.ok("POST", "/v1/customers", customer)
        self.other_customer = self.ok("POST", "/v1/customers", {"name": "Rita Sitoe", "document_type": "bi"})
        self.request = self.issue(description="Factura de Novembro", customer_id=self.customer["id"])
        self.payment = self.ok(
            "POST",
            "/v1/payments",
            {
                "collection_request_id": self.request,
                "amount": {"currency": "MZN", "value": 1500},
                "channel": "bank_transfer",
                "reference": "BCI-TRF-0042",
                "paid_at": PAID_AT,
            },
            headers={"Idempotency-Key": f"dash-{self.request}"},
        )["payment"]
        payer = collection_payer(unique_phone(), first_name="Rui", last_name="Cossa", legal_name="Rui Cossa")
        self.second = self.issue(description="Factura de Dezembro", payer=payer)

    def ok(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return assert_ok(self.mz.call(method, path, body, token=self.token, headers=headers))

    def issue(self, **fields: Any) -> str:
        body = {"collection_method_ids": [self.method], "amount": {"currency": "MZN", "value": 1500}, **fields}
        return str(self.ok("POST", "/v1/collection-requests", body)["id"])


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


@pytest.fixture(scope="module")
def shop(mz: Collection) -> Business:
    return Business(mz, "Loja do Painel")


@pytest.fixture(scope="module")
def rival(mz: Collection) -> Business:
    return Business(mz, "Outra Loja do Painel")


def signed_in(stack: RunningStack, account_id: str, role: str = "support", lang: str = "pt-PT") -> DashboardUser:
    user = new_user(stack, account_id, f"{role}-{uuid.uuid4().hex[:10]}@loja.example", role=role)
    browser = DashboardUser(stack, lang=lang)
    assert browser.sign_in(user).status_code == 303
    return browser


def page(browser: DashboardUser, path: str, status: int = 200) -> requests.Response:
    answer = browser.call("GET", path)
    assert answer.status_code == status, answer.text
    return answer


def marked(answer: requests.Response, name: str) -> list[str]:
    """The values of `data-<name>` on the page, in order."""
    return re.findall(rf'data-{name}="([^"]*)"', answer.text)


def empty(answer: requests.Response, rows: str) -> bool:
    """The list page says it has nothing, and has no row."""
    return "<p data-empty>" in answer.text and marked(answer, rows) == []


def refused(answer: requests.Response, status: int, code: str) -> None:
    """The refusal page with the API's code (a 404 says there is no such page)."""
    assert (answer.status_code, answer.headers["X-Error-Code"]) == (status, code), answer.text
    assert marked(answer, "page") == ["refused"] and marked(answer, "code") == [code]
    assert status != 404 or "Esta página não existe." in answer.text


def test_a_business_user_sees_its_requests_payment_records_and_customers(stack: RunningStack, shop: Business) -> None:
    user = signed_in(stack, shop.account_id)
    home = page(user, "/")
    for link, words in (
        ("/collection-requests", "Pedidos de cobrança"),
        ("/collection-payments", "Registos de pagamento"),
        ("/customers", "Clientes"),
    ):
        assert f'href="{link}">{words}</a>' in home.text, home.text

    listed = page(user, "/collection-requests")
    assert (marked(listed, "page"), marked(listed, "request")) == (["collection-requests"], [shop.second, shop.request])
    assert marked(listed, "status") == ["pending", "paid"]
    assert marked(listed, "amount") == ["1500.00", "1500.00"]
    assert "Rui Cossa" in listed.text and f'data-amount="1500.00">{money("1500.00", "MZN", "pt")}<' in listed.text
    assert ">Pago</td>" in listed.text and ">À espera de pagamento</td>" in listed.text

    one = page(user, f"/collection-requests/{shop.request}")
    assert (marked(one, "request"), marked(one, "status")) == ([shop.request], ["paid"])
    assert (marked(one, "due"), marked(one, "payment")) == (["0.00"], [shop.payment["id"]])
    assert f'href="/customers/{shop.customer["id"]}"' in one.text and "bank_transfer" in one.text

    records = page(user, "/collection-payments")
    assert (marked(records, "payment"), marked(records, "amount")) == ([shop.payment["id"]], ["1500.00"])
    assert f'href="/collection-requests/{shop.request}"' in records.text

    everyone = page(user, "/customers")
    assert marked(everyone, "customer") == [shop.customer["id"], shop.other_customer["id"]]
    for search in (shop.phone, shop.phone.removeprefix("+258"), "400123454", "ana"):
        found = page(user, f"/customers?search={requests.utils.quote(search)}")
        assert marked(found, "customer") == [shop.customer["id"]], search
    assert empty(page(user, "/customers?search=Nobody"), "customer")
    ana = page(user, f"/customers/{shop.customer['id']}")
    assert (marked(ana, "customer"), marked(ana, "status")) == ([shop.customer["id"]], ["active"])
    assert shop.phone in ana.text and "400123454" in ana.text


def test_english_pages_say_the_same(stack: RunningStack, shop: Business) -> None:
    user = signed_in(stack, shop.account_id, role="finance", lang="en")
    listed = page(user, "/collection-requests")
    assert "Collection requests" in listed.text
    assert f'data-amount="1500.00">{money("1500.00", "MZN", "en")}<' in listed.text
    assert ">Paid</td>" in listed.text and ">Waiting for payment</td>" in listed.text
    assert marked(listed, "request") == [shop.second, shop.request]


def test_another_business_the_other_mode_and_an_account_without_a_business_get_404(
    stack: RunningStack, shop: Business, rival: Business
) -> None:
    other = signed_in(stack, rival.account_id, role="owner")
    refused(other.call("GET", f"/collection-requests/{shop.request}"), 404, "not_found")
    refused(other.call("GET", f"/customers/{shop.customer['id']}"), 404, "customer_not_found")
    assert shop.request not in marked(page(other, "/collection-requests"), "request")
    assert marked(page(other, "/collection-payments"), "payment") == [rival.payment["id"]]
    assert shop.customer["id"] not in marked(page(other, "/customers"), "customer")

    live = signed_in(stack, shop.account_id, role="owner")
    switched = live.post("/mode", {"mode": "live"}, "/")
    assert switched.status_code == 303, switched.text
    refused(live.call("GET", f"/collection-requests/{shop.request}"), 404, "not_found")
    assert empty(page(live, "/collection-requests"), "request")
    assert empty(page(live, "/collection-payments"), "payment")

    merchant = Merchant(stack)  # a gateway account that collects for no business
    plain = signed_in(stack, merchant.account["id"], role="owner")
    assert 'href="/collection-requests"' not in page(plain, "/").text
    for path in ("/collection-requests", "/collection-payments", "/customers", f"/customers/{shop.customer['id']}"):
        refused(plain.call("GET", path), 404, "not_found")  # the account collects for no business


def test_a_page_token_that_is_not_one_is_refused_and_ids_are_bounded(stack: RunningStack, shop: Business) -> None:
    user = signed_in(stack, shop.account_id)
    refused(user.call("GET", "/collection-requests?page_token=not-a-token"), 400, "validation_error")
    refused(user.call("GET", f"/collection-requests/CR_{'x' * 300}"), 404, "not_found")
    refused(user.call("GET", f"/customers/{'c' * 300}"), 404, "customer_not_found")
