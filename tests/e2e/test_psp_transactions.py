"""PSP transactions over HTTP through the local stack (issue 16, item 3): recording payments,
payouts and refunds, duplicate_originator_reference (raced), not_refundable (raced on the
remainder), the account's ceilings, finding by originator_reference, listing, the webhook, and
tenancy (another account's or mode's transaction is never seen)."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, resource_events, set_limits, wallet
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem_for

pytestmark = pytest.mark.e2e

NIB = "0003 0108 0016 3671 0237 1"


def reference() -> str:
    return f"PSP-{uuid.uuid4().hex[:16]}"


def transaction(kind: str, ref: str, amount: str, **rest: Any) -> dict[str, Any]:
    """The body recording a PSP transaction of `kind` (payment, refund, payout) of `amount` MZN."""
    return {"type": kind, "originator_reference": ref, "money": {"amount": amount, "currency": "MZN"}, **rest}


def payment(ref: str, amount: str = "250.00", **extra: Any) -> dict[str, Any]:
    return transaction("payment", ref, amount, source=wallet("+258841234567"), **extra)


def refund(ref: str, original: str, amount: str) -> dict[str, Any]:
    return transaction("refund", ref, amount, original_reference=original)


def record(shop: Merchant, body: dict[str, Any], **kwargs: Any) -> requests.Response:
    return shop.call("POST", "/v1/psp/transactions", body, **kwargs)


@pytest.fixture(scope="module")
def psp(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def test_a_payment_is_recorded_and_found_by_its_reference(stack: RunningStack, psp: Merchant) -> None:
    ref = reference()
    answer = record(psp, payment(ref, occurred_at="2026-11-25T08:30:00Z", metadata={"till": "7"}))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    transaction_id = body["transaction_id"]
    assert body == {
        "transaction_id": transaction_id,
        "type": "payment",
        "status": "recorded",
        "originator_reference": ref,
        "money": {"amount": "250.00", "currency": "MZN"},
        "source": wallet("+258841234567"),
        "refunded": {"amount": "0.00", "currency": "MZN"},
        "occurred_at": "2026-11-25T08:30:00Z",
        "description": None,
        "metadata": {"till": "7"},
        "created_at": body["created_at"],
    }
    found = psp.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None)
    assert found.status_code == 200
    assert found.json() == {"data": [body], "has_more": False, "next_page_token": None}
    read = psp.call("GET", f"/v1/psp/transactions/{transaction_id}", idempotency_key=None)
    assert read.status_code == 200 and read.json() == body
    assert [e["type"]["S"] for e in resource_events(stack, transaction_id)] == ["psp_transaction.recorded"]
    none = psp.call("GET", "/v1/psp/transactions?originator_reference=NEVER-SENT", idempotency_key=None)
    assert none.json() == {"data": [], "has_more": False, "next_page_token": None}


def test_a_payout_masks_its_bank_account(psp: Merchant) -> None:
    ref = reference()
    bank = {"type": "bank_transfer", "bank_transfer": {"name": "Ana Machava", "account": NIB}}
    body = transaction("payout", ref, "1200.00", destination=bank, description="Supplier")
    answer = record(psp, body)
    assert answer.status_code == 201, answer.text
    assert answer.json()["destination"] == {
        "type": "bank_transfer",
        "bank_transfer": {"name": "Ana Machava", "account": "*****************2371"},
    }
    assert "refunded" not in answer.json() and answer.json()["description"] == "Supplier"


def test_a_second_submission_of_a_reference_is_a_conflict_and_the_idempotent_retry_replays(psp: Merchant) -> None:
    ref = reference()
    key = str(uuid.uuid4())
    first = record(psp, payment(ref), idempotency_key=key)
    assert first.status_code == 201
    replay = record(psp, payment(ref), idempotency_key=key)
    assert replay.status_code == 201 and replay.json() == first.json()
    assert replay.headers["Idempotent-Replayed"] == "true"
    again = record(psp, payment(ref, amount="9.00"))
    assert again.status_code == 409
    assert again.json() == problem_for(
        409, "duplicate_originator_reference", f"originator_reference {ref} was already submitted."
    )
    listed = psp.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None).json()
    assert [t["money"]["amount"] for t in listed["data"]] == ["250.00"]


def test_racing_submissions_of_one_reference_record_it_once(psp: Merchant) -> None:
    ref = reference()
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda i: record(psp, payment(ref, amount=f"{10 + i}.00")), range(6)))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201, 409, 409, 409, 409, 409], [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"duplicate_originator_reference"}
    winner = next(a.json() for a in answers if a.status_code == 201)
    listed = psp.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None).json()
    assert listed["data"] == [winner]


def test_refunds_stay_within_the_remainder(psp: Merchant) -> None:
    original = reference()
    assert record(psp, payment(original, amount="100.00")).status_code == 201
    first = record(psp, refund(reference(), original, "60.00"))
    assert first.status_code == 201, first.text
    assert first.json()["original_reference"] == original
    above = record(psp, refund(reference(), original, "40.01"))
    assert above.json() == problem_for(422, "not_refundable", f"{original} has 40.00 MZN left to refund.")
    assert record(psp, refund(reference(), original, "40.00")).status_code == 201
    read = psp.call("GET", f"/v1/psp/transactions?originator_reference={original}", idempotency_key=None).json()
    assert read["data"][0]["refunded"] == {"amount": "100.00", "currency": "MZN"}
    nothing_left = record(psp, refund(reference(), original, "0.01"))
    assert nothing_left.status_code == 422 and nothing_left.json()["code"] == "not_refundable"


def test_racing_refunds_never_pass_the_amount(psp: Merchant) -> None:
    original = reference()
    assert record(psp, payment(original, amount="100.00")).status_code == 201
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: record(psp, refund(reference(), original, "30.00")), range(5)))
    assert sorted(a.status_code for a in answers) == [201, 201, 201, 422, 422], [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 422} == {"not_refundable"}
    read = psp.call("GET", f"/v1/psp/transactions?originator_reference={original}", idempotency_key=None).json()
    assert read["data"][0]["refunded"] == {"amount": "90.00", "currency": "MZN"}


def test_only_payments_in_their_currency_are_refundable(psp: Merchant) -> None:
    payout_ref = reference()
    payout = transaction("payout", payout_ref, "10.00", destination=wallet("+258841234567"))
    assert record(psp, payout).status_code == 201
    answer = record(psp, refund(reference(), payout_ref, "1.00"))
    assert answer.json() == problem_for(422, "not_refundable", f"{payout_ref} is a payout; only payments are refunded.")
    paid = reference()
    assert record(psp, payment(paid, amount="10.00")).status_code == 201
    in_usd = {**refund(reference(), paid, "1.00"), "money": {"amount": "1.00", "currency": "USD"}}
    assert record(psp, in_usd).json() == problem_for(422, "not_refundable", f"{paid} was in MZN, not USD.")
    unknown = record(psp, refund(reference(), "NO-SUCH-REF", "1.00"))
    assert unknown.json() == problem_for(404, "not_found", "No PSP transaction has originator_reference NO-SUCH-REF.")


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        (
            {"type": "payment", "originator_reference": "A-1", "money": {"amount": "1.00", "currency": "MZN"}},
            400,
            "required",
            "source",
        ),
        ({**payment("A-2"), "destination": wallet("+258841234567")}, 400, "invalid_value", "destination"),
        ({**payment("A-3"), "type": "transfer"}, 400, "invalid_value", "type"),
        ({**payment("bad ref")}, 400, "invalid_value", "originator_reference"),
        ({**payment("R" * 65)}, 400, "invalid_value", "originator_reference"),
        ({**payment("A-4", amount="0.00")}, 400, "invalid_amount", "money.amount"),
        ({**payment("A-5", amount="1.001")}, 400, "invalid_amount", "money.amount"),
        ({**payment("A-6"), "occurred_at": "2026-11-25T08:30:00"}, 400, "invalid_value", "occurred_at"),
        ({**payment("A-7"), "occurred_at": "2999-01-01T00:00:00Z"}, 400, "invalid_value", "occurred_at"),
        ({**payment("A-8"), "description": "x" * 141}, 400, "invalid_value", "description"),
        ({**payment("A-9"), "source": wallet("+25884123")}, 400, "invalid_phone", "source.mobile_wallet.phone_number"),
    ],
)
def test_bad_bodies_are_refused_and_nothing_is_recorded(
    psp: Merchant, body: dict[str, Any], status: int, code: str, field: str
) -> None:
    answer = record(psp, body)
    assert answer.status_code == status, answer.text
    assert field in [error["field"] for error in answer.json()["errors"]]
    assert code in [error["code"] for error in answer.json()["errors"]]
    ref = body["originator_reference"]
    if len(ref) <= 64 and " " not in ref:
        listed = psp.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None)
        assert listed.json()["data"] == []


def test_without_an_idempotency_key_nothing_is_recorded(psp: Merchant) -> None:
    ref = reference()
    answer = record(psp, payment(ref), idempotency_key=None)
    assert answer.status_code == 400 and answer.json()["code"] == "idempotency_key_required"
    listed = psp.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None)
    assert listed.json()["data"] == []


def test_the_accounts_ceilings_hold(stack: RunningStack) -> None:
    shop = Merchant(stack)
    set_limits(stack, shop, currencies=["MZN"], per_transaction={"MZN": "500.00"}, daily={"MZN": "600.00"})
    above = record(shop, payment(reference(), amount="500.01"))
    assert above.status_code == 422
    assert above.json()["code"] == "limit_exceeded" and above.json()["rule"] == "per_transaction"
    usd = record(shop, {**payment(reference()), "money": {"amount": "5.00", "currency": "USD"}})
    assert usd.json()["rule"] == "key_currency"
    assert record(shop, payment(reference(), amount="400.00")).status_code == 201
    daily = record(shop, payment(reference(), amount="200.01"))
    assert daily.status_code == 422 and daily.json()["rule"] == "daily", daily.text
    assert record(shop, payment(reference(), amount="200.00")).status_code == 201
    # a payout is money out: it does not raise the daily total of money in
    payout = transaction("payout", reference(), "300.00", destination=wallet("+258841234567"))
    assert record(shop, payout).status_code == 201


def test_the_list_pages_newest_first(stack: RunningStack) -> None:
    shop = Merchant(stack)
    refs = [reference() for _ in range(5)]
    for ref in refs:
        assert record(shop, payment(ref, amount="1.00")).status_code == 201
    first = shop.call("GET", "/v1/psp/transactions?limit=3", idempotency_key=None).json()
    assert [t["originator_reference"] for t in first["data"]] == refs[::-1][:3] and first["has_more"] is True
    rest = shop.call(
        "GET", f"/v1/psp/transactions?limit=3&page_token={first['next_page_token']}", idempotency_key=None
    ).json()
    assert [t["originator_reference"] for t in rest["data"]] == refs[::-1][3:]
    assert rest["has_more"] is False and rest["next_page_token"] is None
    for query, field in (("limit=0", "limit"), ("limit=x", "limit"), ("page_token=abc", "page_token")):
        bad = shop.call("GET", f"/v1/psp/transactions?{query}", idempotency_key=None)
        assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == field


def test_the_webhook_carries_the_recorded_transaction(psp: Merchant, receiver: Receiver) -> None:
    url = receiver.endpoint()
    answer = record(psp, payment(reference(), callback_url=url))
    assert answer.status_code == 201
    (arrival,) = receiver.wait_for(url, 1)
    envelope = json.loads(arrival.body)
    assert envelope["type"] == "psp_transaction.recorded"
    assert envelope["resource"] == "psp_transaction" and envelope["resource_id"] == answer.json()["transaction_id"]
    assert envelope["data"]["object"] == answer.json()


def test_another_accounts_or_modes_transactions_are_never_seen(stack: RunningStack, psp: Merchant) -> None:
    ref = reference()
    mine = record(psp, payment(ref)).json()
    other = Merchant(stack)
    assert (
        other.call("GET", f"/v1/psp/transactions?originator_reference={ref}", idempotency_key=None).json()["data"] == []
    )
    assert other.call(
        "GET", f"/v1/psp/transactions/{mine['transaction_id']}", idempotency_key=None
    ).json() == problem_for(404, "not_found", "No such PSP transaction.")
    assert record(other, refund(reference(), ref, "1.00")).status_code == 404
    # its own reference space: the same reference is free for another account
    assert record(other, payment(ref)).status_code == 201
    live = psp.call("GET", f"/v1/psp/transactions/{mine['transaction_id']}", key=psp.live_key, idempotency_key=None)
    assert live.status_code == 401 and live.json()["code"] == "wrong_environment"
    assert (
        psp.call(
            "GET", f"/v1/psp/transactions?originator_reference={ref}", key=psp.live_key, idempotency_key=None
        ).json()["data"]
        == []
    )


def test_the_list_filters_by_type_network_amount_and_metadata(stack: RunningStack) -> None:
    shop = Merchant(stack)
    paid, small, out = reference(), reference(), reference()
    bodies = [
        payment(paid, amount="300.00", metadata={"till": "9"}),
        payment(small, amount="2.00"),
        transaction("payout", out, "50.00", destination=wallet("+258861234567", "emola")),
        refund(reference(), paid, "100.00"),
    ]
    made = [record(shop, body).json() for body in bodies]
    assert all("transaction_id" in body for body in made), made

    def listed(query: str) -> list[str]:
        answer = shop.call("GET", f"/v1/psp/transactions?{query}", idempotency_key=None)
        assert answer.status_code == 200, answer.text
        return [t["originator_reference"] for t in answer.json()["data"]]

    assert listed("type=payment") == [small, paid]
    assert listed("type=refund") == [bodies[3]["originator_reference"]]
    assert listed("type=payment&amount_gte=100") == [paid]
    assert listed("network=emola") == [out]
    assert listed("metadata[till]=9") == [paid]
    assert listed("status=recorded&limit=2") == [bodies[3]["originator_reference"], out]
    everything = shop.call("GET", "/v1/psp/transactions", idempotency_key=None).json()["data"]
    assert everything[-1] == shop.call("GET", f"/v1/psp/transactions/{made[0]['transaction_id']}").json()
    assert everything[-1]["refunded"] == {"amount": "100.00", "currency": "MZN"}  # the list reads it as it is now
    for query, field in (("type=card", "type"), ("method=payment", "method"), ("page_size=5", "page_size")):
        bad = shop.call("GET", f"/v1/psp/transactions?{query}", idempotency_key=None)
        assert (bad.status_code, bad.json()["code"], bad.json()["errors"][0]["field"]) == (
            400,
            "invalid_request",
            field,
        )
