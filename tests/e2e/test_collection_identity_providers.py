"""Identity providers over HTTP (mz): create with and without discovery, read, list across
pages, update only what is sent, delete, secrets never shown, and the operators' audit trail."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_invalid, assert_ok

pytestmark = pytest.mark.e2e
IDP_ID = re.compile(r"^idp_[A-Za-z0-9]+$")
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ENDPOINTS = (
    "issuer_url",
    "auth_url",
    "token_url",
    "user_info_url",
    "end_session_endpoint",
    "jwks_uri",
    "registration_endpoint",
    "introspection_endpoint",
    "revocation_endpoint",
)


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    client = Collection(stack, "mz")
    client.token = client.admin  # identity providers are the installation administrator's
    client.ensure_licence()
    return client


@pytest.fixture
def created(mz: Collection) -> Iterator[list[str]]:
    """Ids of providers a test made; deleted after it."""
    ids: list[str] = []
    yield ids
    for idp_id in ids:
        mz.call("DELETE", "/v1/identity_providers", params={"id": idp_id})


def operator_get(stack: RunningStack, path: str, **params: Any) -> requests.Response:
    url = stack.state["regions"]["mz"]["management"] + path
    headers = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    return requests.get(url, headers=headers, params=params, timeout=30)


def saml(name: str, **fields: Any) -> dict[str, Any]:
    """A SAML provider: every endpoint by hand."""
    base = f"https://{name}.idp.example"
    body = {
        "name": name,
        "type": "saml",
        "client_id": f"client-{name}",
        "client_secret": f"secret-of-{name}-0123456789",
        "encryption_key": f"key-of-{name}-abcdefghijkl",
        "provider_url": base,
        "scopes": "openid email",
        "redirect_uris": "https://portal.example/a,https://portal.example/b",
        "well_known_url": f"{base}/metadata",
    }
    body |= {field: f"{base}/{field}" for field in ENDPOINTS}
    body["issuer_url"] = base
    return body | fields


def oidc(mz: Collection, **fields: Any) -> dict[str, Any]:
    partner = mz.oidc["realms"]["partner"]["issuer"]
    body = {
        "name": "Partner",
        "type": "oidc",
        "client_id": "mzpay-portal",
        "client_secret": "the-partner-client-secret",
        "encryption_key": "the-partner-encryption-key",
        "provider_url": "https://partner.example",
        "scopes": "openid profile",
        "redirect_uris": "https://portal.example/callback",
        "well_known_url": f"{partner}/.well-known/openid-configuration",
    }
    return body | fields


def expected_view(body: dict[str, Any], answer: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """What the service should show of `body`: secrets as hints, stamps of the demo client."""
    view = {
        name: body.get(name)
        for name in (
            "name",
            "type",
            "client_id",
            "provider_url",
            "scopes",
            "redirect_uris",
            "well_known_url",
            *ENDPOINTS,
        )
    }
    view |= {
        "id": answer["id"],
        "client_secret": "****" + body["client_secret"][-4:],
        "encryption_key": "****" + body["encryption_key"][-4:],
        "created_at": answer["created_at"],
        "updated_at": answer["created_at"],
        "account_ids": body.get("account_ids", []),
        "created_by": "mzpay-admin-mz",
        "created_ip": "127.0.0.1",
        "updated_by": None,
        "updated_ip": None,
    }
    return view | overrides


def test_create_saml_answers_the_provider_with_secrets_hidden(mz: Collection, created: list[str]) -> None:
    body = saml(f"acme{uuid.uuid4().hex[:8]}")
    answer = assert_ok(mz.call("POST", "/v1/identity_providers", body))
    provider = answer["identity_provider"]
    created.append(provider["id"])
    assert IDP_ID.match(provider["id"]) and STAMP.match(provider["created_at"])
    assert answer == {"object": "idp", "identity_provider": expected_view(body, provider), "error": None}
    assert assert_ok(mz.call("GET", f"/v1/identity_providers/{provider['id']}")) == answer
    assert body["client_secret"] not in str(answer) and body["encryption_key"] not in str(answer)


def test_discovery_fills_the_endpoints_and_explicit_values_win(mz: Collection, created: list[str]) -> None:
    partner = mz.oidc["realms"]["partner"]["issuer"]
    issuer = f"https://tenant-{uuid.uuid4().hex[:8]}.partner.example"
    body = oidc(mz, issuer_url=issuer, token_url="https://partner.example/custom-token")
    answer = assert_ok(mz.call("POST", "/v1/identity_providers", body))["identity_provider"]
    created.append(answer["id"])
    discovered = {
        "auth_url": f"{partner}/authorize",
        "user_info_url": f"{partner}/userinfo",
        "jwks_uri": f"{partner}/jwks",
        "end_session_endpoint": f"{partner}/logout",
        "registration_endpoint": f"{partner}/register",
        "introspection_endpoint": f"{partner}/introspect",
        "revocation_endpoint": f"{partner}/revoke",
    }
    assert answer == expected_view(body, answer, **discovered)
    assert answer["issuer_url"] == issuer and answer["token_url"] == "https://partner.example/custom-token"


def test_a_failed_discovery_is_a_clear_validation_error(mz: Collection) -> None:
    body = oidc(mz, well_known_url="http://127.0.0.1:1/.well-known/openid-configuration")
    message = "OIDC discovery failed: 127.0.0.1 could not be reached"
    assert_invalid(mz.call("POST", "/v1/identity_providers", body), ("well_known_url", "discovery_failed", message))


def test_required_fields_are_named(mz: Collection) -> None:
    response = mz.call("POST", "/v1/identity_providers", {"type": "saml"})
    body = response.json()
    assert response.status_code == 400 and body["code"] == "validation_error"
    fields = [error["field"] for error in body["metadata"]["errors"]]
    assert fields == [
        "name",
        "client_id",
        "client_secret",
        "encryption_key",
        "provider_url",
        "scopes",
        "redirect_uris",
        "well_known_url",
    ]
    assert all(error["code"] == "required" for error in body["metadata"]["errors"])
    incomplete = saml("incomplete")
    for field in ("auth_url", "jwks_uri"):
        del incomplete[field]
    assert_invalid(
        mz.call("POST", "/v1/identity_providers", incomplete),
        *[
            (field, "required", f"{field} is required: SAML providers set every endpoint by hand")
            for field in ("auth_url", "jwks_uri")
        ],
    )
    bad = mz.call("POST", "/v1/identity_providers", saml("bad", token_url="ftp://nope", kind="x"))
    assert bad.status_code == 400
    assert {e["field"]: e["code"] for e in bad.json()["metadata"]["errors"]} == {"kind": "unknown_field"}
    bad = mz.call("POST", "/v1/identity_providers", saml("bad", token_url="ftp://nope"))
    assert bad.json()["metadata"]["errors"] == [
        {"field": "token_url", "code": "invalid_url", "message": "token_url must be an absolute http(s) URL"}
    ]


def test_an_issuer_belongs_to_one_provider(mz: Collection, created: list[str]) -> None:
    body = saml(f"dup{uuid.uuid4().hex[:8]}")
    created.append(assert_ok(mz.call("POST", "/v1/identity_providers", body))["identity_provider"]["id"])
    assert_error(
        mz.call("POST", "/v1/identity_providers", {**body, "name": "copy"}),
        409,
        "already_exists",
        "Another identity provider has this issuer_url.",
        {"field": "issuer_url"},
    )
    assert_error(
        mz.call("POST", "/v1/identity_providers", saml("boot", issuer_url=mz.oidc["issuer"])),
        409,
        "already_exists",
        "This issuer is the stack's configured provider.",
        {"field": "issuer_url"},
    )


def test_update_changes_only_what_is_sent_and_stamps_it(mz: Collection, created: list[str]) -> None:
    body = saml(f"upd{uuid.uuid4().hex[:8]}")
    before = assert_ok(mz.call("POST", "/v1/identity_providers", body))["identity_provider"]
    created.append(before["id"])
    answer = assert_ok(
        mz.call("PUT", "/v1/identity_providers", {"id": before["id"], "name": "Renamed", "updated_by": "ana"})
    )
    after = answer["identity_provider"]
    assert answer["object"] == "idp" and answer["error"] is None
    assert STAMP.match(after["updated_at"]) and after["updated_at"] >= before["updated_at"]
    assert after == {
        **before,
        "name": "Renamed",
        "updated_at": after["updated_at"],
        "updated_by": "ana",
        "updated_ip": "127.0.0.1",
    }
    # a read sent back whole (secrets as hints, created_* unchanged) changes nothing else
    again = assert_ok(mz.call("PUT", "/v1/identity_providers", {k: v for k, v in after.items() if v is not None}))
    assert again["identity_provider"] == {
        **after,
        "updated_at": again["identity_provider"]["updated_at"],
        "updated_by": "ana",
    }
    secret = assert_ok(
        mz.call("PUT", "/v1/identity_providers", {"id": before["id"], "client_secret": "a-brand-new-secret-WXYZ"})
    )["identity_provider"]
    assert secret["client_secret"] == "****WXYZ" and secret["updated_by"] == "mzpay-admin-mz"
    assert_invalid(
        mz.call("PUT", "/v1/identity_providers", {"id": before["id"], "created_by": "mallory"}),
        ("created_by", "immutable", "created_by is set once, when the provider is created"),
    )
    assert_error(
        mz.call("PUT", "/v1/identity_providers", {"id": "idp_01ARZ3NDEKTSV4RRFFQ69G5FAV", "name": "x"}),
        404,
        "not_found",
        "No such identity provider.",
    )


def test_delete_by_query_id(mz: Collection) -> None:
    provider = assert_ok(mz.call("POST", "/v1/identity_providers", saml(f"del{uuid.uuid4().hex[:8]}")))
    idp_id = provider["identity_provider"]["id"]
    assert assert_ok(mz.call("DELETE", "/v1/identity_providers", params={"id": idp_id})) == {
        "object": "idp",
        "error": None,
    }
    for response in (
        mz.call("GET", f"/v1/identity_providers/{idp_id}"),
        mz.call("DELETE", "/v1/identity_providers", params={"id": idp_id}),
        mz.call("GET", "/v1/identity_providers/not-an-id"),
    ):
        assert_error(response, 404, "not_found", "No such identity provider.")
    assert_invalid(mz.call("DELETE", "/v1/identity_providers"), ("id", "required", "id is required"))


def test_operators_read_who_created_and_changed_a_provider(stack: RunningStack, mz: Collection) -> None:
    body = saml(f"aud{uuid.uuid4().hex[:8]}")
    idp_id = assert_ok(mz.call("POST", "/v1/identity_providers", body))["identity_provider"]["id"]
    assert_ok(mz.call("PUT", "/v1/identity_providers", {"id": idp_id, "scopes": "openid", "client_secret": "new-0000"}))
    assert_ok(mz.call("DELETE", "/v1/identity_providers", params={"id": idp_id}))
    answer = operator_get(stack, f"/v1/identity-providers/{idp_id}/audit")
    assert answer.status_code == 200, answer.text
    records = answer.json()
    assert records["object"] == "list" and records["has_more"] is False and records["next_page_token"] is None
    actor = mz.administrator("mzpay-admin-mz")
    deleted, updated, created_ = records["data"]
    for record, action in ((created_, "created"), (updated, "updated"), (deleted, "deleted")):
        assert record["object"] == "audit_record" and record["id"].startswith("aud_")
        assert (record["resource"], record["resource_id"], record["action"]) == ("identity_provider", idp_id, action)
        assert (record["actor"], record["ip"]) == (actor, "127.0.0.1") and STAMP.match(record["at"])
    assert updated["changes"] == {
        "client_secret": {"from": "****" + body["client_secret"][-4:], "to": "****"},
        "scopes": {"from": "openid email", "to": "openid"},
    }
    assert created_["changes"]["name"] == {"from": None, "to": body["name"]}
    assert created_["changes"]["client_secret"] == {"from": None, "to": "****" + body["client_secret"][-4:]}
    assert set(created_["changes"]) == set(body)
    assert deleted["changes"] == {}
    unknown = operator_get(stack, "/v1/identity-providers/idp_01ARZ3NDEKTSV4RRFFQ69G5FAV/audit")
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


def test_the_list_pages_through_more_than_100_providers(mz: Collection, created: list[str]) -> None:
    run = uuid.uuid4().hex[:6]
    for index in range(105):
        answer = mz.call("POST", "/v1/identity_providers", saml(f"p{run}n{index}"))
        created.append(assert_ok(answer)["identity_provider"]["id"])
    seen: list[str] = []
    token = None
    pages = 0
    while True:
        params = {"page_size": 100, **({"page_token": token} if token else {})}
        page = assert_ok(mz.call("GET", "/v1/identity_providers", params=params))
        assert set(page) == {"object", "data", "has_more", "next_page_token", "error"}
        assert page["object"] == "list" and page["error"] is None and len(page["data"]) <= 100
        seen += [item["id"] for item in page["data"]]
        pages += 1
        assert page["has_more"] is (page["next_page_token"] is not None)
        if not page["has_more"]:
            break
        token = page["next_page_token"]
    assert pages >= 2 and len(seen) == len(set(seen))
    assert [i for i in seen if i in set(created)] == created  # creation order, each once
    default = assert_ok(mz.call("GET", "/v1/identity_providers"))
    assert len(default["data"]) == 50 and default["has_more"] is True
    for size in (0, 101):
        message = "page_size must be at least 1" if size == 0 else "page_size must be at most 100"
        refused = mz.call("GET", "/v1/identity_providers", params={"page_size": size})
        assert_invalid(refused, ("page_size", "invalid_value", message))
    assert_invalid(
        mz.call("GET", "/v1/identity_providers", params={"page_token": "bm90LWEta2V5"}),
        ("page_token", "invalid_value", "page_token is not a token this list gave"),
    )
