"""Sign-in on the collection surface over HTTP (mz): every way a token fails, in the surface's
error shape with its challenge; permissions; tokens of the local issuer's token endpoint; an
identity provider created through the API becomes trusted, and untrusted again when deleted."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.collection_client import (
    CHALLENGE,
    INVALID_TOKEN,
    Collection,
    assert_error,
    assert_ok,
    licensed,
    partner_provider,
    random_rsa_key,
)

pytestmark = pytest.mark.e2e
PATH = "/v1/system/accountopening/checklist"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def unauthorized(response: requests.Response, reason: str, message: str) -> None:
    challenge = CHALLENGE if reason == "missing" else INVALID_TOKEN
    assert_error(response, 401, "unauthorized", message, {"reason": reason}, challenge)


def test_the_demo_token_is_accepted(mz: Collection) -> None:
    body = assert_ok(mz.call("GET", PATH))
    assert body["object"] == "checklist"


def test_no_token_is_401_with_a_bearer_challenge(mz: Collection) -> None:
    unauthorized(
        mz.call("GET", PATH, token=None),
        "missing",
        "An access token is required: Authorization: Bearer <access token>.",
    )
    response = requests.get(mz.url + PATH, headers={"Authorization": "Basic dXNlcjpwYXNz"}, timeout=30)
    unauthorized(response, "missing", "An access token is required: Authorization: Bearer <access token>.")


@pytest.mark.parametrize(
    ("make_token", "reason", "message"),
    [
        (lambda c: "not-a-token", "malformed", "The access token is not a signed JWT."),
        (
            lambda c: c.mint(key=random_rsa_key()),
            "invalid_signature",
            "The access token's signature does not verify.",
        ),
        (lambda c: c.mint(lifetime=-120), "expired", "The access token has expired."),
        (
            lambda c: c.mint(iss="https://issuer.example/elsewhere"),
            "unknown_issuer",
            "The access token was issued by a provider this service does not trust.",
        ),
        (
            lambda c: c.mint("partner"),
            "unknown_issuer",
            "The access token was issued by a provider this service does not trust.",
        ),
        (lambda c: c.mint(aud="another-api"), "wrong_audience", "The access token is not meant for this API."),
        (lambda c: c.mint(aud=None), "wrong_audience", "The access token is not meant for this API."),
        (
            lambda c: c.mint(key=random_rsa_key(), kid="rotated-out"),
            "unknown_key",
            "The access token was signed with a key its provider does not publish.",
        ),
        (
            lambda c: c.mint(key="a-shared-secret-of-32-bytes-long!", algorithm="HS256"),
            "unsupported_algorithm",
            "The access token's signing algorithm is not accepted.",
        ),
        (
            lambda c: c.mint(sub=None),
            "invalid_claims",
            "The access token's claims do not name an identity.",
        ),
    ],
    ids=[
        "malformed",
        "bad-signature",
        "expired",
        "wrong-issuer",
        "untrusted-realm",
        "wrong-audience",
        "no-audience",
        "unknown-key-id",
        "hmac",
        "no-subject",
    ],
)
def test_a_bad_token_is_401_unauthorized_with_the_reason(
    mz: Collection, make_token: Any, reason: str, message: str
) -> None:
    unauthorized(mz.call("GET", PATH, token=make_token(mz)), reason, message)


def test_an_audience_list_containing_this_api_is_accepted(mz: Collection) -> None:
    token = mz.mint(aud=["another-api", mz.oidc["audience"]])
    assert assert_ok(mz.call("GET", PATH, token=token))["object"] == "checklist"


def test_a_token_without_the_routes_permission_is_403_naming_it(mz: Collection) -> None:
    token = mz.mint_admin(scope="device:read")
    assert_error(
        mz.call("POST", "/v1/identity_providers", {}, token=token),
        403,
        "forbidden",
        "The access token lacks the permission identity_provider:write.",
        {"permission": "identity_provider:write"},
    )
    # the permissions array counts as much as scope
    listed = mz.mint_admin(scope=None, permissions=["identity_provider:read"])
    assert assert_ok(mz.call("GET", "/v1/identity_providers", token=listed))["object"] == "list"


def test_a_token_naming_no_account_cannot_use_account_routes(mz: Collection) -> None:
    token = mz.mint(account_id=None)
    assert_error(
        mz.call("GET", "/v1/devices/" + "c" * 64, token=token),
        403,
        "forbidden",
        "The access token names no account (claim account_id).",
    )


def test_the_local_token_endpoint_gives_client_credentials_tokens_the_api_accepts(mz: Collection) -> None:
    form = {
        "grant_type": "client_credentials",
        "client_id": mz.demo["collection_client_id"],
        "client_secret": mz.demo["collection_client_secret"],
        "scope": "device:read",
    }
    answer = requests.post(mz.oidc["token_endpoint"], data=form, timeout=30)
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "scope"}
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 3600, "device:read")
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["sub"] == mz.demo["collection_client_id"] and claims["account_id"] == mz.demo["account_id"]
    assert claims["aud"] == "mzpay-collection" and claims["iss"] == mz.oidc["issuer"]
    assert assert_ok(mz.call("GET", "/v1/devices/" + "d" * 64, token=body["access_token"])) == {
        "object": "device",
        "device_exists": False,
    }
    refused = requests.post(mz.oidc["token_endpoint"], data={**form, "client_secret": "wrong"}, timeout=30)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    grant = requests.post(mz.oidc["token_endpoint"], data={**form, "grant_type": "password"}, timeout=30)
    assert grant.status_code == 400 and grant.json()["error"] == "unsupported_grant_type"


def test_an_identity_provider_created_through_the_api_is_trusted_until_deleted(mz: Collection) -> None:
    partner = mz.oidc["realms"]["partner"]
    token = mz.mint("partner", sub="ana@partner.example")
    unauthorized(
        mz.call("GET", PATH, token=token),
        "unknown_issuer",
        "The access token was issued by a provider this service does not trust.",
    )
    body = partner_provider(mz, [mz.demo["account_id"]])  # the account its tokens may act for (mint's default)
    created = assert_ok(mz.call("POST", "/v1/identity_providers", body, token=mz.admin))["identity_provider"]
    try:
        assert created["issuer_url"] == partner["issuer"]
        assert assert_ok(mz.call("GET", PATH, token=token))["object"] == "checklist"
    finally:
        assert_ok(mz.call("DELETE", "/v1/identity_providers", params={"id": created["id"]}, token=mz.admin))
    time.sleep(0.1)
    unauthorized(
        mz.call("GET", PATH, token=token),
        "unknown_issuer",
        "The access token was issued by a provider this service does not trust.",
    )
