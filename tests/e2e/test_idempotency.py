"""Idempotency over HTTP, on a money-moving route the tests register (the emulation fixture's
IdempotentFunction, built on mzpay.http.idempotency)."""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.expected import problem_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e


def post(
    stack: RunningStack, body: dict[str, Any] | str, key: str | None, tenant: str, path: str = "/idem/charges"
) -> requests.Response:
    headers = {"Content-Type": "application/json", "X-Tenant": tenant}
    if key is not None:
        headers["Idempotency-Key"] = key
    data = body if isinstance(body, str) else json.dumps(body)
    return requests.post(stack.state["regions"]["mz"]["echo"] + path, data=data, headers=headers, timeout=30)


def executions(stack: RunningStack, tenant: str) -> int:
    dynamodb = stack.aws("dynamodb")
    items = dynamodb.scan(TableName=stack.state["resources"]["mz"]["SinkTable"], ConsistentRead=True)["Items"]
    return sum(1 for item in items if item["pk"]["S"].startswith(f"exec#{tenant}#"))


def claimed(stack: RunningStack, pk: str, timeout: float = 10) -> None:
    """Wait until a request holds the idempotency record `pk`."""
    dynamodb = stack.aws("dynamodb")
    deadline = time.monotonic() + timeout
    table = stack.state["resources"]["mz"]["IdempotencyTable"]
    while "Item" not in dynamodb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True):
        assert time.monotonic() < deadline, f"{pk} was never claimed"
        time.sleep(0.05)


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def test_a_money_moving_post_without_the_header_is_refused(fixture_stack: RunningStack, tenant: str) -> None:
    response = post(fixture_stack, {"amount": "10.00"}, None, tenant)
    assert response.status_code == 400
    assert response.json() == problem_for(
        400, "idempotency_key_required", "This request needs an Idempotency-Key header."
    )
    assert executions(fixture_stack, tenant) == 0


def test_a_key_over_255_bytes_is_invalid(fixture_stack: RunningStack, tenant: str) -> None:
    response = post(fixture_stack, {"amount": "10.00"}, "é" * 128, tenant)  # 256 bytes
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_idempotency_key"
    assert post(fixture_stack, {"amount": "10.00"}, "k" * 255, tenant).status_code == 201


def test_a_replay_returns_the_original_answer_and_runs_nothing(fixture_stack: RunningStack, tenant: str) -> None:
    first = post(fixture_stack, {"amount": "10.00"}, "order-1", tenant)
    again = post(fixture_stack, '{ "amount" : "10.00" }', "order-1", tenant)  # same JSON, other spacing
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Content-Type"] == first.headers["Content-Type"] == "application/json"
    assert again.headers["X-Request-ID"] != first.headers["X-Request-ID"]  # each request has its own id
    assert executions(fixture_stack, tenant) == 1


def test_keys_are_scoped_per_tenant(fixture_stack: RunningStack, tenant: str) -> None:
    first = post(fixture_stack, {"amount": "10.00"}, "shared-key", tenant)
    other = post(fixture_stack, {"amount": "10.00"}, "shared-key", tenant + "-other")
    assert first.status_code == other.status_code == 201
    assert first.json()["id"] != other.json()["id"]


def test_the_same_key_for_another_body_is_reused(fixture_stack: RunningStack, tenant: str) -> None:
    assert post(fixture_stack, {"amount": "10.00"}, "order-2", tenant).status_code == 201
    response = post(fixture_stack, {"amount": "99.00"}, "order-2", tenant)
    assert response.status_code == 409
    assert response.json() == problem_for(
        409, "idempotency_key_reused", "This Idempotency-Key was used for another request (method, path or body)."
    )
    assert executions(fixture_stack, tenant) == 1


def test_a_refusal_is_kept_and_replayed_too(fixture_stack: RunningStack, tenant: str) -> None:
    first = post(fixture_stack, {"amount": "10.00", "outcome": "reject"}, "order-3", tenant)
    again = post(fixture_stack, {"amount": "10.00", "outcome": "reject"}, "order-3", tenant)
    assert first.status_code == again.status_code == 422
    assert first.json() == again.json() == problem_for(422, "limit_exceeded", "Over the daily ceiling.", rule="daily")
    assert again.headers["Content-Type"] == "application/problem+json"
    assert again.headers["Idempotent-Replayed"] == "true"
    assert executions(fixture_stack, tenant) == 1


def test_a_5xx_does_not_pin_the_key(fixture_stack: RunningStack, tenant: str) -> None:
    first = post(fixture_stack, {"amount": "10.00", "outcome": "crash"}, "order-4", tenant)
    again = post(fixture_stack, {"amount": "10.00", "outcome": "crash"}, "order-4", tenant)
    assert first.status_code == again.status_code == 500
    assert again.json()["code"] == "internal_error"
    assert "Idempotent-Replayed" not in again.headers
    assert executions(fixture_stack, tenant) == 2  # it ran again


def test_an_unreachable_store_is_503_and_nothing_runs(fixture_stack: RunningStack, tenant: str) -> None:
    response = post(fixture_stack, {"amount": "10.00"}, "order-5", tenant, path="/broken/charges")
    assert (response.status_code, response.headers["Retry-After"]) == (503, "1")
    assert response.json() == problem_for(
        503,
        "idempotency_unavailable",
        "The idempotency store is unreachable; the request was not run. Retry with the same key.",
    )
    assert executions(fixture_stack, tenant) == 0


TRANSIENT = (502, 503, 504)  # the local emulator's answer when a function ran out of time under load


def test_twenty_concurrent_duplicates_run_once(fixture_stack: RunningStack, tenant: str) -> None:
    """Twenty at once, each retried with its key on a transient 5xx as the docs tell a client to
    (on a busy two-core machine twenty fresh execution environments may outlast the function's 5 s):
    one runs, the others are its replay or told to wait, and it ran once."""

    def sent(_: int) -> requests.Response:
        return eventually(
            lambda: post(fixture_stack, {"amount": "25.00"}, "race-1", tenant),
            lambda answer: answer.status_code not in TRANSIENT,
            timeout=60,
        )

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(sent, range(20)))
    assert executions(fixture_stack, tenant) == 1, [a.status_code for a in answers]
    fresh = [a for a in answers if a.status_code == 201 and "Idempotent-Replayed" not in a.headers]
    replayed = [a for a in answers if a.status_code == 201 and a.headers.get("Idempotent-Replayed") == "true"]
    waiting = [a for a in answers if a.status_code == 409]
    assert len(fresh) == 1
    assert len(fresh) + len(replayed) + len(waiting) == 20, [(a.status_code, a.text[:200]) for a in answers]
    assert all(a.json() == fresh[0].json() for a in replayed)
    for answer in waiting:
        assert answer.json()["code"] == "request_in_progress"
        assert answer.headers["Retry-After"] == "1"


def test_a_duplicate_of_a_slow_request_is_in_progress_then_replayed(fixture_stack: RunningStack, tenant: str) -> None:
    body = {"amount": "7.00", "outcome": "slow"}  # runs 3 s, longer than the 2 s wait window
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(post, fixture_stack, body, "slow-1", tenant)
        claimed(fixture_stack, f"{tenant}#slow-1")  # the first request owns the key before the duplicate is sent
        duplicate = post(fixture_stack, body, "slow-1", tenant)
        original = first.result()
    assert duplicate.status_code == 409
    assert duplicate.headers["Retry-After"] == "1"
    assert duplicate.json() == problem_for(
        409, "request_in_progress", "A request with this Idempotency-Key is still running; retry shortly."
    )
    assert original.status_code == 201
    replay = post(fixture_stack, body, "slow-1", tenant)
    assert (replay.status_code, replay.json(), replay.headers["Idempotent-Replayed"]) == (201, original.json(), "true")
    assert executions(fixture_stack, tenant) == 1
