"""From a fresh business token to a paid collection request, over real HTTP (docs/onboarding.md,
"From a fresh token to a paid collection request"): a business nobody prepared (no gateway
account made for it) gives its details and finishes, a reviewer approves it, and with no other
hand work it adds a test M-Pesa method, issues a collection request, and its payer pays it
through the payment link's checkout (the test action): the request is paid. The same walk for a
business an operator linked to an existing gateway account first ("Linking an existing gateway
account"): the payment is that account's, and the approval opens none of the business's id."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.collection_demo import DEMO_DETAILS
from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok
from tests.e2e.management_client import Operator
from tests.e2e.test_audit import records
from tests.e2e.test_collection_requests import Payer, payer, wait_for

pytestmark = pytest.mark.e2e


def onboarded(mz: Collection, account_id: str, token: str) -> None:
    """Initialize, the details, finish: pending_review, and not yet collecting."""
    assert mz.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200
    assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DEMO_DETAILS, token=token))
    assert assert_ok(mz.call("POST", "/v1/account/onboarding/finish", token=token))["status"] == "pending_review"
    assert_error(
        mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token),
        403,
        "forbidden",
        "The business account is pending_review: only an active account may do this.",
        {"account_status": "pending_review"},
    )


def approved(mz: Collection, account_id: str) -> None:
    reviewer = mz.mint(account_id=None, sub="reviewer-fresh", scope="account:review")
    answer = assert_ok(mz.call("POST", f"/v1/accounts/{account_id}/approve", token=reviewer))
    assert (answer["id"], answer["status"], answer["name"]) == (account_id, "active", "Demo Comercial Lda")


def paid_request(mz: Collection, token: str) -> tuple[dict[str, Any], str]:
    """A test M-Pesa method, a request, its payer paying through the link: (the paid request,
    the id of the payment that paid it)."""
    method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token))
    assert (method["type"], method["mode"], method["status"]) == ("mpesa", "test", "active")
    body: dict[str, Any] = {
        "description": "Primeira factura",
        "collection_method_ids": [method["id"]],
        "amount": {"currency": "MZN", "value": 750},
        "payer": payer(),
    }
    created = assert_ok(mz.call("POST", "/v1/collection-requests", body, token=token))
    browser = Payer()
    opened = browser.open(created["invoice_metadata"]["payment_link"])
    assert opened.status_code in (302, 303), opened.text
    checkout = opened.headers["Location"]
    browser.pay(checkout, "succeed")
    business = Collection(mz.stack, mz.region)
    business.token = token
    done = wait_for(business, created["id"], lambda r: r["status"] == "paid", timeout=60)
    assert (done["status"], done["payment_reconciliation"]["payment_status"]) == ("paid", "paid")
    return done, checkout.rstrip("/").rsplit("/", 1)[1]


def test_a_fresh_business_is_approved_and_its_first_request_is_paid(stack: RunningStack) -> None:
    mz = Collection(stack, "mz")
    mz.ensure_licence()
    account_id = str(ULID())
    token = mz.mint(account_id=account_id, sub="fresh-owner")
    operator = Operator(stack, "mz")
    assert operator.call("GET", f"/v1/accounts/{account_id}").status_code == 404  # nobody made it

    onboarded(mz, account_id, token)
    approved(mz, account_id)
    gateway_account = operator.ok("GET", f"/v1/accounts/{account_id}")
    assert {k: gateway_account[k] for k in ("id", "name", "region", "status")} == {
        "id": account_id,
        "name": "Demo Comercial Lda",
        "region": "mz",
        "status": "active",
    }
    assert operator.ok("GET", f"/v1/accounts/{account_id}/gateway-account") == {
        "object": "business_gateway_account",
        "business_account_id": account_id,
        "gateway_account_id": account_id,
        "how": "opened",
        "region": "mz",
    }
    _, payment_id = paid_request(mz, token)
    listed = assert_ok(mz.call("GET", "/v1/payments", token=token))
    assert [p["id"] for p in listed["data"]] == [payment_id]


def test_a_business_linked_to_an_existing_gateway_account_collects_through_it(stack: RunningStack) -> None:
    mz = Collection(stack, "mz")
    mz.ensure_licence()
    operator = Operator(stack, "mz")
    gateway = operator.created("Escola Existente")["id"]
    account_id = str(ULID())
    token = mz.mint(account_id=account_id, sub="linked-owner")
    onboarded(mz, account_id, token)
    linked = operator.call("PUT", f"/v1/accounts/{account_id}/gateway-account", {"gateway_account_id": gateway})
    assert linked.status_code == 200, linked.text
    assert linked.json() == {
        "object": "business_gateway_account",
        "business_account_id": account_id,
        "gateway_account_id": gateway,
        "how": "linked",
        "region": "mz",
    }
    (record,) = records(stack, target_type="business_account", target_id=account_id)
    assert {k: record[k] for k in ("surface", "action", "method", "path", "outcome", "account_id")} == {
        "surface": "management",
        "action": "link_gateway_account",
        "method": "PUT",
        "path": "/v1/accounts/{account_id}/gateway-account",
        "outcome": {"status": 200, "code": None},
        "account_id": gateway,
    }
    assert record["actor"]["kind"] == "operator"
    assert (record["before"]["gateway_account_id"], record["after"]["gateway_account_id"]) == (None, gateway)
    approved(mz, account_id)
    assert operator.call("GET", f"/v1/accounts/{account_id}").status_code == 404  # none of its own id

    _, payment_id = paid_request(mz, token)
    key = operator.key(gateway)["key"]
    gateway_url = stack.state["regions"]["mz"]["gateway"]
    theirs = requests.get(
        f"{gateway_url}/v1/payments/{payment_id}", headers={"Authorization": f"Bearer {key}"}, timeout=30
    )
    assert (theirs.status_code, theirs.json()["status"]) == (200, "succeeded"), theirs.text
    listed = assert_ok(mz.call("GET", "/v1/payments", token=token))
    assert [p["id"] for p in listed["data"]] == [payment_id]
