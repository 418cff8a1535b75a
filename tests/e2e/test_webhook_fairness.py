"""Webhook delivery is fair between tenants (docs/webhooks.md, "Fairness: the hot lane and the
slow lane"): while one account's receiver hangs with several of its deliveries pending, another
account's webhooks still arrive within seconds, and the hung account's arrive once its receiver
is back. The delays are measured from just before the charge is requested (so at or before its
event was created) to the receipt, on the same clock."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import delivery_id_for
from mzpay.webhooks import verify
from tests.e2e.test_webhooks import SUCCEEDS, Arrival, Receiver, Shop, attempts
from tests.receivers import LoopbackServer, QuietHandler, serving

pytestmark = pytest.mark.e2e

HANG_SECONDS = 30.0  # how long the hung receiver holds each request until it is released
NEIGHBOUR_BOUND_SECONDS = 15.0  # generous for a busy machine; the shared queue took 63-93 s
HUNG_DELIVERIES = 30
NEIGHBOUR_DELIVERIES = 3


class HungReceiver(LoopbackServer):
    """A receiver that records each request and then holds it without answering, up to
    HANG_SECONDS, until `release()`; from then on it answers 200 at once."""

    def __init__(self) -> None:
        super().__init__(_HungHandler)
        self.released = threading.Event()
        self.arrivals: list[Arrival] = []
        self.changed = threading.Condition()

    def endpoint(self) -> str:
        return f"{self.origin}/hooks/{uuid.uuid4().hex}"

    def record(self, arrival: Arrival) -> None:
        with self.changed:
            self.arrivals.append(arrival)
            self.changed.notify_all()

    def wait_until(self, count: int, timeout: float) -> list[Arrival]:
        """The arrivals once there are `count` of them."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(found := list(self.arrivals)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(found)} of {count} requests reached the hung receiver"
                self.changed.wait(left)
            return found


class _HungHandler(QuietHandler):
    server: HungReceiver

    def do_POST(self) -> None:
        self.server.record(Arrival(self.path, dict(self.headers), self.body(), time.time()))
        self.server.released.wait(HANG_SECONDS)  # the scenario's slowness, ended by release()
        self.answer(200)


@pytest.fixture
def hung() -> Iterator[HungReceiver]:
    with serving(HungReceiver()) as server:
        yield server
        server.released.set()


def test_a_hung_receiver_of_one_account_does_not_delay_another_accounts_webhooks(
    stack: RunningStack, receiver: Receiver, hung: HungReceiver
) -> None:
    slow_shop, neighbour = Shop(stack), Shop(stack)
    slow_url = hung.endpoint()
    slow_charges = [slow_shop.charge(SUCCEEDS, slow_url) for _ in range(HUNG_DELIVERIES)]
    hung.wait_until(1, timeout=60)  # the hung receiver is holding A's first delivery

    delays: list[float] = []
    delivered: list[tuple[str, dict[str, Any]]] = []
    for _ in range(NEIGHBOUR_DELIVERIES):
        url = receiver.endpoint(200)
        requested = time.time()
        charge = neighbour.charge(SUCCEEDS, url)
        (arrival,) = receiver.wait_for(url, 1, timeout=150, settle=0)
        delays.append(arrival.at - requested)
        envelope = json.loads(arrival.body)
        assert (envelope["type"], envelope["resource_id"]) == ("payment.succeeded", charge["provider_payment_id"])
        assert envelope["account_id"] == neighbour.account_id
        verify(arrival.body, arrival.headers["Service-Signature"], [neighbour.secret])
        delivered.append((url, envelope))
    print(f"neighbour's webhook delays while A's receiver hangs: {[round(d, 2) for d in delays]} s")
    assert not hung.released.is_set()  # A's receiver hung all along
    assert max(delays) < NEIGHBOUR_BOUND_SECONDS, delays
    for url, envelope in delivered:  # one attempt each, recorded as ever
        record = neighbour.delivery_once(delivery_id_for(envelope["id"], url), lambda d: d["status"] == "delivered")
        assert attempts(record) == [(200, None, 0)] and record["attempt_count"] == 1

    slow_ids = {slow_shop.event(c["provider_payment_id"], "payment.succeeded")["id"] for c in slow_charges}
    for event_id in slow_ids:  # still pending: their attempts timed out, none was given up
        pending = slow_shop.delivery(delivery_id_for(event_id, slow_url)).json()
        assert pending["status"] == "pending", pending
        assert all(a[:2] == (None, "timeout") for a in attempts(pending)), pending

    released_at = time.time()
    hung.released.set()  # A's receiver is back: each of A's events arrives
    for event_id in slow_ids:
        done = slow_shop.delivery_once(
            delivery_id_for(event_id, slow_url), lambda d: d["status"] == "delivered", timeout=180
        )
        assert attempts(done)[-1] == (200, None, 0) and done["attempt_count"] == len(done["attempts"])
        assert all(a[:2] == (None, "timeout") for a in attempts(done)[:-1])  # the hung ones, then the 200
    arrived = hung.wait_until(HUNG_DELIVERIES, timeout=10)
    assert {a.headers["Service-Event-Id"] for a in arrived} == slow_ids
    assert [a for a in arrived if a.at >= released_at]  # the attempts that delivered came after the release
    for arrival in arrived:
        verify(arrival.body, arrival.headers["Service-Signature"], [slow_shop.secret])
