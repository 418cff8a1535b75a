"""Payout batches over HTTP through the local stack: an upload with refused lines and their codes,
close, release below the threshold and the payouts settling to paid through the queue with their
webhooks, release above it and an operator's approval or rejection, the states that refuse a
release, the debit account's daily ceiling, tenancy, and the races of every conditional write."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.e2e.test_payouts import funded, management, operator, set_payout_limits, settled, stack_secret
from tests.e2e.test_refunds import balance
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem_for

pytestmark = pytest.mark.e2e


def line(amount: str = "100.00", phone: str = "+258840000000", **extra: Any) -> dict[str, Any]:
    return {
        "payout_id": str(ULID()),
        "money": {"amount": amount, "currency": "MZN"},
        "destination": wallet(phone),
        **extra,
    }


def upload(shop: Merchant, lines: list[Any], **extra: Any) -> requests.Response:
    return shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": lines, **extra})


def closed(shop: Merchant, lines: list[Any], **extra: Any) -> dict[str, Any]:
    made = upload(shop, lines, **extra)
    assert made.status_code == 200, made.text
    batch_id = made.json()["batch_id"]
    answer = shop.call("POST", f"/v1/payout-batches/{batch_id}/close")
    assert (answer.status_code, answer.json()["status"]) == (200, "closed"), answer.text
    return answer.json()  # type: ignore[no-any-return]


def sent(shop: Merchant, batch_id: str, timeout: float = 30) -> dict[str, Any]:
    """The batch once sending is over (it runs from the settlement queue)."""
    deadline = time.monotonic() + timeout
    while True:
        body = shop.call("GET", f"/v1/payout-batches/{batch_id}").json()
        if body["status"] != "released" or time.monotonic() > deadline:
            return body  # type: ignore[no-any-return]
        time.sleep(0.2)


def refusal(number: int, payout_id: Any, code: str, message: str, *errors: tuple[str, str, str], rule: Any = None):  # type: ignore[no-untyped-def]
    return {
        "line": number,
        "payout_id": payout_id,
        "code": code,
        "message": message,
        "rule": rule,
        "errors": [{"field": f, "code": c, "message": m} for f, c, m in errors],
    }


def test_a_batch_is_judged_line_by_line_closed_released_and_each_payout_settles(
    stack: RunningStack, receiver: Receiver
) -> None:
    shop = funded(stack, "1000.00")
    secret = stack_secret(stack, shop)
    url = receiver.endpoint(200)
    good = [line("100.00", callback_url=url), line("250.00", callback_url=url), line("50.00", callback_url=url)]
    bad_phone = line("10.00", "+25884")
    too_low = line("0.50")
    usd = {**line("10.00"), "money": {"amount": "10.00", "currency": "USD"}}
    twice = {**good[1]}
    lines = [good[0], bad_phone, good[1], too_low, "not an object", usd, twice, good[2]]
    made = upload(shop, lines, reference="Salaries 2026-11", callback_url=url)
    body = made.json()
    assert made.status_code == 200, made.text
    report = body.pop("report")
    assert body == {
        "object": "payout_batch",
        "batch_id": body["batch_id"],
        "reference": "Salaries 2026-11",
        "status": "open",
        "mode": "test",
        "total": {"amount": "400.00", "currency": "MZN"},
        "lines": 8,
        "accepted": 3,
        "refused": 5,
        "sent": None,
        "failed": None,
        "failure_message": None,
        "created_at": body["created_at"],
        "closed_at": None,
        "released_at": None,
        "sent_at": None,
        "payouts": None,
    }
    assert [(r["line"], r["payout_id"], r["code"], r["rule"]) for r in report] == [
        (2, bad_phone["payout_id"], "invalid_phone", None),
        (4, too_low["payout_id"], "amount_too_low", None),
        (5, None, "invalid_request", None),
        (6, usd["payout_id"], "invalid_currency", None),
        (7, twice["payout_id"], "payout_id_reused", None),
    ]
    assert report[1] == refusal(
        4,
        too_low["payout_id"],
        "amount_too_low",
        "money.amount: the minimum for mobile_wallet payouts in MZN is 1.00.",
        ("money.amount", "amount_too_low", "the minimum for mobile_wallet payouts in MZN is 1.00"),
    )
    assert report[3] == refusal(
        6, usd["payout_id"], "invalid_currency", "money.currency: this batch pays out MZN, not USD."
    )
    batch_id = body["batch_id"]
    # nothing was held or made by the upload
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1000.00", "held": "0.00", "fees": "0.00"}]
    assert shop.call("POST", f"/v1/payout-batches/{batch_id}/close").json()["status"] == "closed"
    released = shop.call("POST", f"/v1/payout-batches/{batch_id}/release")
    assert released.status_code == 200, released.text
    assert released.json()["status"] == "released"
    final = sent(shop, batch_id)
    assert (final["status"], final["sent"], final["failed"], final["accepted"]) == ("sent", 3, 0, 3)
    assert [(p["line"], p["payout_id"], p["refusal"]) for p in final["payouts"]] == [
        (1, good[0]["payout_id"], None),
        (3, good[1]["payout_id"], None),
        (8, good[2]["payout_id"], None),
    ]
    assert final["report"] == report
    paid = [settled(shop, p["provider_payout_id"]) for p in final["payouts"]]
    assert [(p["status"], p["payout_id"], p["money"]["amount"]) for p in paid] == [
        ("paid", good[0]["payout_id"], "100.00"),
        ("paid", good[1]["payout_id"], "250.00"),
        ("paid", good[2]["payout_id"], "50.00"),
    ]
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "600.00", "held": "0.00", "fees": "0.00"}]
    pid = final["payouts"][0]["provider_payout_id"]
    assert events_of(stack, pid) == ["payout.created", "payout.in_transit", "payout.submitted", "payout.paid"]
    assert events_of(stack, batch_id) == [
        "payout_batch.created",
        "payout_batch.closed",
        "payout_batch.released",
        "payout_batch.sent",
    ]
    arrivals = receiver.wait_for(url, 4)  # three payout.paid and payout_batch.sent
    for arrival in arrivals:
        verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    kinds = sorted((json.loads(a.body)["type"], json.loads(a.body)["resource_id"]) for a in arrivals)
    assert kinds == sorted(
        [("payout.paid", p["provider_payout_id"]) for p in final["payouts"]] + [("payout_batch.sent", batch_id)]
    )
    # sending again (a duplicate message, a retried release) changes nothing
    assert shop.call("POST", f"/v1/payout-batches/{batch_id}/release").json()["code"] == "invalid_state"


def both_paid(shop: Merchant, batch_id: str, available: str) -> None:
    """The batch of two is sent, both its payouts are paid, and `available` MZN is left."""
    final = sent(shop, batch_id)
    assert (final["status"], final["sent"]) == ("sent", 2)
    assert [settled(shop, p["provider_payout_id"])["status"] for p in final["payouts"]] == ["paid", "paid"]
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": available, "held": "0.00", "fees": "0.00"}]


def test_above_the_threshold_a_batch_awaits_approval_then_is_sent(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "300.00"})
    batch = closed(shop, [line("200.00"), line("150.00")])
    url = f"{management(stack)}/v1/payout-batches/{batch['batch_id']}"
    waiting = shop.call("POST", f"/v1/payout-batches/{batch['batch_id']}/release")
    assert (waiting.status_code, waiting.json()["status"], waiting.json()["released_at"]) == (
        200,
        "awaiting_approval",
        None,
    )
    assert_problem(
        shop.call("POST", f"/v1/payout-batches/{batch['batch_id']}/release"),
        409,
        "invalid_state",
        "Cannot release a payout batch that is awaiting approval.",
    )
    time.sleep(1)
    assert shop.call("GET", f"/v1/payout-batches/{batch['batch_id']}").json()["status"] == "awaiting_approval"
    approved = requests.post(f"{url}/approve", headers=operator(stack), timeout=30)
    assert (approved.status_code, approved.json()["status"]) == (200, "released"), approved.text
    assert_problem(
        requests.post(f"{url}/approve", headers=operator(stack), timeout=30),
        409,
        "invalid_state",
        "Cannot approve a payout batch that is released.",
    )
    # each payout is 'pending' (not waiting for approval again): the batch was approved whole
    both_paid(shop, batch["batch_id"], available="650.00")


def test_an_operator_rejects_a_batch_and_nothing_is_paid(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "100.00"}, debit_daily={"MZN": "500.00"})
    batch = closed(shop, [line("200.00"), line("150.00")])
    batch_id = batch["batch_id"]
    assert shop.call("POST", f"/v1/payout-batches/{batch_id}/release").json()["status"] == "awaiting_approval"
    url = f"{management(stack)}/v1/payout-batches/{batch_id}"
    rejected = requests.post(f"{url}/reject", json={"reason": "Unknown payees"}, headers=operator(stack), timeout=30)
    assert (rejected.status_code, rejected.json()["status"], rejected.json()["failure_message"]) == (
        200,
        "rejected",
        "Unknown payees",
    )
    assert rejected.json()["payouts"] is None
    time.sleep(1)
    assert shop.call("GET", f"/v1/payout-batches/{batch_id}").json()["status"] == "rejected"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1000.00", "held": "0.00", "fees": "0.00"}]
    # its 350.00 of the debit account's day came back: a 500.00 batch still fits
    set_payout_limits(stack, shop, debit_daily={"MZN": "500.00"})
    again = closed(shop, [line("300.00"), line("200.00")])
    assert shop.call("POST", f"/v1/payout-batches/{again['batch_id']}/release").json()["status"] == "released"


def assert_problem(response: requests.Response, status: int, code: str, detail: str, **ext: Any) -> None:
    assert response.status_code == status, response.text
    assert response.json() == problem_for(status, code, detail, **ext)


def test_only_a_closed_batch_is_released(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    made = upload(shop, [line("10.00")]).json()
    batch = f"/v1/payout-batches/{made['batch_id']}"
    assert_problem(
        shop.call("POST", f"{batch}/release"), 409, "invalid_state", "Cannot release a payout batch that is open."
    )
    assert shop.call("GET", batch).json()["status"] == "open"
    assert shop.call("POST", f"{batch}/close").json()["status"] == "closed"
    assert_problem(
        shop.call("POST", f"{batch}/close"), 409, "invalid_state", "Cannot close a payout batch that is closed."
    )


def test_the_debit_accounts_daily_ceiling_refuses_a_release_and_nothing_changes(stack: RunningStack) -> None:
    shop = funded(stack, "2000.00")
    set_payout_limits(stack, shop, debit_daily={"MZN": "500.00"})
    first = closed(shop, [line("200.00"), line("100.00")])
    assert shop.call("POST", f"/v1/payout-batches/{first['batch_id']}/release").json()["status"] == "released"
    second = closed(shop, [line("150.00"), line("100.00")])  # 300 + 250 > 500
    refused = shop.call("POST", f"/v1/payout-batches/{second['batch_id']}/release")
    detail = "The daily batch ceiling of the debit account (500.00 MZN) would be exceeded."
    assert_problem(
        refused, 422, "limit_exceeded", detail, rule="debit_daily", rejection_id=refused.json().get("rejection_id")
    )
    assert shop.call("GET", f"/v1/payout-batches/{second['batch_id']}").json()["status"] == "closed"
    assert sent(shop, first["batch_id"])["status"] == "sent"
    too_big = closed(shop, [line("600.00")])  # alone above the ceiling
    assert shop.call("POST", f"/v1/payout-batches/{too_big['batch_id']}/release").json()["rule"] == "debit_daily"
    small = closed(shop, [line("200.00")])  # 300 + 200 = 500 fits
    assert shop.call("POST", f"/v1/payout-batches/{small['batch_id']}/release").json()["status"] == "released"


def test_a_release_the_balance_does_not_cover_is_refused(stack: RunningStack) -> None:
    shop = funded(stack, "100.00")
    batch = closed(shop, [line("60.00"), line("60.00")])
    assert_problem(
        shop.call("POST", f"/v1/payout-batches/{batch['batch_id']}/release"),
        422,
        "insufficient_balance",
        "The available balance does not cover 120.00 MZN.",
    )
    assert shop.call("GET", f"/v1/payout-batches/{batch['batch_id']}").json()["status"] == "closed"


def test_another_accounts_batch_is_not_found_and_the_other_modes_is_the_wrong_environment(
    stack: RunningStack,
) -> None:
    owner, other = funded(stack, "500.00"), Merchant(stack)
    batch_id = upload(owner, [line("10.00")]).json()["batch_id"]
    for method, path in [
        ("GET", ""),
        ("POST", "/close"),
        ("POST", "/release"),
    ]:
        assert_problem(
            other.call(method, f"/v1/payout-batches/{batch_id}{path}"), 404, "not_found", "No such payout batch."
        )
        live = owner.call(method, f"/v1/payout-batches/{batch_id}{path}", key=owner.live_key)
        assert (live.status_code, live.json()["code"]) == (401, "wrong_environment")
    assert_problem(owner.call("GET", "/v1/payout-batches/not-a-batch"), 404, "not_found", "No such payout batch.")
    assert owner.call("GET", f"/v1/payout-batches/{batch_id}").json()["status"] == "open"


def test_an_upload_that_is_not_a_batch_is_refused_whole(stack: RunningStack) -> None:
    shop = Merchant(stack)
    empty = shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": []})
    assert (empty.status_code, empty.json()["errors"][0]["field"]) == (400, "lines")
    many = shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": [{}] * 1001})
    assert (many.status_code, many.json()["errors"][0]["field"]) == (400, "lines")
    currency = shop.call("POST", "/v1/payout-batches", {"currency": "mzn", "lines": [line()]})
    assert (currency.status_code, currency.json()["code"]) == (400, "invalid_currency")
    no_key = shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": [line()]}, idempotency_key=None)
    assert (no_key.status_code, no_key.json()["code"]) == (400, "idempotency_key_required")


def test_the_same_idempotency_key_makes_one_batch(stack: RunningStack) -> None:
    shop = Merchant(stack)
    body = [line("10.00")]
    first = upload(shop, body)
    again = shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": body}, idempotency_key="batch-key-1")
    replay = shop.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": body}, idempotency_key="batch-key-1")
    assert again.json() == replay.json() and replay.headers["Idempotent-Replayed"] == "true"
    assert first.json()["batch_id"] != again.json()["batch_id"]


def test_concurrent_releases_of_one_batch_one_wins(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    batch = closed(shop, [line("100.00"), line("100.00")])
    path = f"/v1/payout-batches/{batch['batch_id']}/release"
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: shop.call("POST", path), range(4)))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409, 409, 409], [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"invalid_state"}
    both_paid(shop, batch["batch_id"], available="800.00")


def test_close_and_release_race_and_the_batch_ends_consistent(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    batch_id = upload(shop, [line("100.00")]).json()["batch_id"]

    def act(index: int) -> requests.Response:
        verb = "close" if index % 2 == 0 else "release"
        return shop.call("POST", f"/v1/payout-batches/{batch_id}/{verb}")

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(act, range(6)))
    closes = [a for i, a in enumerate(answers) if i % 2 == 0]
    assert sorted(a.status_code for a in closes) == [200, 409, 409]
    for answer in answers:
        assert answer.status_code == 200 or answer.json()["code"] == "invalid_state", answer.text
    releases = [a for i, a in enumerate(answers) if i % 2 == 1 and a.status_code == 200]
    assert len(releases) <= 1
    status = shop.call("GET", f"/v1/payout-batches/{batch_id}").json()["status"]
    assert status in ("closed", "released", "sent") and (status == "closed") == (not releases)


def test_concurrent_approvals_and_rejections_one_wins(stack: RunningStack) -> None:
    shop = funded(stack, "1000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "10.00"})
    batch = closed(shop, [line("100.00")])
    assert shop.call("POST", f"/v1/payout-batches/{batch['batch_id']}/release").json()["status"] == "awaiting_approval"
    url = f"{management(stack)}/v1/payout-batches/{batch['batch_id']}"

    def decide(index: int) -> requests.Response:
        if index % 2 == 0:
            return requests.post(f"{url}/approve", headers=operator(stack), timeout=30)
        return requests.post(f"{url}/reject", json={"reason": "no"}, headers=operator(stack), timeout=30)

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(decide, range(6)))
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409, 409, 409]
    winner = next(a.json()["status"] for a in answers if a.status_code == 200)
    final = sent(shop, batch["batch_id"])
    assert final["status"] == ("sent" if winner == "released" else "rejected")
