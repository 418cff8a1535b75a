"""Customers' payment methods through the local stack: details checked against the partner's form,
cards kept as a token (a card number or CVV refused, never stored or echoed), reads masked, the
active <-> inactive state machine, and every tenancy refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok

pytestmark = pytest.mark.e2e
PAN = "4242424242424242"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


@pytest.fixture(scope="module")
def customer(mz: Collection) -> str:
    answer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Carla Mondlane", "document_type": "bi"}))
    return str(answer["id"])


def path(customer: str, suffix: str = "") -> str:
    return f"/v1/customers/{customer}/payment_methods{suffix}"


def added_wallet(mz: Collection, customer: str, partner_id: str, phone: str) -> Any:
    """The answer to adding a mobile-wallet method of `partner_id` to the customer (a 200)."""
    body = {"partner_id": partner_id, "type": "mobile_wallet", "details": {"phone_number": phone}}
    return assert_ok(mz.call("POST", path(customer), body))


def validation(*errors: tuple[str, str, str]) -> dict[str, Any]:
    return {"errors": [{"field": f, "code": c, "message": m} for f, c, m in errors]}


def test_a_wallet_method_is_added_read_listed_and_switched(mz: Collection, customer: str) -> None:
    added = added_wallet(mz, customer, "ptn_mpesa", " +258841234567 ")
    method = added["payment_method"]
    assert added["object"] == "payment_method"
    assert method == {
        "object": "payment_method",
        "id": method["id"],
        "account_id": customer,
        "type": "mobile_wallet",
        "partner_id": "ptn_mpesa",
        "details": {"phone_number": "+258841234567"},
        "mode": "live",
        "status": "active",
        "created_at": method["created_at"],
        "updated_at": method["updated_at"],
    }
    assert method["id"].startswith("pm_")
    read = assert_ok(mz.call("GET", path(customer, f"/{method['id']}")))
    assert read == {"object": "payment_method", "payment_method": method}
    listed = assert_ok(mz.call("GET", path(customer)))
    assert listed["object"] == "list" and method in listed["data"]
    off = assert_ok(mz.call("POST", path(customer, f"/{method['id']}/status"), {"status": "inactive"}))
    assert off["payment_method"]["status"] == "inactive"
    again = assert_ok(mz.call("POST", path(customer, f"/{method['id']}/status"), {"status": "inactive"}))
    assert again["payment_method"]["updated_at"] == off["payment_method"]["updated_at"]  # nothing changed
    on = assert_ok(mz.call("POST", path(customer, f"/{method['id']}/status"), {"status": "active"}))
    assert on["payment_method"]["status"] == "active"
    assert_error(
        mz.call("POST", path(customer, f"/{method['id']}/status"), {"status": "blocked"}),
        400,
        "validation_error",
        "The request has problems: status.",
        validation(("status", "INVALID_FORMAT", "active or inactive")),
    )


@pytest.mark.parametrize(
    ("body", "code", "errors"),
    [
        (
            {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {"phone_number": "+258861234567"}},
            "validation_error",
            [("details.phone_number", "INVALID_FORMAT", "does not match ^\\+258(84|85)[0-9]{7}$")],
        ),
        (
            {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {}},
            "missing_field",
            [("details.phone_number", "REQUIRED", "Número M-Pesa is required")],
        ),
        (
            {"partner_id": "ptn_bci", "type": "bank_account", "details": {"nib": "123", "account_holder_name": "C"}},
            "validation_error",
            [("details.nib", "INVALID_FORMAT", "21 to 21 characters")],
        ),
        (
            {"partner_id": "ptn_bci", "type": "card", "details": {}},
            "validation_error",
            [("partner_id", "NOT_FOUND", "not a partner that takes card")],
        ),
        (
            {"partner_id": "ptn_mpesa", "type": "crypto", "details": {}},
            "validation_error",
            [("type", "INVALID_FORMAT", "one of mobile_wallet, bank_account, card")],
        ),
        (
            {
                "partner_id": "ptn_mpesa",
                "type": "mobile_wallet",
                "details": {"phone_number": "+258841234567", "pin": "1"},
            },
            "validation_error",
            [("details.pin", "INVALID_FORMAT", "not a field of this partner's form")],
        ),
    ],
)
def test_details_that_do_not_fill_the_partners_form_are_refused(
    mz: Collection, customer: str, body: dict[str, Any], code: str, errors: list[tuple[str, str, str]]
) -> None:
    before = assert_ok(mz.call("GET", path(customer)))["data"]
    names = ", ".join(e[0] for e in errors)
    assert_error(
        mz.call("POST", path(customer), body), 400, code, f"The request has problems: {names}.", validation(*errors)
    )
    assert assert_ok(mz.call("GET", path(customer)))["data"] == before  # nothing stored


CARD = {"card_token": "tok_test_visa", "last4": "4242", "exp_month": "12", "exp_year": "2030", "brand": "visa"}


def test_a_card_is_kept_as_a_token_and_a_card_number_is_never_taken(mz: Collection, customer: str) -> None:
    added = assert_ok(
        mz.call("POST", path(customer), {"partner_id": "ptn_card_schemes", "type": "card", "details": CARD})
    )
    details = added["payment_method"]["details"]
    assert details == {
        "card_token": "tok_****visa",
        "last4": "4242",
        "exp_month": "12",
        "exp_year": "2030",
        "brand": "visa",
    }
    raw_message = "a card number or security code is never accepted: send the acquirer's card token"
    for extra, field in (({"card_number": PAN}, "card_number"), ({"cvv": "123"}, "cvv")):
        answer = mz.call(
            "POST", path(customer), {"partner_id": "ptn_card_schemes", "type": "card", "details": {**CARD, **extra}}
        )
        assert_error(
            answer,
            400,
            "validation_error",
            f"The request has problems: details.{field}.",
            validation((f"details.{field}", "INVALID_FORMAT", raw_message)),
        )
        assert PAN not in answer.text
    hidden = mz.call(
        "POST",
        path(customer),
        {"partner_id": "ptn_card_schemes", "type": "card", "details": {**CARD, "last4": f"{PAN[:8]} {PAN[8:]}"}},
    )
    assert_error(
        hidden,
        400,
        "validation_error",
        "The request has problems: details.last4.",
        validation(("details.last4", "INVALID_FORMAT", raw_message)),
    )
    assert PAN[:8] not in hidden.text
    table = mz.stack.state["resources"]["mz"]["CollectionTable"]
    stored = json.dumps(mz.stack.aws("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"])
    assert PAN not in stored and f"{PAN[:8]} {PAN[8:]}" not in stored and '"123"' not in stored


def test_another_accounts_customer_and_another_customers_method_are_404(mz: Collection, customer: str) -> None:
    method = added_wallet(mz, customer, "ptn_emola", "+258861234567")["payment_method"]
    other = mz.active_business()[1]  # an active business: its writes pass the gate, reach nothing of ours
    for method_name, route, body in (
        ("POST", path(customer), {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {}}),
        ("GET", path(customer), None),
        ("GET", path(customer, f"/{method['id']}"), None),
        ("POST", path(customer, f"/{method['id']}/status"), {"status": "inactive"}),
    ):
        assert_error(mz.call(method_name, route, body, token=other), 404, "customer_not_found", "No such customer.")
    assert_error(mz.call("GET", path("usr_01ARZ3NDEKTSV4RRFFQ69G5FAV")), 404, "customer_not_found", "No such customer.")
    second = assert_ok(mz.call("POST", "/v1/customers", {"name": "Outro Cliente", "document_type": "bi"}))["id"]
    for method_name, route, body in (
        ("GET", path(second, f"/{method['id']}"), None),
        ("POST", path(second, f"/{method['id']}/status"), {"status": "inactive"}),
    ):
        assert_error(mz.call(method_name, route, body), 404, "not_found", "No such payment method.")
    assert assert_ok(mz.call("GET", path(customer, f"/{method['id']}")))["payment_method"]["status"] == "active"
