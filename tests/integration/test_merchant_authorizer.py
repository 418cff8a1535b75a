"""The gateway's authorizer (functions/gateway_authorizer) against in-process moto: a directory
table, the key pepper in Secrets Manager, accounts and keys made through mzpay.access or
written straight into the directory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from mzpay.cases import access
from mzpay.domain.access.keys import generate_key, key_hash, redacted
from mzpay.domain.common.errors import ServiceError
from mzpay.http import merchant_auth
from mzpay.http.principal import admit
from mzpay.store.directory import ApiKey, Directory
from tests.events import authorizer_event
from tests.expected import policy, problem
from tests.integration.support import (
    create_directory_table,
    directory_table,
    dynamodb_requests,
    function_app,
    new_api_key,
    reset_mzpay_caches,
)
from tests.unit.builders import account

REGION = "af-south-1"
TABLE = "mzpay-directory"
PEPPER_SECRET = "mzpay/api-key-pepper"
PEPPER = "pepper-0123456789abcdefghijklmnopqrstuvwxyz"
WWW = {"WWW-Authenticate": 'Bearer realm="mzpay"'}
ACCOUNT_ID = "01JACC0000000000000000000A"
SA_ACCOUNT_ID = "01JACC0000000000000000005A"


def load_authorizer() -> Any:
    return function_app("gateway_authorizer", "gateway_authorizer_app_under_test").lambda_handler


@pytest.fixture
def authorizer(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    peers = "regional-sa.gateway=https://gw.sa.example"
    with directory_table(
        monkeypatch, TABLE, KEY_PEPPER_SECRET=PEPPER_SECRET, SERVICE_REGION="mz", PEER_REGION_URLS=peers
    ):
        create_directory_table("accounts")  # same key schema: where new accounts' webhook secrets go
        monkeypatch.setenv("ACCOUNTS_TABLE", "accounts")
        create_directory_table("events")  # same key schema: where a revocation's audit event goes
        monkeypatch.setenv("EVENTS_TABLE", "events")
        monkeypatch.setenv("DATA_KEY_ID", boto3.client("kms", region_name=REGION).create_key()["KeyMetadata"]["KeyId"])
        boto3.client("secretsmanager", region_name=REGION).create_secret(Name=PEPPER_SECRET, SecretString=PEPPER)
        directory = Directory(TABLE)
        directory.create_account(account(ACCOUNT_ID))
        directory.create_account(account(SA_ACCOUNT_ID, home_region="regional-sa"))
        yield load_authorizer()
    reset_mzpay_caches()


def stored_key(
    key_id: str = "01JKEY000000000000000000A1", account_id: str = ACCOUNT_ID, **changes: Any
) -> tuple[ApiKey, str]:
    """A key written straight into the directory; `changes` may name any ApiKey field."""
    key, secret = new_api_key(key_id, account_id, PEPPER, **changes)
    Directory(TABLE).create_key(key)
    return key, secret


def auth_event(authorization: str | None, source_ip: str = "198.51.100.7") -> dict[str, Any]:
    return authorizer_event("POST", "/v1/payments", authorization, source_ip)


def refusal(answer: dict[str, Any]) -> dict[str, Any]:
    """The refusal an Allow answer hands to the function (after checking the answer's shape)."""
    assert answer["policyDocument"] == policy("Allow")
    assert set(answer) == {"principalId", "policyDocument", "context"}
    assert set(answer["context"]) == {"refusal"}
    return dict(json.loads(answer["context"]["refusal"]))


def unauthorized(code: str, message: str) -> dict[str, Any]:
    """The whole refusal of a 401 with the bearer challenge."""
    return {"status": 401, "code": code, "message": message, "headers": WWW, "extensions": {}}


def denied_problem(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["policyDocument"] == policy("Deny")
    assert set(answer) == {"principalId", "policyDocument", "context"}
    assert set(answer["context"]) == {"problem"}
    return dict(json.loads(answer["context"]["problem"]))


# ---------------------------------------------------------------- allowed
def test_a_valid_key_is_allowed_on_the_whole_api_with_its_properties(authorizer: Any) -> None:
    _, secret = stored_key(
        scopes=["payments:read", "refunds:write", "accounts:write"],
        allowed_customers=["cus_1", "cus_2"],
        expires_at="2999-01-01T00:00:00Z",
    )
    assert authorizer(auth_event(f"Bearer {secret}"), None) == {
        "principalId": "01JKEY000000000000000000A1",
        "policyDocument": policy("Allow"),
        "context": {
            "account_id": ACCOUNT_ID,
            "mode": "test",
            "scopes": "payments:read refunds:write accounts:write",
            "key_id": "01JKEY000000000000000000A1",
            "allowed_customers": "cus_1,cus_2",
            "expires_at": "2999-01-01T00:00:00Z",
        },
    }


def test_keys_made_through_access_are_allowed_until_revoked(authorizer: Any) -> None:
    created = access.create_account("Loja Beira", "mz").wire()
    made = access.create_api_key(created["id"], "live", ["payments:read", "payments:write"], None, [], []).wire()
    secret = made.pop("key")
    assert made == {
        "id": made["id"],
        "account_id": created["id"],
        "mode": "live",
        "scopes": ["payments:read", "payments:write"],
        "status": "active",
        "hint": redacted(secret),
        "created_at": made["created_at"],
        "expires_at": None,
        "ip_allowlist": [],
        "allowed_customers": [],
        "rolled_to": None,
    }
    expected = {
        "principalId": made["id"],
        "policyDocument": policy("Allow"),
        "context": {
            "account_id": created["id"],
            "mode": "live",
            "scopes": "payments:read payments:write",
            "key_id": made["id"],
            "allowed_customers": "",
            "expires_at": "",
        },
    }
    assert authorizer(auth_event(f"Bearer {secret}"), None) == expected
    assert authorizer(auth_event(f"bearer   {secret}  "), None) == expected  # scheme and spacing are lenient

    access.revoke_api_key(made["id"])
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {secret}"), None)


def test_a_rolled_key_is_allowed_during_its_overlap(authorizer: Any) -> None:
    _, secret = stored_key(status="rolled", expires_at="2999-01-01T00:00:00Z", rolled_to="01JKEY000000000000000000B2")
    answer = authorizer(auth_event(f"Bearer {secret}"), None)
    assert answer["policyDocument"] == policy("Allow")
    assert answer["context"]["expires_at"] == "2999-01-01T00:00:00Z"


def test_an_address_inside_the_key_allowlist_is_allowed(authorizer: Any) -> None:
    _, secret = stored_key(ip_allowlist=["10.0.0.0/8", "2001:db8::/32"])
    for address in ("10.1.2.3", "2001:db8::7", "::ffff:10.9.9.9"):
        assert authorizer(auth_event(f"Bearer {secret}", address), None)["policyDocument"] == policy("Allow")


# ---------------------------------------------------------------- Unauthorized (API Gateway's own 401)
@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer ", "Basic bXpwX3Rlc3Rfeg==", "Bearer sk_live_abcdef", "Token mzp_test_abc"],
)
def test_no_bearer_or_a_foreign_token_is_unauthorized(authorizer: Any, authorization: str | None) -> None:
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(authorization), None)


def test_an_unknown_key_with_a_valid_checksum_is_unauthorized(authorizer: Any) -> None:
    stored_key()
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {generate_key('test')}"), None)


def test_a_key_hashed_with_another_pepper_is_unauthorized(authorizer: Any) -> None:
    secret = generate_key("test")
    key, _ = stored_key()
    Directory(TABLE).create_key(replace(key, key_id="01JKEY000000000000000000Z9", key_hash=key_hash(secret, "other")))
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {secret}"), None)


def test_a_revoked_key_is_unauthorized(authorizer: Any) -> None:
    _, secret = stored_key(status="revoked")
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {secret}"), None)


def test_a_key_of_a_missing_account_is_unauthorized(authorizer: Any) -> None:
    _, secret = stored_key(account_id="01JNOSUCHACCOUNT0000000000")
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {secret}"), None)


# ---------------------------------------------------------------- refusals handed to the function
@pytest.mark.parametrize(
    "token",
    [
        "mzp_",
        "mzp_test_short",
        "mzp_prod_" + "a" * 38,
        "CHECKSUM",  # replaced below by a stored key with its last character changed
    ],
)
def test_a_mistyped_key_is_invalid_api_key_before_any_lookup(authorizer: Any, token: str) -> None:
    if token == "CHECKSUM":
        _, secret = stored_key()
        token = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    answer = authorizer(auth_event(f"Bearer {token}"), None)
    assert answer["principalId"] == "anonymous"
    assert refusal(answer) == unauthorized(
        "invalid_api_key", "The API key is malformed or mistyped (its checksum does not match)."
    )


def test_an_expired_key_is_key_expired(authorizer: Any) -> None:
    _, secret = stored_key(expires_at="2020-01-01T00:00:00Z")
    answer = authorizer(auth_event(f"Bearer {secret}"), None)
    assert answer["principalId"] == "01JKEY000000000000000000A1"
    assert refusal(answer) == unauthorized("key_expired", "This API key has expired.")
    # the function answers it before any route runs
    with pytest.raises(ServiceError) as caught:
        admit({"requestContext": {"authorizer": {**answer["context"], "principalId": answer["principalId"]}}})
    assert (caught.value.status, caught.value.code, caught.value.headers) == (401, "key_expired", WWW)


def test_a_rolled_key_past_its_overlap_is_key_expired(authorizer: Any) -> None:
    _, secret = stored_key(status="rolled", expires_at="2026-01-01T00:00:00Z", rolled_to="01JKEY000000000000000000B2")
    assert refusal(authorizer(auth_event(f"Bearer {secret}"), None))["code"] == "key_expired"


def test_expiry_is_exact_to_the_second(authorizer: Any) -> None:
    _, secret = stored_key(expires_at="2026-03-01T12:00:00Z")
    event = auth_event(f"Bearer {secret}")
    before = merchant_auth.authorize_merchant(event, now=datetime(2026, 3, 1, 11, 59, 59, tzinfo=UTC))
    assert before["policyDocument"] == policy("Allow") and before["context"]["key_id"] == "01JKEY000000000000000000A1"
    at = merchant_auth.authorize_merchant(event, now=datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC))
    assert refusal(at)["code"] == "key_expired"


def test_a_keys_last_use_is_recorded_at_most_hourly_and_only_when_allowed(authorizer: Any) -> None:
    key, secret = stored_key()
    event = auth_event(f"Bearer {secret}")

    def last_used() -> str | None:
        stored = Directory(TABLE).get_key(key.key_id)
        assert stored is not None
        return stored.last_used_at

    assert last_used() is None
    merchant_auth.authorize_merchant(event, now=datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC))
    assert last_used() == "2026-03-01T12:00:00Z"
    merchant_auth.authorize_merchant(event, now=datetime(2026, 3, 1, 12, 59, 59, tzinfo=UTC))
    assert last_used() == "2026-03-01T12:00:00Z"  # within the hour: no write
    merchant_auth.authorize_merchant(event, now=datetime(2026, 3, 1, 13, 0, 0, tzinfo=UTC))
    assert last_used() == "2026-03-01T13:00:00Z"
    Directory(TABLE).record_key_use(key, "2026-03-01T13:30:00Z", "2026-03-01T12:30:00Z")  # a racing writer
    assert last_used() == "2026-03-01T13:00:00Z"  # lost the condition quietly: the newer one stands

    refused, refused_secret = stored_key("01JKEY000000000000000000C3", ip_allowlist=["10.0.0.0/8"])
    assert denied_problem(authorizer(auth_event(f"Bearer {refused_secret}"), None))["code"] == "ip_not_allowed"
    stored = Directory(TABLE).get_key(refused.key_id)
    assert stored is not None and stored.last_used_at is None  # a refused request is no use


def test_a_key_of_an_account_homed_elsewhere_is_wrong_region(authorizer: Any) -> None:
    _, secret = stored_key("01JKEY0000000000000000005A", account_id=SA_ACCOUNT_ID, home_region="regional-sa")
    answer = authorizer(auth_event(f"Bearer {secret}"), None)
    assert answer["principalId"] == "01JKEY0000000000000000005A"
    assert refusal(answer) == {
        "status": 421,
        "code": "wrong_region",
        "message": "This tenant is served in region regional-sa; resend the request to https://gw.sa.example.",
        "headers": {"Service-Region": "regional-sa", "Service-Region-Url": "https://gw.sa.example"},
        "extensions": {"region": "regional-sa", "base_url": "https://gw.sa.example"},
    }


# ---------------------------------------------------------------- 403: Deny with the problem document
def test_an_address_outside_the_key_allowlist_is_ip_not_allowed(authorizer: Any) -> None:
    _, secret = stored_key(ip_allowlist=["10.0.0.0/8"])
    answer = authorizer(auth_event(f"Bearer {secret}", "198.51.100.7"), None)
    assert answer["principalId"] == "01JKEY000000000000000000A1"
    assert denied_problem(answer) == problem(
        403, "Forbidden", "ip_not_allowed", "This API key may not be used from this address."
    )


def test_a_key_of_a_suspended_account_is_account_suspended(authorizer: Any) -> None:
    _, secret = stored_key()
    access.change_account_status(ACCOUNT_ID, "suspend", "fraud review")
    answer = authorizer(auth_event(f"Bearer {secret}"), None)
    assert answer["principalId"] == "01JKEY000000000000000000A1"
    assert denied_problem(answer) == problem(
        403, "Forbidden", "account_suspended", "This account is suspended: fraud review"
    )

    access.change_account_status(ACCOUNT_ID, "reactivate")
    assert authorizer(auth_event(f"Bearer {secret}"), None)["policyDocument"] == policy("Allow")


def test_a_suspension_without_a_reason(authorizer: Any) -> None:
    _, secret = stored_key()
    access.change_account_status(ACCOUNT_ID, "suspend")
    assert denied_problem(authorizer(auth_event(f"Bearer {secret}"), None)) == problem(
        403, "Forbidden", "account_suspended", "This account is suspended."
    )


# ---------------------------------------------------------------- round trips
def test_a_known_key_costs_one_round_trip_and_every_change_is_seen_by_the_next_request(authorizer: Any) -> None:
    created = access.create_account("Loja Nampula", "mz").wire()
    made = access.create_api_key(created["id"], "test", ["payments:read"], None, [], []).wire()
    secret = made["key"]
    sent = dynamodb_requests()
    assert authorizer(auth_event(f"Bearer {secret}"), None)["policyDocument"] == policy("Allow")
    # the hash pointer, then the key and the account; the key's first use of the hour is recorded
    assert sent == ["GetItem", "BatchGetItem", "UpdateItem"]
    sent.clear()
    assert authorizer(auth_event(f"Bearer {secret}"), None)["policyDocument"] == policy("Allow")
    assert sent == ["BatchGetItem"]  # the pointer is remembered: it never changes

    access.change_account_status(created["id"], "suspend", "fraud review")
    sent.clear()
    assert denied_problem(authorizer(auth_event(f"Bearer {secret}"), None)) == problem(
        403, "Forbidden", "account_suspended", "This account is suspended: fraud review"
    )
    assert sent == ["BatchGetItem"]
    access.change_account_status(created["id"], "reactivate")
    assert authorizer(auth_event(f"Bearer {secret}"), None)["policyDocument"] == policy("Allow")

    access.revoke_api_key(made["id"])
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(f"Bearer {secret}"), None)
