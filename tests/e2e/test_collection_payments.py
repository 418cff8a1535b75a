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


# ---------------------------------------------------------------- recording a payment received outside
PAID_AT = "2026-11-03T08:40:00Z"


@pytest.fixture(scope="module")
def records(stack: Any) -> dict[str, Any]:
    """A fresh business recording payments (its lists apart from the business above), its method,
    and a second business."""
    mz = Collection(stack, "mz")
    token = mz.active_business("Loja dos Registos", "records-business")[1]
    method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token))
    other = mz.active_business("Outra Loja dos Registos", "records-other")[1]
    return {"mz": mz, "token": token, "method": method["id"], "other_token": other}


def issue(records: dict[str, Any], value: float = 250, **extra: Any) -> str:
    body = {
        "collection_method_ids": [records["method"]],
        "amount": {"currency": "MZN", "value": value},
        "payer": payer(),
        **extra,
    }
    return str(assert_ok(records["mz"].call("POST", "/v1/collection-requests", body, token=records["token"]))["id"])


def received(request_id: str, value: float = 250, **extra: Any) -> dict[str, Any]:
    return {
        "collection_request_id": request_id,
        "amount": {"currency": "MZN", "value": value},
        "channel": "bank_transfer",
        "reference": "BCI-TRF-0042",
        "paid_at": PAID_AT,
        **extra,
    }


def post(records: dict[str, Any], body: Any, key: str | None, token: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return records["mz"].call("POST", "/v1/payments", body, token=token or records["token"], headers=headers)


def request_of(records: dict[str, Any], request_id: str) -> dict[str, Any]:
    answer = assert_ok(records["mz"].call("GET", f"/v1/collection-requests/{request_id}", token=records["token"]))
    return answer["collection_request"]  # type: ignore[no-any-return]


def test_a_payment_received_by_bank_transfer_pays_the_request_once_per_key(records: dict[str, Any]) -> None:
    request_id = issue(records)
    key = f"transfer-{request_id}"
    body = received(request_id, description="Transferência do BCI", metadata={"erp": "RC-1"})
    answer = post(records, body, key)
    recorded = assert_ok(answer)
    payment = recorded["payment"]
    assert recorded == {
        "object": "payment",
        "payment": {
            "id": payment["id"],
            "collection_request_id": request_id,
            "status": "succeeded",
            "channel": "bank_transfer",
            "provider_id": None,
            "amount": "250.00",
            "currency": "MZN",
            "mode": "test",
            "reference": "BCI-TRF-0042",
            "created_at": payment["created_at"],
            "paid_at": PAID_AT,
            "updated_at": payment["created_at"],
            "description": "Transferência do BCI",
            "metadata": {"erp": "RC-1"},
        },
        "error": None,
    }
    full = request_of(records, request_id)
    assert (full["status"], full["bill_info"]["status"]) == ("paid", "paid")
    assert full["payment_reconciliation"] | {"date_reconciliation": None} == {
        "payment_status": "paid",
        "payment_type": "manual:bank_transfer",
        "gateway_transaction_id": payment["id"],
        "reconciliation_status": "matched",
        "date_payment": PAID_AT,
        "date_reconciliation": None,
    }
    assert (full["amount_paid"], full["amount_due"]) == (
        {"currency": "MZN", "value": 250.0},
        {"currency": "MZN", "value": 0.0},
    )
    # the same key and body: the same answer, nothing more written; another body: refused
    again = post(records, body, key)
    assert (again.status_code, again.text, again.headers.get("Idempotent-Replayed")) == (200, answer.text, "true")
    assert_error(
        post(records, received(request_id, 100), key),
        409,
        "idempotency_key_reused",
        "This Idempotency-Key was used for another request (method, path or body).",
    )
    # listed and read with the business's other payments
    mz: Collection = records["mz"]
    listed = assert_ok(
        mz.call("GET", "/v1/payments", token=records["token"], params={"collection_request_id": request_id})
    )
    assert listed["data"] == [payment]
    by_channel = assert_ok(mz.call("GET", "/v1/payments", token=records["token"], params={"channel": "bank_transfer"}))
    assert payment["id"] in ids(by_channel)
    assert assert_ok(mz.call("GET", f"/v1/payments/{payment['id']}", token=records["token"]))["payment"] == payment
    # a paid request takes nothing more
    assert_error(
        post(records, received(request_id, 1, channel="cash"), f"more-{request_id}"),
        409,
        "invoice_closed",
        "The collection request is paid: nothing is due.",
        {"request_status": "paid"},
    )


def test_instalments_only_where_the_request_allows_them_and_never_more_than_is_due(records: dict[str, Any]) -> None:
    single = issue(records)
    assert_error(
        post(records, received(single, 100), f"part-{single}"),
        422,
        "amount_out_of_range",
        "The collection request takes one payment of what is due, not a part of it.",
        {"amount_due": {"currency": "MZN", "value": 250.0}, "allow_installments": False},
    )
    assert "amount_paid" not in request_of(records, single)  # as before: no payment recorded
    parts = issue(records, 300, allow_installments=True)
    first = assert_ok(post(records, received(parts, 100, channel="cash", reference="REC-7"), f"cash-{parts}"))
    assert first["payment"]["channel"] == "cash"
    full = request_of(records, parts)
    assert (full["status"], full["allow_installments"], full["amount_due"]["value"]) == ("partially_paid", True, 200.0)
    assert_error(
        post(records, received(parts, 200.01), f"over-{parts}"),
        422,
        "amount_out_of_range",
        "The payment is more than is due on the collection request.",
        {"amount_due": {"currency": "MZN", "value": 200.0}},
    )
    last = received(parts, 200, channel="simo_reference", reference="ERV-90012")
    assert_ok(post(records, last, f"simo-{parts}"))
    assert request_of(records, parts)["status"] == "paid"
    mz: Collection = records["mz"]
    listed = assert_ok(mz.call("GET", "/v1/payments", token=records["token"], params={"collection_request_id": parts}))
    assert [item["channel"] for item in listed["data"]] == ["simo_reference", "cash"]


def test_a_body_that_breaks_a_rule_is_refused_naming_the_field(records: dict[str, Any]) -> None:
    request_id = issue(records)
    assert_error(
        post(records, received(request_id), None),
        400,
        "idempotency_key_required",
        "This request needs an Idempotency-Key header.",
    )
    for body, field in (
        (received(request_id, colour="red"), "colour"),
        (received(request_id, reference="R" * 65), "reference"),
        (received(request_id, description="d" * 201), "description"),
        (received(request_id, channel="c" * 65), "channel"),
        ({k: v for k, v in received(request_id).items() if k != "paid_at"}, "paid_at"),
    ):
        answer = post(records, body, f"bad-{field}-{request_id}")
        assert answer.status_code == 400, answer.text
        assert field in [error["field"] for error in answer.json()["metadata"]["errors"]], answer.text
    for body, refused in (
        (received(request_id, channel="pigeon"), ("channel", "one of bank_transfer, cash, simo_reference, other")),
        (received(request_id, paid_at="2999-01-01T00:00:00Z"), ("paid_at", "not in the future")),
        (received(request_id) | {"amount": {"currency": "USD", "value": 250}}, ("amount.currency", "")),
    ):
        answer = post(records, body, f"rule-{refused[0]}-{request_id}")
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.text
        (error,) = answer.json()["metadata"]["errors"]
        assert error["field"] == refused[0] and refused[1] in error["message"], answer.text
    # a card number in the free text: the screen every request passes
    answer = post(records, received(request_id, reference="4111111111111111"), f"card-{request_id}")
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.text
    assert [error["field"] for error in answer.json()["metadata"]["errors"]] == ["reference"]
    assert request_of(records, request_id)["status"] == "pending" and "amount_paid" not in request_of(
        records, request_id
    )


def test_another_businesss_request_is_not_found_and_its_payments_unseen(records: dict[str, Any]) -> None:
    request_id = issue(records)
    for target in (request_id, "cr_01JD9H1J2K3M4N5P6Q7R8S9T0V"):
        assert_error(
            post(records, received(target), f"theirs-{target}", token=records["other_token"]),
            404,
            "not_found",
            "No such collection request.",
        )
    mine = assert_ok(post(records, received(request_id), f"mine-{request_id}"))["payment"]["id"]
    mz: Collection = records["mz"]
    assert_error(
        mz.call("GET", f"/v1/payments/{mine}", token=records["other_token"]), 404, "not_found", "No such payment."
    )
    assert mine not in ids(assert_ok(mz.call("GET", "/v1/payments", token=records["other_token"])))
