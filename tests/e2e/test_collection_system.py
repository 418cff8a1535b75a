"""System information and devices over HTTP (mz): supported documents, the account-opening
checklist, and a device's trust round trip."""

from __future__ import annotations

import hashlib
import re
import uuid

import pytest

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_invalid, assert_ok, licensed, validation

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def device(**fields: str) -> dict[str, str]:
    imei = str(uuid.uuid4().int)[:15]
    body = {
        "device_id": hashlib.sha256(imei.encode()).hexdigest(),
        "user_id": "usr_01JD3M6Y8Q7T3Y5F0ZC9W3B2KX",
        "device_name": "Ana's phone",
        "manufacturer": "Samsung",
        "model": "Galaxy A15",
        "os": "Android 14",
        "ip_address": "41.220.1.10",
        "created_at": "2026-11-20T10:00:00Z",
    }
    return body | fields


def test_supported_documents_are_passport_dire_and_bi(mz: Collection) -> None:
    body = assert_ok(mz.call("GET", "/v1/system/config/supported-docs"))
    assert body["object"] == "supported_documents"
    assert [(d["type"], d["config"]) for d in body["document_types"]] == [
        ("passport", {"has_back": False}),
        ("dire", {"has_back": True}),
        ("bi", {"has_back": True}),
    ]
    assert all(set(d) == {"type", "description", "config"} and d["description"] for d in body["document_types"])


def test_the_checklist_lists_items_a_reviewer_may_request(mz: Collection) -> None:
    body = assert_ok(mz.call("GET", "/v1/system/accountopening/checklist"))
    assert set(body) == {"object", "items"} and body["object"] == "checklist"
    assert len(body["items"]) >= 5
    for item in body["items"]:
        assert set(item) == {"item_id", "type", "description", "is_mandatory", "has_validity"}
        assert re.fullmatch(r"item_[a-z_]+", item["item_id"])
        assert isinstance(item["is_mandatory"], bool) and isinstance(item["has_validity"]["has_duration"], bool)
    assert len({item["item_id"] for item in body["items"]}) == len(body["items"])


def test_a_device_round_trip(mz: Collection) -> None:
    body = device()
    path = f"/v1/devices/{body['device_id']}"
    assert assert_ok(mz.call("GET", path)) == {"object": "device", "device_exists": False}
    assert assert_ok(mz.call("POST", "/v1/devices/trust", body)) == {"object": "device", "trusted": body["device_id"]}
    assert assert_ok(mz.call("GET", path)) == {"object": "device", "device_exists": True}
    assert assert_ok(mz.call("GET", path.upper().replace("/V1/DEVICES/", "/v1/devices/"))) == {
        "object": "device",
        "device_exists": True,
    }
    # trusting it again for the same user is answered the same; for another user it is refused
    assert assert_ok(mz.call("POST", "/v1/devices/trust", body))["trusted"] == body["device_id"]
    assert_error(
        mz.call("POST", "/v1/devices/trust", {**body, "user_id": "usr_someone_else"}),
        409,
        "already_exists",
        "This device is trusted for another user of the account.",
    )


def test_devices_are_trusted_per_account(mz: Collection) -> None:
    body = device()
    assert_ok(mz.call("POST", "/v1/devices/trust", body))
    other = mz.mint(account_id="acc_other")
    assert assert_ok(mz.call("GET", f"/v1/devices/{body['device_id']}", token=other))["device_exists"] is False


def test_a_device_id_must_be_a_sha256_digest(mz: Collection) -> None:
    not_a_digest = ("device_id", "invalid_format", "device_id must be a SHA-256 hex digest (64 hex digits)")
    assert_invalid(mz.call("POST", "/v1/devices/trust", device(device_id="356938035643808")), not_a_digest)
    # A raw IMEI (15 digits passing Luhn) cannot be told from a card number: refused as card data
    # before any rule of the route (docs/conventions.md, "Card data").
    words = "a card number or security code is never accepted: send the acquirer's card token"
    assert_error(
        mz.call("POST", "/v1/devices/trust", device(device_id="356938035643809")),
        400,
        "validation_error",
        "Card data is never accepted here: remove the card number or security code from device_id "
        "(send a card only as the acquirer's token, where a route takes one).",
        validation(("device_id", "INVALID_FORMAT", words)),
    )
    assert_invalid(mz.call("GET", "/v1/devices/" + "g" * 64), not_a_digest)


def test_a_device_needs_the_specs_required_fields(mz: Collection) -> None:
    response = mz.call("POST", "/v1/devices/trust", {"device_id": "a" * 64, "ip_address": "not-an-ip"})
    assert response.status_code == 400
    errors = {e["field"]: e["code"] for e in response.json()["metadata"]["errors"]}
    assert errors == {
        "user_id": "required",
        "device_name": "required",
        "ip_address": "invalid_value",
        "created_at": "required",
    }
