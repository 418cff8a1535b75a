"""The secret-scanning receiver over the local stack: the local provider `github` signs reports
with its key (published at its key endpoint), a live key in a report dies before the next
request, the merchant's endpoint for its own events gets api_key.revoked signed like any webhook,
and the answer labels each token; a bad signature changes nothing."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
import requests

from devstack.launcher import RunningStack
from devstack.secret_scanning import signature
from mzpay.domain.access.keys import generate_key
from tests.e2e import test_access as access_tests
from tests.e2e.management_client import Operator
from tests.e2e.test_access import assert_bad_request, assert_problem, gateway
from tests.e2e.test_oauth import ask, client_of, issued
from tests.e2e.test_webhooks import Receiver, signature_parts
from tests.polling import eventually

pytestmark = pytest.mark.e2e
mz, sa = access_tests.mz, access_tests.sa  # the fixtures: each region's management API as an operator
LEAKED_AT = "https://github.com/o/r/blob/main/.env"
UNAUTHORIZED = "A valid API key is required: Authorization: Bearer <API key>."


def report(
    stack: RunningStack, items: list[dict[str, str]], region: str = "mz", signed_with: str | None = None
) -> requests.Response:
    """A report as the provider posts it: the raw JSON body, signed with its key."""
    scanning = stack.state["secret_scanning"]
    body = json.dumps(items).encode()
    headers = {
        "Content-Type": "application/json",
        "Github-Public-Key-Identifier": scanning["key_identifier"],
        "Github-Public-Key-Signature": signature(body, signed_with or scanning["signing_key"]),
    }
    url = stack.state["regions"][region]["gateway"] + "/secret-scanning/github"
    return requests.post(url, data=body, headers=headers, timeout=30)


def found(token: str) -> dict[str, str]:
    return {
        "token": token,
        "type": "mzpay_api_key",
        "url": "https://github.com/o/r/blob/main/.env",
        "source": "content",
    }


def test_a_reported_live_key_dies_before_the_next_request_and_the_merchant_is_told(
    stack: RunningStack, mz: Operator, receiver: Receiver
) -> None:
    account = mz.created("Loja Exposta")
    secret = account["webhook_secrets"]["test"]["secret"]
    key = mz.key(account["id"])
    endpoint = receiver.endpoint(200)
    set_url = requests.put(
        stack.state["regions"]["mz"]["gateway"] + "/v1/webhook-endpoint",
        json={"url": endpoint},
        headers={"Authorization": f"Bearer {key['key']}"},
        timeout=30,
    )
    assert set_url.status_code == 200 and set_url.json()["url"] == endpoint, set_url.text
    assert gateway(stack, "mz", key["key"]).status_code == 200
    mistyped = key["key"][:-1] + ("A" if key["key"][-1] != "A" else "B")
    unknown = generate_key("test")
    answer = report(stack, [found(key["key"]), found(mistyped), found(unknown), found("ghp_not_ours")])
    assert answer.status_code == 200, answer.text
    assert answer.json() == [
        {"token_raw": key["key"], "token_type": "mzpay_api_key", "label": "true_positive"},
        {"token_raw": mistyped, "token_type": "mzpay_api_key", "label": "false_positive"},
        {"token_raw": unknown, "token_type": "mzpay_api_key", "label": "false_positive"},
        {"token_raw": "ghp_not_ours", "token_type": "mzpay_api_key", "label": "false_positive"},
    ]
    assert_problem(
        gateway(stack, "mz", key["key"]),
        401,
        "Unauthorized",
        "unauthorized",
        "A valid API key is required: Authorization: Bearer <API key>.",
    )
    (arrival,) = receiver.wait_for(endpoint, 1)
    envelope = json.loads(arrival.body)
    assert (envelope["type"], envelope["resource"], envelope["resource_id"]) == (
        "api_key.revoked",
        "api_key",
        key["id"],
    )
    assert (envelope["account_id"], envelope["mode"]) == (account["id"], "test")
    assert envelope["data"] == {
        "object": {k: v for k, v in key.items() if k != "key"} | {"status": "revoked"},
        "reason": "secret_scanning",
        "report": {
            "provider": "github",
            "type": "mzpay_api_key",
            "url": LEAKED_AT,
            "source": "content",
        },
    }
    assert key["key"] not in arrival.body.decode()  # the token itself is never in the event
    stamp, signatures = signature_parts(arrival.headers["Service-Signature"])
    assert signatures == [hmac.new(secret.encode(), f"{stamp}.".encode() + arrival.body, hashlib.sha256).hexdigest()]
    # reported again (providers retry): still a true positive, nothing recorded or posted twice
    again = report(stack, [found(key["key"])])
    assert again.json() == [{"token_raw": key["key"], "token_type": "mzpay_api_key", "label": "true_positive"}]
    assert len(receiver.wait_for(endpoint, 1, settle=2.0)) == 1


def test_a_report_that_does_not_verify_changes_nothing(stack: RunningStack, mz: Operator) -> None:
    key = mz.key(mz.account()["id"])
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    stranger = (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        .decode()
    )
    assert_problem(
        report(stack, [found(key["key"])], signed_with=stranger),
        401,
        "Unauthorized",
        "invalid_signature",
        "The report's signature does not verify with the provider's keys. The report was ignored.",
    )
    unsigned = requests.post(
        stack.state["regions"]["mz"]["gateway"] + "/secret-scanning/github", json=[found(key["key"])], timeout=30
    )
    assert_problem(
        unsigned,
        401,
        "Unauthorized",
        "invalid_signature",
        "The report is not signed (Github-Public-Key-Identifier, Github-Public-Key-Signature). The report was ignored.",
    )
    assert gateway(stack, "mz", key["key"]).status_code == 200  # still alive
    other = requests.post(stack.state["regions"]["mz"]["gateway"] + "/secret-scanning/gitlab", json=[], timeout=30)
    assert_problem(other, 404, "Not Found", "not_found", "No such secret-scanning provider.")
    assert_problem(
        report(stack, {"token": "x"}),  # type: ignore[arg-type]
        400,
        "Bad Request",
        "invalid_request",
        "The report cannot be read: the report is a JSON list of at most 1000 items.",
    )


def test_a_leaked_client_secret_and_access_token_are_revoked(stack: RunningStack, mz: Operator) -> None:
    account = mz.account("Loja OAuth")
    client = client_of(mz, account["id"])
    basic = (client["client_id"], client["client_secret"])
    token = issued(ask(stack, {"grant_type": "client_credentials"}, basic), "payments:read payments:write")
    second = issued(ask(stack, {"grant_type": "client_credentials"}, basic), "payments:read payments:write")
    leaked = [{**found(token), "type": "mzpay_access_token"}]
    assert report(stack, leaked).json()[0]["label"] == "true_positive"
    assert gateway(stack, "mz", token, "/v1/balance").status_code == 401
    assert gateway(stack, "mz", second, "/v1/balance").status_code != 401  # only that token
    secret_leak = [{**found(client["client_secret"]), "type": "mzpay_client_secret"}]
    assert report(stack, secret_leak).json()[0]["label"] == "true_positive"
    assert gateway(stack, "mz", second, "/v1/balance").status_code == 401  # the client is revoked
    listed = mz.call("GET", f"/v1/accounts/{account['id']}/oauth-clients").json()["data"]
    assert [c["status"] for c in listed] == ["revoked"]


def test_a_key_of_another_region_is_revoked_there(stack: RunningStack, sa: Operator) -> None:
    key = sa.key(sa.account("Loja Joanesburgo")["id"])
    # the directory is a global table: mz knows the key once it replicated (its gateway says 421)
    assert eventually(lambda: gateway(stack, "mz", key["key"]), lambda r: r.status_code == 421).status_code == 421
    answer = report(stack, [found(key["key"])], region="mz")  # the provider knows one URL
    assert answer.status_code == 200, answer.text
    assert answer.json() == [{"token_raw": key["key"], "token_type": "mzpay_api_key", "label": "true_positive"}]
    assert gateway(stack, "regional-sa", key["key"]).status_code == 401


def test_the_accounts_endpoint_for_its_own_events(stack: RunningStack, mz: Operator, receiver: Receiver) -> None:
    account = mz.account("Loja Endpoint")
    key = mz.key(account["id"])["key"]
    reader = mz.key(account["id"], scopes=["payments:read"])["key"]
    url = stack.state["regions"]["mz"]["gateway"] + "/v1/webhook-endpoint"

    def call(method: str, token: str, body: dict[str, str] | None = None) -> requests.Response:
        return requests.request(method, url, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)

    empty = {"account_id": account["id"], "mode": "test", "url": None, "updated_at": None}
    assert call("GET", reader).json() == empty
    assert_problem(
        call("PUT", reader, {"url": "https://shop.example/events"}),
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key lacks the scope api_keys:write.",
        missing_scope="api_keys:write",
    )
    assert_bad_request(
        call("PUT", key, {"url": "ftp://shop.example/events"}),
        "invalid_callback_url",
        "url must be an absolute http:// or https:// URL.",
        ("url", "invalid_callback_url", "must be an absolute http:// or https:// URL"),
    )
    assert call("GET", key).json() == empty  # nothing stored by a refusal
    endpoint = receiver.endpoint(200)
    stored = call("PUT", key, {"url": endpoint}).json()
    assert stored == {**empty, "url": endpoint, "updated_at": stored["updated_at"]}
    assert call("GET", reader).json() == stored
    # an operator's revocation is told there too
    doomed = mz.key(account["id"])
    assert mz.call("POST", f"/v1/api-keys/{doomed['id']}/revoke").status_code == 200
    (arrival,) = receiver.wait_for(endpoint, 1)
    envelope = json.loads(arrival.body)
    assert (envelope["type"], envelope["resource_id"], envelope["data"]["reason"]) == (
        "api_key.revoked",
        doomed["id"],
        "operator",
    )
    assert envelope["data"]["report"] is None
    assert call("DELETE", key).json() == empty
    assert call("GET", key).json() == empty
    # another account's endpoint is out of reach: its keys see their own (none)
    other = mz.key(mz.account("Outra")["id"])["key"]
    assert call("GET", other).json()["url"] is None
