"""Two kinds of principal on the collection surface, over HTTP (mz), as an attacker tried them
(issue 30): a business token, whatever permissions its claims list, never uses an installation
permission (identity providers, the licence, reviews); an identity provider registered through
the API speaks only for the business accounts the administrator bound to it, never as the
administrator; and the audit trail tells a forged subject from the real one (issuer, account)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.collection_client import (
    ADMIN_SCOPES,
    ALL_SCOPES,
    Collection,
    assert_error,
    assert_ok,
    licensed,
    partner_provider,
)
from tests.e2e.test_collection_onboarding import DETAILS

pytestmark = pytest.mark.e2e
EVERYTHING = f"{ALL_SCOPES} {ADMIN_SCOPES}"  # what a forged token claims
INVALID_TOKEN = 'Bearer realm="mzpay-collection", error="invalid_token"'
UNBOUND = "The access token's provider is not trusted for the account it names (or for none)."


def installation_only(permission: str) -> str:
    return (
        f"The permission {permission} is the installation administrator's: a token acting for a business "
        "account (account_id) never holds it."
    )


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def pending_business(mz: Collection) -> tuple[str, str]:
    """A fresh business account, initialized (pending), and its bootstrap token claiming everything."""
    account_id = str(ULID())
    token = mz.mint(account_id=account_id, sub=f"owner-{account_id}", scope=EVERYTHING)
    assert mz.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200
    return account_id, token


def submitted(mz: Collection) -> tuple[str, str]:
    """A fresh business whose onboarding is submitted (pending_review)."""
    account_id, token = pending_business(mz)
    assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=token))
    assert assert_ok(mz.call("POST", "/v1/account/onboarding/finish", token=token))["status"] == "pending_review"
    return account_id, token


def status_of(mz: Collection, token: str) -> str:
    return str(assert_ok(mz.call("GET", "/v1/account/onboarding", token=token))["status"])


@pytest.fixture
def bound(mz: Collection) -> Iterator[tuple[str, dict[str, Any]]]:
    """An active business A, and the partner realm registered by the administrator, bound to A."""
    account_id, _ = submitted(mz)
    approved = mz.call("POST", f"/v1/accounts/{account_id}/approve", token=mz.demo["collection_reviewer_token"])
    assert assert_ok(approved)["status"] == "active"
    created = mz.call("POST", "/v1/identity_providers", partner_provider(mz, [account_id]), token=mz.admin)
    provider = assert_ok(created)["identity_provider"]
    yield account_id, provider
    mz.call("DELETE", "/v1/identity_providers", params={"id": provider["id"]}, token=mz.admin)


def test_a_pending_business_claiming_identity_provider_write_cannot_register_a_provider(mz: Collection) -> None:
    _, token = pending_business(mz)
    assert_error(
        mz.call("POST", "/v1/identity_providers", partner_provider(mz, []), token=token),
        403,
        "forbidden",
        installation_only("identity_provider:write"),
        {"permission": "identity_provider:write"},
    )
    assert_error(
        mz.call("GET", "/v1/identity_providers", token=token),
        403,
        "forbidden",
        installation_only("identity_provider:read"),
        {"permission": "identity_provider:read"},
    )
    # nothing was registered: the partner realm's tokens are still strangers
    forged = mz.mint("partner", account_id=str(ULID()), sub="mallory", scope=EVERYTHING)
    assert_error(
        mz.call("GET", "/v1/system/accountopening/checklist", token=forged),
        401,
        "unauthorized",
        "The access token was issued by a provider this service does not trust.",
        {"reason": "unknown_issuer"},
        INVALID_TOKEN,
    )
    issuers = [p["issuer_url"] for p in assert_ok(mz.call("GET", "/v1/identity_providers", token=mz.admin))["data"]]
    assert mz.oidc["realms"]["partner"]["issuer"] not in issuers


def test_a_registered_provider_speaks_only_for_its_bound_accounts_and_never_as_administrator(
    mz: Collection, bound: tuple[str, dict[str, Any]]
) -> None:
    account_a, provider = bound
    assert provider["account_ids"] == [account_a]
    other, other_token = submitted(mz)
    path = "/v1/account/onboarding"
    for claims in ({"account_id": other}, {"account_id": mz.demo["account_id"]}, {"account_id": None}):
        token = mz.mint("partner", sub="mallory", scope=EVERYTHING, **claims)
        assert_error(
            mz.call("GET", path, token=token),
            401,
            "unauthorized",
            UNBOUND,
            {"reason": "unbound_account"},
            INVALID_TOKEN,
        )
    # naming A it acts for A, as a business: no installation permission whatever it claims
    as_a = mz.mint("partner", account_id=account_a, sub="mallory", scope=EVERYTHING)
    assert assert_ok(mz.call("GET", path, token=as_a)) == {"status": "active", "reason": ""}
    for method, route, body, permission in (
        ("POST", f"/v1/accounts/{other}/approve", None, "account:review"),
        ("POST", f"/v1/accounts/{mz.demo['account_id']}/suspend", {"reason": "mine now"}, "account:review"),
        ("POST", "/v1/license/deactivate", {}, "license:write"),
        ("GET", "/v1/identity_providers", None, "identity_provider:read"),
        (
            "PUT",
            "/v1/identity_providers",
            {"id": provider["id"], "account_ids": [account_a, other]},
            "identity_provider:write",
        ),
    ):
        assert_error(
            mz.call(method, route, body, token=as_a),
            403,
            "forbidden",
            installation_only(permission),
            {"permission": permission},
        )
    assert status_of(mz, other_token) == "pending_review"
    assert status_of(mz, mz.token) == "active"
    assert assert_ok(mz.call("GET", "/v1/license"))["license"]["status"] == "active"
    unchanged = assert_ok(mz.call("GET", f"/v1/identity_providers/{provider['id']}", token=mz.admin))
    assert unchanged["identity_provider"] == provider
    # the administrator binds another account: its tokens are accepted at once; unbinding stops them
    rebound = {"id": provider["id"], "account_ids": [account_a, other, account_a]}
    after = assert_ok(mz.call("PUT", "/v1/identity_providers", rebound, token=mz.admin))["identity_provider"]
    assert after["account_ids"] == [account_a, other]
    trail = requests.get(
        mz.stack.state["regions"]["mz"]["management"] + f"/v1/identity-providers/{provider['id']}/audit",
        headers={"Authorization": f"Bearer {mz.stack.state['operator_token']}"},
        timeout=30,
    )
    assert trail.status_code == 200, trail.text
    newest = trail.json()["data"][0]
    assert (newest["action"], newest["changes"]) == (
        "updated",
        {"account_ids": {"from": [account_a], "to": [account_a, other]}},
    )
    assert newest["actor"] == mz.administrator("mzpay-admin-mz")
    as_other = mz.mint("partner", account_id=other, sub="bob", scope=ALL_SCOPES)
    assert assert_ok(mz.call("GET", path, token=as_other)) == {"status": "pending_review", "reason": ""}
    assert_ok(mz.call("PUT", "/v1/identity_providers", {"id": provider["id"], "account_ids": []}, token=mz.admin))
    assert_error(
        mz.call("GET", path, token=as_a), 401, "unauthorized", UNBOUND, {"reason": "unbound_account"}, INVALID_TOKEN
    )


def test_a_business_cannot_change_or_delete_a_provider(mz: Collection, bound: tuple[str, dict[str, Any]]) -> None:
    account_a, provider = bound
    owner = mz.mint(account_id=account_a, sub=f"owner-{account_a}", scope=EVERYTHING)  # the bootstrap realm
    assert_error(
        mz.call(
            "PUT",
            "/v1/identity_providers",
            {"id": provider["id"], "jwks_uri": "https://evil.example/jwks"},
            token=owner,
        ),
        403,
        "forbidden",
        installation_only("identity_provider:write"),
        {"permission": "identity_provider:write"},
    )
    assert_error(
        mz.call("DELETE", "/v1/identity_providers", params={"id": provider["id"]}, token=owner),
        403,
        "forbidden",
        installation_only("identity_provider:write"),
        {"permission": "identity_provider:write"},
    )
    kept = assert_ok(mz.call("GET", f"/v1/identity_providers/{provider['id']}", token=mz.admin))["identity_provider"]
    assert kept == provider


def test_identity_provider_bindings_are_bounded(mz: Collection) -> None:
    too_many = [str(ULID()) for _ in range(101)]
    answer = mz.call("POST", "/v1/identity_providers", partner_provider(mz, too_many), token=mz.admin)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["code"] == "validation_error" and [e["field"] for e in body["metadata"]["errors"]] == ["account_ids"]
    for bad in ([""], ["x" * 129], ["two words"]):
        answer = mz.call("POST", "/v1/identity_providers", partner_provider(mz, bad), token=mz.admin)
        assert (answer.status_code, answer.json()["code"]) == (400, "validation_error"), answer.text
        assert [e["field"] for e in answer.json()["metadata"]["errors"]] == ["account_ids.0"]
    issuers = [p["issuer_url"] for p in assert_ok(mz.call("GET", "/v1/identity_providers", token=mz.admin))["data"]]
    assert mz.oidc["realms"]["partner"]["issuer"] not in issuers  # nothing stored


def test_a_business_token_cannot_approve_or_suspend_another_business(mz: Collection) -> None:
    victim, victim_token = submitted(mz)
    _, attacker = pending_business(mz)  # claims account:review among everything
    for action, body in (("approve", None), ("reject", {"reason": "no"}), ("suspend", None), ("reactivate", None)):
        assert_error(
            mz.call("POST", f"/v1/accounts/{victim}/{action}", body, token=attacker),
            403,
            "forbidden",
            installation_only("account:review"),
            {"permission": "account:review"},
        )
    assert status_of(mz, victim_token) == "pending_review"
    assert_error(
        mz.call("POST", f"/v1/accounts/{mz.demo['account_id']}/suspend", {"reason": "x"}, token=attacker),
        403,
        "forbidden",
        installation_only("account:review"),
        {"permission": "account:review"},
    )
    assert status_of(mz, mz.token) == "active"


def test_a_business_token_cannot_deactivate_or_activate_the_licence(mz: Collection) -> None:
    before = assert_ok(mz.call("GET", "/v1/license"))["license"]  # reads stay open to businesses
    assert before["status"] == "active"
    for token in (mz.token, mz.mint(scope=EVERYTHING), pending_business(mz)[1]):
        assert_error(
            mz.call("POST", "/v1/license/deactivate", {}, token=token),
            403,
            "forbidden",
            installation_only("license:write"),
            {"permission": "license:write"},
        )
        assert_error(
            mz.call("POST", "/v1/license/activate", {"license_key": mz.licence()}, token=token),
            403,
            "forbidden",
            installation_only("license:write"),
            {"permission": "license:write"},
        )
    assert assert_ok(mz.call("GET", "/v1/license"))["license"] == before
    assert assert_ok(mz.call("GET", "/v1/system/accountopening/checklist"))["object"] == "checklist"


def test_the_demo_business_token_holds_business_permissions_only(mz: Collection) -> None:
    import jwt

    business = jwt.decode(mz.token, options={"verify_signature": False})
    admin = jwt.decode(mz.admin, options={"verify_signature": False})
    installation = {"license:write", "identity_provider:read", "identity_provider:write", "account:review"}
    assert business["account_id"] == mz.demo["account_id"] and not installation & set(business["scope"].split())
    assert "account_id" not in admin and installation <= set(admin["scope"].split())
    assert admin["iss"] == business["iss"] == mz.oidc["issuer"]


def audit_records(stack: RunningStack, **params: str) -> list[dict[str, Any]]:
    url = stack.state["regions"]["mz"]["management"] + "/v1/audit-records"
    headers = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    answer = requests.get(url, params=params, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def recorded(stack: RunningStack, request_id: str, **params: str) -> dict[str, Any]:
    """The trail's record of the request answered with `request_id` (written once it answered)."""
    deadline = time.monotonic() + 10
    while True:
        found = [r for r in audit_records(stack, **params) if r["request_id"] == request_id]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, found
            return found[0]
        time.sleep(0.2)


def test_the_trail_names_issuer_subject_and_account_so_a_forged_reviewer_is_another_actor(
    stack: RunningStack, mz: Collection, bound: tuple[str, dict[str, Any]]
) -> None:
    account_a, _ = bound
    reviewer = f"mzpay-reviewer-{uuid.uuid4().hex[:8]}"
    # the real reviewer: an administrator of the bootstrap issuer
    victim, _ = submitted(mz)
    real = mz.call("POST", f"/v1/accounts/{victim}/approve", token=mz.mint_admin(sub=reviewer, scope="account:review"))
    assert assert_ok(real)["status"] == "active"
    # the same subject, forged through the provider bound to A: a business of A, whatever it says
    forged = mz.mint("partner", account_id=account_a, sub=reviewer, scope=EVERYTHING)
    customer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Ana Machava", "document_type": "bi"}, token=forged))
    review = {
        "status": "pending",
        "reviewer_id": reviewer,
        "additional_request": {"comment": "Add the NUIT certificate.", "checklist_items": ["item_nuit_certificate"]},
    }
    base = f"/v1/customers/{customer['id']}/kyc/{customer['kyc']['kyc_id']}"
    kyc = mz.call("PUT", f"{base}/reviews", review, token=forged)
    assert assert_ok(kyc)["kyc"]["status"] == "pending"
    refused = mz.call("POST", f"/v1/accounts/{victim}/suspend", None, token=forged)
    assert refused.status_code == 403, refused.text

    decision = recorded(stack, real.headers["X-Request-ID"], actor=reviewer)
    assert decision["actor"] == mz.audited_administrator(reviewer)
    assert (decision["action"], decision["target"], decision["outcome"]) == (
        "approve_account",
        {"type": "account", "id": victim},
        {"status": 200, "code": None},
    )
    impostor = recorded(stack, kyc.headers["X-Request-ID"], actor=reviewer)
    assert impostor["actor"] == {
        "kind": "business",
        "id": reviewer,
        "source_ip": "127.0.0.1",
        "issuer": mz.oidc["realms"]["partner"]["issuer"],
        "account_id": account_a,
    }
    assert impostor["actor"] != decision["actor"]
    # the impostor's refused suspension is in the trail too: refused by the access check before
    # its route, recorded with its code and who tried, without a body
    attempt = recorded(stack, refused.headers["X-Request-ID"], actor=reviewer)
    assert attempt["actor"] == impostor["actor"]
    assert (attempt["action"], attempt["method"], attempt["path"], attempt["target"], attempt["outcome"]) == (
        "suspend_account",
        "POST",
        "/v1/accounts/{account_id}/suspend",
        {"type": "account", "id": victim},
        {"status": 403, "code": "forbidden"},
    )
    assert attempt["request"] is None
    # the reviewer decisions kept on the account name the administrator the same way
    url = stack.state["regions"]["mz"]["management"] + f"/v1/accounts/{victim}/onboarding-reviews"
    reviews = requests.get(url, headers={"Authorization": f"Bearer {stack.state['operator_token']}"}, timeout=30)
    assert reviews.status_code == 200, reviews.text
    assert [(r["action"], r["reviewer"]) for r in reviews.json()["data"]] == [("approve", mz.administrator(reviewer))]
