"""From a fresh business token to a paid collection request, over real HTTP (docs/onboarding.md,
"From a fresh token to a paid collection request"): a business nobody prepared (no gateway
account made for it) gives its details and finishes, a reviewer approves it, and with no other
hand work it adds a test M-Pesa method, issues a collection request, and its payer pays it
through the payment link's checkout (the test action): the request is paid."""

from __future__ import annotations

from typing import Any

import pytest
from ulid import ULID

from devstack.collection_demo import DEMO_DETAILS
from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok
from tests.e2e.management_client import Operator
from tests.e2e.test_collection_requests import Payer, payer, wait_for

pytestmark = pytest.mark.e2e


def test_a_fresh_business_is_approved_and_its_first_request_is_paid(stack: RunningStack) -> None:
    mz = Collection(stack, "mz")
    mz.ensure_licence()
    account_id = str(ULID())
    token = mz.mint(account_id=account_id, sub="fresh-owner")
    reviewer = mz.mint(account_id=None, sub="reviewer-fresh", scope="account:review")
    operator = Operator(stack, "mz")
    assert operator.call("GET", f"/v1/accounts/{account_id}").status_code == 404  # nobody made it

    assert mz.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200
    assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DEMO_DETAILS, token=token))
    assert assert_ok(mz.call("POST", "/v1/account/onboarding/finish", token=token))["status"] == "pending_review"
    method_body = {"type": "mpesa", "mode": "test"}
    assert_error(
        mz.call("POST", "/v1/collection-methods", method_body, token=token),
        403,
        "forbidden",
        "The business account is pending_review: only an active account may do this.",
        {"account_status": "pending_review"},
    )
    approved = assert_ok(mz.call("POST", f"/v1/accounts/{account_id}/approve", token=reviewer))
    assert (approved["id"], approved["status"], approved["name"]) == (account_id, "active", "Demo Comercial Lda")

    gateway_account = operator.call("GET", f"/v1/accounts/{account_id}")
    assert gateway_account.status_code == 200, gateway_account.text
    assert {k: gateway_account.json()[k] for k in ("id", "name", "region", "status")} == {
        "id": account_id,
        "name": "Demo Comercial Lda",
        "region": "mz",
        "status": "active",
    }

    method = assert_ok(mz.call("POST", "/v1/collection-methods", method_body, token=token))
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
    browser.pay(opened.headers["Location"], "succeed")

    def paid(request: dict[str, Any]) -> bool:
        return request["status"] == "paid"

    done = wait_for_business(mz, created["id"], token, paid)
    assert done["status"] == "paid"
    assert done["payment_reconciliation"]["payment_status"] == "paid"


def wait_for_business(mz: Collection, request_id: str, token: str, done: Any) -> dict[str, Any]:
    """The business's request once `done` holds (its own token reads it)."""
    business = Collection(mz.stack, mz.region)
    business.token = token
    return wait_for(business, request_id, done, timeout=60)
