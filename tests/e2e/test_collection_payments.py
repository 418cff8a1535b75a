"""The collection surface's payment records through the local stack (docs/collection-payments.md):
a business's payer pays a collection request through its link (a failed attempt, then a
successful one), and the business lists and reads the payments it received, by Kulpay's
filters, page by page; bad filters are 400 validation_error naming the field; another business
sees none of them and reads none (404)."""

from __future__ import annotations

from typing import Any

import pytest

from mzpay.collection.payments import PAYMENTS
from tests.e2e.collection_client import Collection, assert_error, assert_invalid, assert_ok
from tests.e2e.test_collection_requests import Payer, payer
from tests.polling import eventually

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def business(stack: Any) -> dict[str, Any]:
    """A fresh business with a test M-Pesa method, one request paid after a failed attempt, and a
    second business with nothing."""
    mz = Collection(stack, "mz")
    account_id, token = mz.active_business("Loja dos Pagamentos", "payments-business")
    method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token))
    body = {
        "description": "Quota de Dezembro",
        "collection_method_ids": [method["id"]],
        "amount": {"currency": "MZN", "value": 250},
        "payer": payer(),
    }
    created = assert_ok(mz.call("POST", "/v1/collection-requests", body, token=token))
    link = created["invoice_metadata"]["payment_link"]
    browser = Payer()
    failed = browser.open(link).headers["Location"]
    browser.pay(failed, "fail")

    def full(request_id: str) -> dict[str, Any]:
        return assert_ok(mz.call("GET", f"/v1/collection-requests/{request_id}", token=token))["collection_request"]  # type: ignore[no-any-return]

    eventually(lambda: full(created["id"]), lambda r: r["payment_reconciliation"]["payment_status"] == "failed")
    paid = browser.open(link).headers["Location"]
    browser.pay(paid, "succeed")
    done = eventually(lambda: full(created["id"]), lambda r: r["status"] == "paid")
    assert done["status"] == "paid", done
    other = mz.active_business("Outra Loja dos Pagamentos", "payments-other")
    return {
        "mz": mz,
        "token": token,
        "account_id": account_id,
        "request_id": created["id"],
        "failed": failed.rsplit("/", 1)[1],
        "paid": paid.rsplit("/", 1)[1],
        "other_token": other[1],
    }


def page(business: dict[str, Any], token: str | None = None, **params: Any) -> dict[str, Any]:
    mz: Collection = business["mz"]
    return assert_ok(mz.call("GET", "/v1/payments", token=token or business["token"], params=params))


def ids(answer: dict[str, Any]) -> list[str]:
    return [item["id"] for item in answer["data"]]


def test_the_business_lists_what_it_received_newest_first(business: dict[str, Any]) -> None:
    answer = page(business)
    assert ids(answer) == [business["paid"], business["failed"]]
    assert (answer["object"], answer["has_more"], answer["next_page_token"], answer["error"]) == (
        "list",
        False,
        None,
        None,
    )
    paid, failed = answer["data"]
    assert paid == {
        "id": business["paid"],
        "collection_request_id": business["request_id"],
        "status": "succeeded",
        "channel": "mpesa",
        "provider_id": paid["provider_id"],
        "amount": "250.00",
        "currency": "MZN",
        "mode": "test",
        "reference": paid["reference"],
        "created_at": paid["created_at"],
        "paid_at": paid["paid_at"],
        "updated_at": paid["updated_at"],
    }
    assert paid["paid_at"] is not None and failed["status"] == "failed" and failed["paid_at"] is None
    read = assert_ok(business["mz"].call("GET", f"/v1/payments/{business['paid']}", token=business["token"]))
    assert read == {"object": "payment", "payment": paid, "error": None}


@pytest.mark.parametrize(
    ("params", "which"),
    [
        ({"status": "succeeded"}, ["paid"]),
        ({"status": "failed"}, ["failed"]),
        ({"channel": "mpesa"}, ["paid", "failed"]),
        ({"channel": "emola"}, []),
        ({"amount_min": "250", "amount_max": "250.00"}, ["paid", "failed"]),
        ({"amount_min": "250.01"}, []),
        ({"currency": "MZN", "mode": "test"}, ["paid", "failed"]),
        ({"mode": "live"}, []),
        ({"from": "2020-01-01T00:00:00Z", "to": "2099-01-01T00:00:00Z"}, ["paid", "failed"]),
        ({"to": "2020-01-01T00:00:00Z"}, []),
        ({"page_size": 1}, ["paid"]),
    ],
)
def test_each_filter_of_the_payment_service(business: dict[str, Any], params: dict[str, Any], which: list[str]) -> None:
    answer = page(business, collection_request_id=business["request_id"], **params)
    assert ids(answer) == [business[name] for name in which]


def test_pages_follow_their_token(business: dict[str, Any]) -> None:
    first = page(business, page_size=1)
    assert first["has_more"] is True
    second = page(business, page_size=1, page_token=first["next_page_token"])
    assert (ids(second), second["has_more"], second["next_page_token"]) == ([business["failed"]], False, None)
    mz: Collection = business["mz"]
    message = "not a page_token this list gave for these filters"
    for token, params in (
        (business["token"], {"page_size": 1, "status": "failed", "page_token": first["next_page_token"]}),
        (business["other_token"], {"page_size": 1, "page_token": first["next_page_token"]}),
    ):
        assert_invalid(
            mz.call("GET", "/v1/payments", token=token, params=params), ("page_token", "INVALID_FORMAT", message)
        )


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"colour": "red"}, "colour", "not a filter of this list"),
        ({"amount_gte": "1"}, "amount_gte", "not a filter of this list"),
        ({"method": "card"}, "method", "not a filter of this list"),
        ({"from": "yesterday"}, "from", "an ISO 8601 date and time, such as 2026-11-01T00:00:00Z"),
        ({"from": "2026-11-02", "to": "2026-11-01"}, "from", "before to"),
        ({"amount_min": "9", "amount_max": "5"}, "amount_min", "at most amount_max"),
        ({"mode": "sandbox"}, "mode", "test or live"),
        ({"page_size": "0"}, "page_size", "an integer from 1 to 100"),
        ({"channel": "pigeon"}, "channel", "one of " + ", ".join(sorted(PAYMENTS.channels))),
    ],
)
def test_a_bad_filter_is_refused_naming_it(
    business: dict[str, Any], params: dict[str, Any], field: str, message: str
) -> None:
    answer = business["mz"].call("GET", "/v1/payments", token=business["token"], params=params)
    assert_invalid(answer, (field, "INVALID_FORMAT", message))


def test_another_business_sees_and_reads_none_of_it(business: dict[str, Any]) -> None:
    mz: Collection = business["mz"]
    assert page(business, token=business["other_token"])["data"] == []
    for payment_id in (business["paid"], business["failed"], "01JD8Z5M7B2C3D4E5F6G7H8J9K", "not-an-id"):
        answer = mz.call("GET", f"/v1/payments/{payment_id}", token=business["other_token"])
        assert_error(answer, 404, "not_found", "No such payment.")
    assert ids(page(business)) == [business["paid"], business["failed"]]  # its own, unchanged
