"""Merchant access over HTTP, both regional stacks: every answer of the gateway's authorizer,
the per-request key rules, roll and revoke, residency, and the management API."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.access.keys import generate_key
from tests.e2e.management_client import Operator
from tests.expected import field_errors, problem
from tests.polling import eventually

pytestmark = pytest.mark.e2e
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
WWW = 'Bearer realm="mzpay"'


def gateway(
    stack: RunningStack,
    region: str,
    key: str | None,
    path: str = "/v1/api-keys/current",
    method: str = "GET",
    body: dict[str, Any] | None = None,
) -> requests.Response:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    url = stack.state["regions"][region]["gateway"] + path
    return requests.request(method, url, headers=headers, json=body, timeout=30)


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Operator:
    return Operator(stack, "mz")


@pytest.fixture(scope="module")
def sa(stack: RunningStack) -> Operator:
    return Operator(stack, "regional-sa")


def assert_problem(response: requests.Response, status: int, title: str, code: str, detail: str, **ext: Any) -> None:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/problem+json"
    assert UUID.match(response.headers["X-Request-ID"])
    assert response.json() == problem(status, title, code, detail, **ext)


def assert_bad_request(response: requests.Response, code: str, detail: str, *errors: tuple[str, str, str]) -> None:
    """A 400 problem naming each refused field as (field, code, message)."""
    assert_problem(response, 400, "Bad Request", code, detail, errors=field_errors(*errors))


# ---------------------------------------------------------------- authentication
def test_a_key_reads_what_it_is(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    created = mz.key(account["id"], scopes=["payments:read", "api_keys:write"])
    response = gateway(stack, "mz", created["key"])
    assert response.status_code == 200
    assert response.json() == {k: v for k, v in created.items() if k != "key"}
    assert response.json()["hint"] == created["key"][:9] + "..." + created["key"][-4:]


def test_no_authorization_header_is_unauthorized_with_www_authenticate(stack: RunningStack) -> None:
    response = gateway(stack, "mz", None)
    assert_problem(
        response, 401, "Unauthorized", "unauthorized", "A valid API key is required: Authorization: Bearer <API key>."
    )
    assert response.headers["WWW-Authenticate"] == WWW


@pytest.mark.parametrize("token", ["sk_live_not_ours", generate_key("test")], ids=["foreign", "unknown"])
def test_a_foreign_or_unknown_key_is_unauthorized(stack: RunningStack, token: str) -> None:
    response = gateway(stack, "mz", token)
    assert_problem(
        response, 401, "Unauthorized", "unauthorized", "A valid API key is required: Authorization: Bearer <API key>."
    )
    assert response.headers["WWW-Authenticate"] == WWW


@pytest.mark.parametrize(
    "mangle",
    [lambda k: k[:-1] + ("A" if k[-1] != "A" else "B"), lambda k: k[:20], lambda k: k.replace("_test_", "_prod_")],
)
def test_a_mistyped_key_is_invalid_before_any_lookup(stack: RunningStack, mangle: Any) -> None:
    key = stack.state["demo"]["mz"]["test_key"]
    response = gateway(stack, "mz", mangle(key))
    assert_problem(
        response,
        401,
        "Unauthorized",
        "invalid_api_key",
        "The API key is malformed or mistyped (its checksum does not match).",
    )
    assert response.headers["WWW-Authenticate"] == WWW


def test_a_revoked_key_is_unauthorized(stack: RunningStack, mz: Operator) -> None:
    created = mz.key(mz.account()["id"])
    revoked = mz.call("POST", f"/v1/api-keys/{created['id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert gateway(stack, "mz", created["key"]).json()["code"] == "unauthorized"
    again = mz.call("POST", f"/v1/api-keys/{created['id']}/revoke")
    assert_problem(again, 409, "Conflict", "invalid_state", "This key is already revoked.")


def test_a_key_past_expires_at_is_expired_even_while_its_authorization_is_cached(
    stack: RunningStack, mz: Operator
) -> None:
    expires = (datetime.now(UTC) + timedelta(seconds=3)).isoformat()
    created = mz.key(mz.account()["id"], expires_at=expires)
    assert gateway(stack, "mz", created["key"]).status_code == 200
    time.sleep(3.5)
    response = gateway(stack, "mz", created["key"])
    assert_problem(response, 401, "Unauthorized", "key_expired", "This API key has expired.")
    assert response.headers["WWW-Authenticate"] == WWW


def test_an_address_outside_the_key_allowlist_is_refused(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    outside = mz.key(account["id"], ip_allowlist=["10.0.0.0/8", "2001:db8::/32"])
    assert_problem(
        gateway(stack, "mz", outside["key"]),
        403,
        "Forbidden",
        "ip_not_allowed",
        "This API key may not be used from this address.",
    )
    inside = mz.key(account["id"], ip_allowlist=["127.0.0.0/8"])
    assert gateway(stack, "mz", inside["key"]).status_code == 200


def test_a_test_key_asking_for_live_data_is_the_wrong_environment(stack: RunningStack, mz: Operator) -> None:
    key = mz.key(mz.account()["id"])["key"]
    response = gateway(stack, "mz", key, "/v1/api-keys/current?mode=live")
    assert_problem(
        response, 401, "Unauthorized", "wrong_environment", "A test key cannot reach live data; use a live key."
    )
    assert gateway(stack, "mz", key, "/v1/api-keys/current?mode=test").status_code == 200


def test_a_missing_scope_is_named(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    reader = mz.key(account["id"], scopes=["payments:read"])
    target = mz.key(account["id"])
    response = gateway(stack, "mz", reader["key"], f"/v1/api-keys/{target['id']}/roll", "POST")
    assert_problem(
        response,
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key lacks the scope api_keys:write.",
        missing_scope="api_keys:write",
    )


def test_naming_another_account_needs_accounts_write(stack: RunningStack, mz: Operator) -> None:
    account, other = mz.account(), mz.account("Outra loja")
    plain = mz.key(account["id"])["key"]
    response = gateway(stack, "mz", plain, f"/v1/api-keys/current?account_id={other['id']}")
    assert_problem(
        response,
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key lacks the scope accounts:write.",
        missing_scope="accounts:write",
    )
    assert gateway(stack, "mz", plain, f"/v1/api-keys/current?account_id={account['id']}").status_code == 200
    platform = mz.key(account["id"], scopes=["accounts:write", "payments:read"])["key"]
    unconnected = gateway(stack, "mz", platform, f"/v1/api-keys/current?account_id={other['id']}")
    assert_problem(unconnected, 404, "Not Found", "not_found", "No such account.")
    assert mz.call("POST", f"/v1/accounts/{account['id']}/connected-accounts", {"account_id": other["id"]}).ok
    assert gateway(stack, "mz", platform, f"/v1/api-keys/current?account_id={other['id']}").status_code == 200


def test_a_key_restricted_to_customers_refuses_others(stack: RunningStack, mz: Operator) -> None:
    key = mz.key(mz.account()["id"], allowed_customers=["cus_001", "cus_002"])["key"]
    response = gateway(stack, "mz", key, "/v1/api-keys/current?customer_id=cus_999")
    assert_problem(response, 403, "Forbidden", "customer_not_allowed", "This API key is restricted to other customers.")
    assert gateway(stack, "mz", key, "/v1/api-keys/current?customer_id=cus_002").status_code == 200


def test_a_suspended_account_is_refused_until_reactivated(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    first, second = mz.key(account["id"]), mz.key(account["id"])
    suspended = mz.call("POST", f"/v1/accounts/{account['id']}/suspend", {"reason": "KYC review"})
    assert suspended.status_code == 200
    assert suspended.json() | {"updated_at": None} == account | {
        "status": "suspended",
        "reason": "KYC review",
        "updated_at": None,
    }
    assert_problem(
        gateway(stack, "mz", first["key"]),
        403,
        "Forbidden",
        "account_suspended",
        "This account is suspended: KYC review",
    )
    twice = mz.call("POST", f"/v1/accounts/{account['id']}/suspend", {"reason": "again"})
    assert_problem(twice, 409, "Conflict", "invalid_state", "Cannot suspend an account that is suspended.")
    reactivated = mz.call("POST", f"/v1/accounts/{account['id']}/reactivate")
    assert (reactivated.status_code, reactivated.json()["status"], reactivated.json()["reason"]) == (200, "active", "")
    assert gateway(stack, "mz", second["key"]).status_code == 200  # not used before: no cached refusal


# ---------------------------------------------------------------- roll
def test_roll_returns_the_new_secret_once_and_keeps_the_old_key_for_the_overlap(
    stack: RunningStack, mz: Operator
) -> None:
    created = mz.key(mz.account()["id"], scopes=["api_keys:write", "payments:read"], ip_allowlist=["127.0.0.1/32"])
    response = gateway(stack, "mz", created["key"], f"/v1/api-keys/{created['id']}/roll", "POST")
    assert response.status_code == 201
    rolled = response.json()
    assert re.fullmatch(r"mzp_test_[0-9A-Za-z]{38}", rolled["key"]) and rolled["key"] != created["key"]
    assert rolled["status"] == "active" and rolled["id"] != created["id"]
    assert (rolled["scopes"], rolled["ip_allowlist"], rolled["mode"]) == (
        created["scopes"],
        created["ip_allowlist"],
        "test",
    )
    overlap_end = datetime.fromisoformat(rolled["rolled"]["expires_at"].replace("Z", "+00:00"))
    assert rolled["rolled"]["id"] == created["id"]
    assert timedelta(hours=23, minutes=59) < overlap_end - datetime.now(UTC) <= timedelta(hours=24)
    assert gateway(stack, "mz", rolled["key"]).json()["id"] == rolled["id"]
    old = gateway(stack, "mz", created["key"])
    assert (old.status_code, old.json()["status"], old.json()["rolled_to"]) == (200, "rolled", rolled["id"])
    again = gateway(stack, "mz", rolled["key"], f"/v1/api-keys/{created['id']}/roll", "POST")
    assert_problem(again, 409, "Conflict", "already_rolled", "This key was already rolled or revoked.")


def test_roll_with_no_overlap_expires_the_old_key_at_once(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    admin, unused = mz.key(account["id"]), mz.key(account["id"])
    response = gateway(stack, "mz", admin["key"], f"/v1/api-keys/{unused['id']}/roll", "POST", {"overlap_seconds": 0})
    assert response.status_code == 201
    assert_problem(gateway(stack, "mz", unused["key"]), 401, "Unauthorized", "key_expired", "This API key has expired.")
    assert gateway(stack, "mz", response.json()["key"]).status_code == 200


def test_a_restricted_key_management_key_cannot_take_over_the_full_key(stack: RunningStack, mz: Operator) -> None:
    """Issue 11: a key whose only scope is api_keys:write, restricted to one customer and expiring,
    tried to roll the account's full key with no overlap (receiving its secret, locking the owner out)."""
    account = mz.account()
    owner = mz.key(account["id"])
    expires = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    narrow = mz.key(account["id"], scopes=["api_keys:write"], allowed_customers=["cus_001"], expires_at=expires)
    response = gateway(stack, "mz", narrow["key"], f"/v1/api-keys/{owner['id']}/roll", "POST", {"overlap_seconds": 0})
    assert_problem(
        response,
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key lacks the scope payments:read.",
        missing_scope="payments:read",
    )
    kept = gateway(stack, "mz", owner["key"])
    assert kept.status_code == 200
    assert kept.json() == {k: v for k, v in owner.items() if k != "key"}  # still active, never rolled
    customers = mz.key(account["id"], scopes=["api_keys:write"])  # same scopes, but for every customer
    response = gateway(stack, "mz", narrow["key"], f"/v1/api-keys/{customers['id']}/roll", "POST")
    assert_problem(
        response,
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key is restricted to customers the key to roll is not limited to (allowed_customers); "
        "roll it with a key at least as broad, or ask an operator.",
        restriction="allowed_customers",
    )
    assert gateway(stack, "mz", customers["key"]).json()["status"] == "active"
    own = gateway(stack, "mz", narrow["key"], f"/v1/api-keys/{narrow['id']}/roll", "POST")  # itself: always
    assert own.status_code == 201
    assert (own.json()["scopes"], own.json()["allowed_customers"]) == (["api_keys:write"], ["cus_001"])


def test_a_key_rolls_a_narrower_key_of_its_account(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    admin = mz.key(account["id"], ip_allowlist=["127.0.0.0/8"])
    reader = mz.key(account["id"], scopes=["payments:read"], ip_allowlist=["127.0.0.1/32"])
    response = gateway(stack, "mz", admin["key"], f"/v1/api-keys/{reader['id']}/roll", "POST")
    assert response.status_code == 201
    assert (response.json()["scopes"], response.json()["ip_allowlist"]) == (["payments:read"], ["127.0.0.1/32"])
    wider = mz.key(account["id"], scopes=["payments:read"])  # usable from anywhere
    refused = gateway(stack, "mz", admin["key"], f"/v1/api-keys/{wider['id']}/roll", "POST")
    assert refused.status_code == 403
    assert (refused.json()["code"], refused.json()["restriction"]) == ("insufficient_scope", "ip_allowlist")


def test_roll_validates_its_body(stack: RunningStack, mz: Operator) -> None:
    created = mz.key(mz.account()["id"])
    response = gateway(
        stack, "mz", created["key"], f"/v1/api-keys/{created['id']}/roll", "POST", {"overlap_seconds": 10**9}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert [e["field"] for e in response.json()["errors"]] == ["overlap_seconds"]


def test_another_accounts_key_is_not_found_never_forbidden(stack: RunningStack, mz: Operator) -> None:
    mine, theirs = mz.key(mz.account()["id"]), mz.key(mz.account("Vizinho")["id"])
    for key_id in (theirs["id"], "01ABCDEFGHJKMNPQRSTVWXYZ00"):
        response = gateway(stack, "mz", mine["key"], f"/v1/api-keys/{key_id}/roll", "POST")
        assert_problem(response, 404, "Not Found", "not_found", "No such API key.")


def test_rolling_a_live_key_with_a_test_key_is_the_wrong_environment(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    test_key = mz.key(account["id"])
    live = mz.call("POST", f"/v1/accounts/{account['id']}/api-keys", {"mode": "live"}).json()
    response = gateway(stack, "mz", test_key["key"], f"/v1/api-keys/{live['id']}/roll", "POST")
    assert_problem(
        response, 401, "Unauthorized", "wrong_environment", "A test key cannot reach live data; use a live key."
    )


# ---------------------------------------------------------------- residency
def test_a_key_used_in_the_wrong_region_is_misdirected_and_the_resend_succeeds(stack: RunningStack) -> None:
    key = stack.state["demo"]["mz"]["test_key"]
    response = gateway(stack, "regional-sa", key)
    mz_gateway = stack.state["regions"]["mz"]["gateway"]
    detail = f"This tenant is served in region mz; resend the request to {mz_gateway}."
    assert_problem(response, 421, "Misdirected Request", "wrong_region", detail, region="mz", base_url=mz_gateway)
    assert response.headers["Service-Region"] == "mz"
    assert response.headers["Service-Region-Url"] == mz_gateway
    resent = requests.get(
        response.headers["Service-Region-Url"] + "/v1/api-keys/current",
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert resent.status_code == 200
    assert resent.json()["account_id"] == stack.state["demo"]["mz"]["account_id"]


def test_the_other_way_round_too(stack: RunningStack) -> None:
    key = stack.state["demo"]["regional-sa"]["live_key"]
    response = gateway(stack, "mz", key)
    assert response.status_code == 421
    assert response.headers["Service-Region-Url"] == stack.state["regions"]["regional-sa"]["gateway"]
    assert gateway(stack, "regional-sa", key).json()["mode"] == "live"


def test_an_account_is_answered_by_its_region_only(stack: RunningStack, mz: Operator, sa: Operator) -> None:
    account = mz.account()
    response = eventually(lambda: sa.call("GET", f"/v1/accounts/{account['id']}"), lambda r: r.status_code != 404)
    mz_management = stack.state["regions"]["mz"]["management"]
    assert_problem(
        response,
        421,
        "Misdirected Request",
        "wrong_region",
        f"This tenant is served in region mz; resend the request to {mz_management}.",
        region="mz",
        base_url=mz_management,
    )
    assert response.headers["Service-Region-Url"] == mz_management
    assert mz.call("GET", f"/v1/accounts/{account['id']}").json() == account


def test_an_account_is_created_in_its_own_region(stack: RunningStack, mz: Operator) -> None:
    response = mz.call("POST", "/v1/accounts", {"name": "Loja Joanesburgo", "region": "regional-sa"})
    assert response.status_code == 421
    assert response.json()["base_url"] == stack.state["regions"]["regional-sa"]["management"]


# ---------------------------------------------------------------- management
def test_account_creation_answers_the_account(mz: Operator) -> None:
    account = mz.created("Farmácia Central")
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", account["id"])
    secrets = account.pop("webhook_secrets")
    assert account | {"id": None, "created_at": None, "updated_at": None} == {
        "id": None,
        "name": "Farmácia Central",
        "region": "mz",
        "status": "active",
        "reason": "",
        "created_at": None,
        "updated_at": None,
    }
    assert sorted(secrets) == ["live", "test"]
    for secret in secrets.values():
        assert set(secret) == {"secret_id", "secret"} and secret["secret"].startswith("whsec_")
    assert secrets["test"]["secret"] != secrets["live"]["secret"]
    assert account["created_at"] == account["updated_at"]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"name": "x", "region": "eu"}, ["region"]),
        ({"region": "mz"}, ["name"]),
        ({"name": "", "region": "mz"}, ["name"]),
        ({"name": "x", "region": "mz", "extra": 1}, ["extra"]),
    ],
)
def test_account_creation_validates_every_field(mz: Operator, body: dict[str, Any], fields: list[str]) -> None:
    response = mz.call("POST", "/v1/accounts", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert [e["field"] for e in response.json()["errors"]] == fields


def test_unknown_accounts_and_keys_are_not_found(mz: Operator) -> None:
    assert_problem(
        mz.call("GET", "/v1/accounts/01ABCDEFGHJKMNPQRSTVWXYZ00"), 404, "Not Found", "not_found", "No such account."
    )
    assert_problem(
        mz.call("POST", "/v1/api-keys/01ABCDEFGHJKMNPQRSTVWXYZ00/revoke"),
        404,
        "Not Found",
        "not_found",
        "No such API key.",
    )


def test_key_creation_validates_scopes_cidrs_modes_and_expiry(mz: Operator) -> None:
    account = mz.account()
    path = f"/v1/accounts/{account['id']}/api-keys"
    scopes = mz.call("POST", path, {"mode": "test", "scopes": ["payments:read", "nonsense"]}).json()
    assert scopes["code"] == "invalid_scope"
    assert scopes["errors"] == [{"field": "scopes", "code": "invalid_scope", "message": "unknown scopes: nonsense"}]
    cidr = mz.call("POST", path, {"mode": "test", "ip_allowlist": ["300.1.1.1/8"]}).json()
    assert (cidr["code"], cidr["errors"][0]["field"]) == ("invalid_cidr", "ip_allowlist")
    mode = mz.call("POST", path, {"mode": "prod"}).json()
    assert (mode["code"], mode["errors"][0]["field"]) == ("invalid_request", "mode")
    empty = mz.call("POST", path, {"mode": "test", "scopes": []}).json()
    assert (empty["code"], empty["errors"][0]["field"]) == ("invalid_request", "scopes")
    offset = mz.call("POST", path, {"mode": "test", "expires_at": "2030-01-01T02:00:00+02:00"}).json()
    assert offset["expires_at"] == "2030-01-01T00:00:00Z"  # stored and shown in UTC
    past = mz.call("POST", path, {"mode": "test", "expires_at": "2020-01-01T00:00:00Z"})
    assert_problem(past, 400, "Bad Request", "invalid_request", "expires_at must be in the future.")


def test_reactivating_an_active_account_is_invalid_state(mz: Operator) -> None:
    account = mz.account()
    response = mz.call("POST", f"/v1/accounts/{account['id']}/reactivate")
    assert_problem(response, 409, "Conflict", "invalid_state", "Cannot reactivate an account that is active.")


def test_webhook_secret_roll_keeps_the_previous_secret_for_a_day(mz: Operator) -> None:
    account = mz.created()
    path = f"/v1/accounts/{account['id']}/webhook-secrets/roll"
    first = mz.call("POST", path, {"mode": "live"}).json()
    assert first["previous_secret_id"] == account["webhook_secrets"]["live"]["secret_id"]  # made with the account
    assert re.fullmatch(r"whsec_[A-Za-z0-9_-]{43}", first["secret"])
    second = mz.call("POST", path, {"mode": "live"}).json()
    assert second["secret"] != first["secret"]
    assert second["previous_secret_id"] == first["secret_id"]
    previous_end = datetime.fromisoformat(second["previous_expires_at"].replace("Z", "+00:00"))
    assert timedelta(hours=23, minutes=59) < previous_end - datetime.now(UTC) <= timedelta(hours=24)
    assert (second["account_id"], second["mode"], second["region"]) == (account["id"], "live", "mz")


def test_the_directory_converges_in_both_regions_after_rapid_changes(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    for action, body in [("suspend", {"reason": "r1"}), ("reactivate", None), ("suspend", {"reason": "final"})]:
        assert mz.call("POST", f"/v1/accounts/{account['id']}/{action}", body).status_code == 200

    def replica(env: str) -> dict[str, Any] | None:
        """The account as `env`'s replica has it (None until it has replicated there)."""
        client = stack.aws("dynamodb", env)
        item = client.get_item(
            TableName="mzpay-directory",
            Key={"pk": {"S": f"ACCOUNT#{account['id']}"}, "sk": {"S": "ACCOUNT"}},
            ConsistentRead=True,
        ).get("Item")
        if item is None:
            return None
        return {"status": item["status"]["S"], "reason": item["reason"]["S"], "version": item["version"]["N"]}

    final = {"status": "suspended", "reason": "final", "version": "4"}
    eventually(lambda: replica("regional-sa"), lambda seen: seen == final)
    for _ in range(10):  # and it stays so: no stale copy travels back
        assert replica("mz") == final and replica("regional-sa") == final
        time.sleep(0.1)


def test_access_changes_reach_the_very_next_request_of_a_key_in_use(stack: RunningStack, mz: Operator) -> None:
    """No authorizer result cache: the same key, from the same address, right before and right after."""
    account = mz.account()
    key = mz.key(account["id"])
    assert gateway(stack, "mz", key["key"]).status_code == 200
    assert mz.call("POST", f"/v1/accounts/{account['id']}/suspend", {"reason": "KYC review"}).status_code == 200
    assert_problem(
        gateway(stack, "mz", key["key"]), 403, "Forbidden", "account_suspended", "This account is suspended: KYC review"
    )
    assert mz.call("POST", f"/v1/accounts/{account['id']}/reactivate").status_code == 200
    assert gateway(stack, "mz", key["key"]).status_code == 200
    rolled = gateway(stack, "mz", key["key"], f"/v1/api-keys/{key['id']}/roll", "POST", {"overlap_seconds": 0})
    assert rolled.status_code == 201, rolled.text
    assert gateway(stack, "mz", key["key"]).json()["code"] == "key_expired"
    fresh = rolled.json()["key"]
    assert gateway(stack, "mz", fresh).status_code == 200
    assert mz.call("POST", f"/v1/api-keys/{rolled.json()['id']}/revoke").status_code == 200
    assert gateway(stack, "mz", fresh).json()["code"] == "unauthorized"
