"""Keys restricted to customers restrict (issue 30, item 6), over the local stack: such a key names
one of its customers (?customer_id=) on every create, the customer is recorded on what it makes,
it finds only its customers' payments, refunds and payouts (any other: 404, as another account's),
and routes that act for the whole account are not its to call. Refusals come before any route
runs: nothing is stored."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e import test_access as access_tests
from tests.e2e.management_client import Operator
from tests.e2e.test_access import assert_problem
from tests.e2e.test_tenancy_matrix import charge_body, payout_body, refund_body, storage_of

pytestmark = pytest.mark.e2e
mz = access_tests.mz  # the fixture: the mz management API as an operator
NAME_ONE = "This API key is restricted to customers: name one of them with ?customer_id=."
OTHERS = "This API key is restricted to other customers."
WHOLE_ACCOUNT = "This API key is restricted to customers, and this route acts for the whole account."


class Shop:
    """An account with a full key and a key restricted to cust_1 (both test mode, default scopes)."""

    def __init__(self, stack: RunningStack, operator: Operator) -> None:
        self.url = stack.state["regions"]["mz"]["gateway"]
        self.account_id = operator.account()["id"]
        self.full = operator.key(self.account_id)["key"]
        self.restricted = operator.key(self.account_id, allowed_customers=["cust_1"])["key"]

    def call(self, key: str, method: str, path: str, body: Any = None, idempotency_key: str = "") -> requests.Response:
        headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        return requests.request(method, self.url + path, json=body, headers=headers, timeout=30)

    def ok(self, key: str, method: str, path: str, body: Any = None, idempotency_key: str = "") -> dict[str, Any]:
        response = self.call(key, method, path, body, idempotency_key)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]


@pytest.fixture
def shop(stack: RunningStack, mz: Operator) -> Shop:
    made = Shop(stack, mz)
    funded = made.ok(made.full, "POST", "/charges", charge_body("1000.00"))  # the balance payouts draw on
    assert funded["status"] == "succeeded" and "customer_id" not in funded
    return made


def test_a_restricted_key_that_names_no_customer_is_refused_and_nothing_is_stored(
    stack: RunningStack, shop: Shop
) -> None:
    before = storage_of(stack, shop.account_id)
    for path, body in (
        ("/charges", charge_body()),
        ("/v1/payments", {"amount": "25.00", "currency": "MZN"}),
        ("/payouts", payout_body()),
        ("/v1/payouts", payout_body()),
    ):
        assert_problem(
            shop.call(shop.restricted, "POST", path, body), 403, "Forbidden", "customer_not_allowed", NAME_ONE
        )
        # another customer's, named in the query or in the charge's body
        other = shop.call(shop.restricted, "POST", f"{path}?customer_id=cust_2", body)
        assert_problem(other, 403, "Forbidden", "customer_not_allowed", OTHERS)
    in_body = {**charge_body(), "customer": {"id": "cust_2"}}
    assert_problem(
        shop.call(shop.restricted, "POST", "/charges", in_body), 403, "Forbidden", "customer_not_allowed", NAME_ONE
    )
    # routes that act for the whole account are not a restricted key's, whatever customer it names
    for method, path, body in (
        ("GET", "/v1/balance", None),
        ("GET", "/v1/events", None),
        ("POST", "/v1/payout-batches", {"currency": "MZN", "lines": [payout_body()]}),
        ("PUT", "/v1/webhook-endpoint", {"url": "https://shop.example/hooks"}),
        ("POST", "/v1/manual-payments?customer_id=cust_1", {"amount": "5.00", "currency": "MZN"}),
    ):
        answer = shop.call(shop.restricted, method, path, body)
        assert_problem(answer, 403, "Forbidden", "customer_not_allowed", WHOLE_ACCOUNT)
    assert storage_of(stack, shop.account_id) == before  # no payment, payout, event or idempotency record


def test_a_restricted_key_finds_only_its_customers_resources(stack: RunningStack, shop: Shop) -> None:
    reused_key, their_body = str(uuid.uuid4()), charge_body("50.00")
    theirs = shop.ok(shop.full, "POST", "/charges?customer_id=cust_2", their_body, reused_key)
    # the same Idempotency-Key and body for its own customer: never the other customer's stored answer
    assert_problem(
        shop.call(shop.restricted, "POST", "/charges?customer_id=cust_1", their_body, reused_key),
        409,
        "Conflict",
        "idempotency_key_reused",
        "This Idempotency-Key was used for another request (method, path or body).",
    )
    nobodys = shop.ok(shop.full, "POST", "/charges", charge_body("50.00"))
    assert (theirs["customer_id"], "customer_id" in nobodys) == ("cust_2", False)
    for payment in (theirs, nobodys):
        pid = payment["provider_payment_id"]
        for method, path, body in (
            ("GET", f"/v1/payments/{pid}", None),
            ("GET", f"/payments/{pid}", None),
            ("GET", f"/v1/payments/{pid}/receipt", None),
            ("POST", f"/v1/payments/{pid}/refund", refund_body()),
            ("POST", "/refunds", {**refund_body(), "provider_payment_id": pid}),
            ("POST", f"/charges/{pid}/void", None),
            ("POST", f"/v1/payments/{pid}/cancel", None),
        ):
            answer = shop.call(shop.restricted, method, path, body)
            assert_problem(answer, 404, "Not Found", "not_found", "No such payment.")
        # the full key still reads it, and nothing was refunded
        assert shop.ok(shop.full, "GET", f"/v1/payments/{pid}")["refunded_amount"] == "0.00"
    their_refund = shop.ok(shop.full, "POST", f"/v1/payments/{theirs['provider_payment_id']}/refund", refund_body())
    their_payout = shop.ok(shop.full, "POST", "/payouts?customer_id=cust_2", payout_body())
    assert their_payout["customer_id"] == "cust_2"
    assert_problem(
        shop.call(shop.restricted, "GET", f"/v1/refunds/{their_refund['provider_refund_id']}"),
        404,
        "Not Found",
        "not_found",
        "No such refund.",
    )
    for method, path in (
        ("GET", f"/v1/payouts/{their_payout['provider_payout_id']}"),
        ("POST", f"/v1/payouts/{their_payout['provider_payout_id']}/cancel"),
    ):
        assert_problem(shop.call(shop.restricted, method, path), 404, "Not Found", "not_found", "No such payout.")
    # its own customer's: created with the customer recorded, then found, refunded and read
    mine = shop.ok(shop.restricted, "POST", "/charges?customer_id=cust_1", charge_body("30.00"))
    assert (mine["status"], mine["customer_id"]) == ("succeeded", "cust_1")
    read = shop.ok(shop.restricted, "GET", f"/v1/payments/{mine['provider_payment_id']}")
    assert {k: v for k, v in read.items() if k != "last_updated_at"} == {
        k: v for k, v in mine.items() if k != "processed_at"
    }
    refund = shop.ok(shop.restricted, "POST", f"/v1/payments/{mine['provider_payment_id']}/refund", refund_body())
    assert shop.ok(shop.restricted, "GET", f"/v1/refunds/{refund['provider_refund_id']}")["status"] == refund["status"]
    payout = shop.ok(shop.restricted, "POST", "/payouts?customer_id=cust_1", payout_body())
    assert payout["customer_id"] == "cust_1"
    assert shop.ok(shop.restricted, "GET", f"/v1/payouts/{payout['provider_payout_id']}")["customer_id"] == "cust_1"
    # a payout_id of another customer's payout is never answered to this key
    same_body = {**payout_body(), "payout_id": their_payout["payout_id"]}
    assert_problem(
        shop.call(shop.restricted, "POST", "/payouts?customer_id=cust_1", same_body),
        409,
        "Conflict",
        "payout_id_reused",
        "This payout_id belongs to another payout (different amount or destination).",
    )
