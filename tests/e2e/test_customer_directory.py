"""The payer directory over HTTP (mz, docs/customers.md): a business lists its customers in name
order and pages them, finds them by phone, NUIT and name prefix (accents and case ignored),
reads, changes and removes one; a request names a customer_id and is listed among the
customer's; a removal keeps the request (its amount) and shows its payer removed; another
business's customer is customer_not_found on every route and never in its lists; refusals have
the collection surface's shape, naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok, licensed

pytestmark = pytest.mark.e2e
NUIT = "400123454"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


@pytest.fixture(scope="module")
def shop(mz: Collection) -> tuple[str, str]:
    """A fresh active business whose directory this module fills: (its token, its test method)."""
    token = mz.active_business("Loja do Directório", "directory-owner")[1]
    method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token))
    return token, method["id"]


def phone() -> str:
    number = "+25884" + str(int(ULID()) % 10_000_000).zfill(7)
    return number if not number.endswith("99") else number[:-2] + "98"


def register(mz: Collection, token: str, name: str, **fields: Any) -> dict[str, Any]:
    body = {"name": name, "document_type": "bi", **fields}
    return assert_ok(mz.call("POST", "/v1/customers", body, token=token))


def listed(mz: Collection, token: str, **params: Any) -> dict[str, Any]:
    return assert_ok(mz.call("GET", "/v1/customers", token=token, params=params))


def test_the_directory_is_listed_by_name_paged_and_searched_by_each_key(mz: Collection, shop: tuple[str, str]) -> None:
    token = shop[0]
    ana_phone = phone()
    ana = register(mz, token, "Ána Machava", phone_number=ana_phone, nuit=NUIT, email="ana@example.co.mz")
    bela = register(mz, token, "anabela Cossa", phone_number=phone())
    rita = register(mz, token, "Rita Sitoe")

    everyone = listed(mz, token)
    assert [c["id"] for c in everyone["items"]] == [ana["id"], bela["id"], rita["id"]]
    assert everyone["items"][0] == {
        "object": "customer",
        "id": ana["id"],
        "status": "active",
        "name": "Ána Machava",
        "email": "ana@example.co.mz",
        "phone_number": ana_phone,
        "nuit": NUIT,
        "address": None,
        "language": None,
        "kyc_id": ana["kyc"]["kyc_id"],
        "created_at": ana["created_at"],
        "updated_at": ana["created_at"],
    }
    first = listed(mz, token, page_size=2)
    assert [c["id"] for c in first["items"]] == [ana["id"], bela["id"]] and first["has_more"]
    second = listed(mz, token, page_size=2, page_token=first["next_page_token"])
    assert ([c["id"] for c in second["items"]], second["has_more"], second["next_page_token"]) == (
        [rita["id"]],
        False,
        None,
    )

    assert [c["id"] for c in listed(mz, token, phone_number=ana_phone)["items"]] == [ana["id"]]
    assert [c["id"] for c in listed(mz, token, nuit="400 123 454")["items"]] == [ana["id"]]
    assert [c["id"] for c in listed(mz, token, name="ANA")["items"]] == [ana["id"], bela["id"]]
    assert [c["id"] for c in listed(mz, token, name="ana mach")["items"]] == [ana["id"]]
    assert listed(mz, token, name="machava")["items"] == []  # a prefix of the whole name
    assert listed(mz, token, phone_number=phone())["items"] == []


def test_a_bad_search_or_token_is_refused_naming_the_field(mz: Collection, shop: tuple[str, str]) -> None:
    token = shop[0]
    for params, field, code, message in (
        ({"phone_number": "841234567"}, "phone_number", "INVALID_FORMAT", None),
        ({"nuit": "400123453"}, "nuit", "VERIFICATION_FAILED", "the NUIT's check digit does not hold"),
        ({"page_token": "bm90LWEtdG9rZW4"}, "page_token", "INVALID_FORMAT", "a page_token this list gave"),
    ):
        answer = mz.call("GET", "/v1/customers", token=token, params=params)
        assert answer.status_code == 400, answer.text
        body = answer.json()
        assert (body["code"], [(e["field"], e["code"]) for e in body["metadata"]["errors"]]) == (
            "validation_error",
            [(field, code)],
        )
        if message:
            assert body["metadata"]["errors"][0]["message"] == message
    both = mz.call("GET", "/v1/customers", token=token, params={"nuit": NUIT, "name": "Ana"}).json()
    assert [e["field"] for e in both["metadata"]["errors"]] == ["nuit", "name"]
    assert mz.call("GET", "/v1/customers", token=token, params={"page_size": 101}).status_code == 400


def test_a_customer_is_read_changed_and_its_kyc_listed(mz: Collection, shop: tuple[str, str]) -> None:
    token = shop[0]
    old_phone, new_phone = phone(), phone()
    joana = register(mz, token, "Joana Tembe", phone_number=old_phone)
    path = f"/v1/customers/{joana['id']}"
    read = assert_ok(mz.call("GET", path, token=token))
    assert (read["name"], read["kyc"], read["status"]) == ("Joana Tembe", joana["kyc"], "active")

    change = {"phone_number": new_phone, "email": "joana@example.co.mz", "language": "en", "nuit": NUIT}
    changed = assert_ok(mz.call("PUT", path, {**change, "address": {"country": "MZ", "city": "Beira"}}, token=token))
    assert {k: changed[k] for k in change} == change and changed["address"] == {"country": "MZ", "city": "Beira"}
    assert changed["updated_at"] >= read["updated_at"]
    assert assert_ok(mz.call("GET", path, token=token)) == changed
    assert listed(mz, token, phone_number=old_phone)["items"] == []
    assert [c["id"] for c in listed(mz, token, phone_number=new_phone)["items"]] == [joana["id"]]
    cleared = assert_ok(mz.call("PUT", path, {"email": None}, token=token))
    assert cleared["email"] is None and cleared["phone_number"] == new_phone

    for body, field, code in (
        ({"email": "joana@@x"}, "email", "INVALID_FORMAT"),
        ({"nuit": "400123453"}, "nuit", "VERIFICATION_FAILED"),
        ({"address": {"country": "XX"}}, "address.country", "NOT_FOUND"),
    ):
        refused = mz.call("PUT", path, body, token=token)
        assert refused.status_code == 400 and refused.json()["code"] == "validation_error", refused.text
        assert [(e["field"], e["code"]) for e in refused.json()["metadata"]["errors"]] == [(field, code)]
    assert mz.call("PUT", path, {"name": "x" * 201}, token=token).status_code == 400
    assert mz.call("PUT", path, {"address": {"line1": "4111 1111 1111 1111"}}, token=token).status_code == 400
    assert mz.call("PUT", path, {"name": ""}, token=token).json()["code"] == "missing_field"
    assert assert_ok(mz.call("GET", path, token=token)) == cleared  # nothing refused changed it

    kyc = assert_ok(mz.call("GET", f"{path}/kyc", token=token))
    assert kyc == {"object": "list", "data": [joana["kyc"]], "has_more": False}


def test_a_request_names_a_customer_and_its_removal_keeps_the_record(mz: Collection, shop: tuple[str, str]) -> None:
    token, method = shop
    paula = register(mz, token, "Paula Mondlane", email="paula@example.co.mz", nuit=NUIT, phone_number=phone())
    base = {"collection_method_ids": [method], "amount": {"currency": "MZN", "value": 900}}
    created = assert_ok(mz.call("POST", "/v1/collection-requests", {**base, "customer_id": paula["id"]}, token=token))
    assert created["customer_id"] == paula["id"]
    assert {k: created["payer"][k] for k in ("type", "first_name", "last_name", "vat_number", "delivery_method")} == {
        "type": "individual",
        "first_name": "Paula",
        "last_name": "Mondlane",
        "vat_number": NUIT,
        "delivery_method": "email",
    }
    other = assert_ok(mz.call("POST", "/v1/collection-requests", {**base, "customer_id": paula["id"]}, token=token))
    mine = assert_ok(mz.call("GET", f"/v1/customers/{paula['id']}/collection-requests", token=token))
    assert [r["id"] for r in mine["items"]] == [other["id"], created["id"]]
    page = assert_ok(mz.call("GET", f"/v1/customers/{paula['id']}/collection-requests?page_size=1", token=token))
    assert [r["id"] for r in page["items"]] == [other["id"]] and page["has_more"]

    both = mz.call("POST", "/v1/collection-requests", {**base, "customer_id": paula["id"], "payer": {}}, token=token)
    assert both.status_code == 400, both.text
    neither = mz.call("POST", "/v1/collection-requests", base, token=token)
    assert neither.status_code == 400 and neither.json()["code"] == "validation_error", neither.text
    assert [e["field"] for e in neither.json()["metadata"]["errors"]] == ["payer"]

    path = f"/v1/customers/{paula['id']}"
    removed = assert_ok(mz.call("DELETE", path, token=token))
    assert removed == {
        "object": "customer",
        "id": paula["id"],
        "status": "removed",
        "removed": True,
        "created_at": paula["created_at"],
        "updated_at": removed["updated_at"],
    }
    assert assert_ok(mz.call("DELETE", path, token=token)) == removed  # idempotent
    assert assert_ok(mz.call("GET", path, token=token)) == removed
    kept = assert_ok(mz.call("GET", f"/v1/collection-requests/{created['id']}", token=token))["collection_request"]
    assert kept["amount"] == {"currency": "MZN", "value": 900.0} and kept["status"] == created["status"]
    assert kept["payer"] == {
        "type": "individual",
        "delivery_method": "email",
        "first_name": "(removed)",
        "last_name": "(removed)",
        "legal_name": None,
        "vat_number": None,
        "removed": True,
    }
    assert kept["compliance_audit"]["payer_nuit"] is None
    after = assert_ok(mz.call("GET", f"/v1/customers/{paula['id']}/collection-requests", token=token))
    assert [r["id"] for r in after["items"]] == [other["id"], created["id"]]
    assert all(c["id"] != paula["id"] for c in listed(mz, token, nuit=NUIT)["items"])
    for method_, route, body in (
        ("PUT", path, {"email": "paula@example.co.mz"}),
        ("GET", f"{path}/kyc", None),
        ("POST", "/v1/collection-requests", {**base, "customer_id": paula["id"]}),
    ):
        meta = {"field": "customer_id"} if route == "/v1/collection-requests" else None
        assert_error(mz.call(method_, route, body, token=token), 404, "customer_not_found", "No such customer.", meta)


def test_another_business_never_reaches_a_customer_nor_finds_it(mz: Collection, shop: tuple[str, str]) -> None:
    token = shop[0]
    nina_phone = phone()
    nina = register(mz, token, "Nina Chissano", phone_number=nina_phone, nuit=NUIT)
    other = mz.demo["collection_method_ids"][0]  # the demo business's method; it is the other business here
    path = f"/v1/customers/{nina['id']}"
    for verb, route, body in (
        ("GET", path, None),
        ("PUT", path, {"email": "x@example.co.mz"}),
        ("DELETE", path, None),
        ("GET", f"{path}/collection-requests", None),
        ("GET", f"{path}/kyc", None),
    ):
        assert_error(mz.call(verb, route, body), 404, "customer_not_found", "No such customer.")
    named = {"collection_method_ids": [other], "amount": {"currency": "MZN", "value": 10}, "customer_id": nina["id"]}
    assert_error(
        mz.call("POST", "/v1/collection-requests", named),
        404,
        "customer_not_found",
        "No such customer.",
        {"field": "customer_id"},
    )
    assert all(c["id"] != nina["id"] for c in listed(mz, "demo", phone_number=nina_phone)["items"])
    assert all(c["id"] != nina["id"] for c in listed(mz, "demo", name="nina")["items"])
    assert assert_ok(mz.call("GET", path, token=token))["name"] == "Nina Chissano"  # untouched


def test_a_suspended_business_reads_its_directory_but_changes_nothing(mz: Collection) -> None:
    pending = mz.demo["onboarding_tokens"][0]  # a business not active: the gate refuses its writes
    for verb in ("PUT", "DELETE"):
        assert_error(
            mz.call(verb, "/v1/customers/usr_01JD9K1M2N3P4Q5R6S7T8V9W0X", {"email": "a@b.mz"}, token=pending),
            403,
            "forbidden",
            "The business account is pending: only an active account may do this.",
            {"account_status": "pending"},
        )
    assert mz.call("GET", "/v1/customers", token=pending).status_code == 200
