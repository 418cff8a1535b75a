"""Fault injection end to end: the local stack's functions reach moto through a relay that the test
freezes mid-traffic (calls hang, requests already sent land later) and drops. Charges, refunds
and reads retried with their Idempotency-Key as the docs advise must never see a 500, must get
Retry-After with every 503, and must all reach one final, consistent outcome."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.faultproxy import FaultProxy
from devstack.launcher import RunningStack, free_ports, start

pytestmark = pytest.mark.e2e
RETRY_FOR_SECONDS = 90


@pytest.fixture(scope="module")
def flaky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningStack, FaultProxy]]:
    moto_port, port_base = free_ports(1)
    proxy = FaultProxy(moto_port).start()
    stack = start(
        tmp_path_factory.mktemp("flaky"), envs="mz", ports=(moto_port, port_base), function_aws_endpoint=proxy.url
    )
    yield stack, proxy
    proxy.thaw()
    stack.interrupt()
    proxy.stop()


class Client:
    def __init__(self, stack: RunningStack) -> None:
        self.url = stack.state["regions"]["mz"]["gateway"]
        self.key = stack.state["demo"]["mz"]["test_key"]
        self.answers: list[requests.Response] = []
        self.lock = threading.Lock()

    def send(self, method: str, path: str, body: dict[str, Any] | None = None, key: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.key}"}
        if key:
            headers["Idempotency-Key"] = key
        answer = requests.request(method, self.url + path, json=body, headers=headers, timeout=60)
        with self.lock:
            self.answers.append(answer)
        return answer

    def until_final(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send, and resend with the same Idempotency-Key while the answer says retry (503 after
        Retry-After, 409 request_in_progress), as docs/payments.md advises."""
        key = str(uuid.uuid4()) if method == "POST" else None
        deadline = time.monotonic() + RETRY_FOR_SECONDS
        while True:
            answer = self.send(method, path, body, key)
            retry = answer.status_code == 503 or (
                answer.status_code == 409 and answer.json().get("code") == "request_in_progress"
            )
            if not retry:
                assert answer.status_code == 200, answer.text
                return answer.json()  # type: ignore[no-any-return]
            assert time.monotonic() < deadline, f"{path} never reached an outcome: {answer.text}"
            time.sleep(float(answer.headers["Retry-After"]))


def charge_body() -> dict[str, Any]:
    return {
        "payment_id": str(ULID()),
        "money": {"amount": "40.00", "currency": "MZN"},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
        "country": "MZ",
    }


def settled(client: Client, provider_payment_id: str) -> dict[str, Any]:
    """The payment once nothing is in flight any more (the sweep may finish what a fault left)."""
    deadline = time.monotonic() + 60
    while True:
        payment = client.until_final("GET", f"/payments/{provider_payment_id}")
        if payment["status"] != "pending" or time.monotonic() > deadline:
            return payment
        time.sleep(1)


def test_frozen_and_dropped_aws_never_answer_500_and_every_retried_request_finishes(
    flaky: tuple[RunningStack, FaultProxy],
) -> None:
    stack, proxy = flaky
    client = Client(stack)
    client.until_final("POST", "/charges", charge_body())  # warm: the key's authorisation is cached

    def charge_then_refund(_: int) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
        body = charge_body()
        charged = client.until_final("POST", "/charges", body)
        again = client.until_final("POST", "/charges", body)  # a retry of the same payment_id: one payment
        assert again["provider_payment_id"] == charged["provider_payment_id"]
        refund = None
        if settled(client, charged["provider_payment_id"])["status"] == "succeeded":
            refund = client.until_final(
                "POST", "/refunds", {"refund_id": str(ULID()), "provider_payment_id": charged["provider_payment_id"]}
            )
        return body["payment_id"], charged, refund

    stop = threading.Event()

    def traffic(_: int) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
        done = []
        while not stop.is_set():
            done.append(charge_then_refund(0))
        return done

    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(traffic, i) for i in range(4)]
        time.sleep(1)
        proxy.freeze()  # calls hang; what was sent lands when it thaws
        time.sleep(20)  # longer than a call takes to give up (2 attempts, 5 s read timeout each, backoff)
        proxy.thaw()
        time.sleep(1)
        proxy.drop()  # connections reset under traffic
        time.sleep(2)
        stop.set()
        results = [result for future in futures for result in future.result(timeout=300)]

    statuses = [answer.status_code for answer in client.answers]
    assert 500 not in statuses and not any(s > 503 for s in statuses), statuses
    unavailable = [answer for answer in client.answers if answer.status_code == 503]
    assert all(answer.headers.get("Retry-After") for answer in unavailable)
    assert unavailable, "the freeze must have been felt (else this test proves nothing)"
    for _, charged, refund in results:
        payment = settled(client, charged["provider_payment_id"])
        assert payment["status"] == "succeeded", payment
        assert payment["refunded_amount"] == (refund["money"]["amount"] if refund else "0.00")
        if refund is not None:
            assert refund["status"] == "succeeded"
