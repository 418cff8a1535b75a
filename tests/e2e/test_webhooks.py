"""Webhooks through the local stack, to a real HTTP receiver on loopback: one signed POST per
terminal payment event, retries until the receiver answers, dead letters and replays, 410, the
address rule, and an outage between the payment's write and the queue that loses nothing.

The local stack waits the production schedule (base 300 s, full jitter) scaled to a second per
minute (WEBHOOK_RETRY_TIME_SCALE, set by devstack), with the production maxReceiveCount,
dead-letter queue and handlers. A test that must run out of attempts quickly asks for a receiver
URL with devstack_retry_scale=0 (honoured by the local stack only): its 20 attempts take about a
second."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.events import ENVELOPE_FIELDS
from mzpay.domain.webhooks.rules import MAX_ATTEMPTS, delivery_id_for, retry_ceiling
from mzpay.webhooks import verify
from tests.expected import problem
from tests.receivers import LoopbackServer, QuietHandler, serving

pytestmark = pytest.mark.e2e

SUCCEEDS = "+258840000000"
INSUFFICIENT_FUNDS = "+258840000001"


# ---------------------------------------------------------------- the merchant's receiver
@dataclass(frozen=True)
class Arrival:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver(LoopbackServer):
    """A merchant's webhook endpoint on loopback. Each path answers the statuses it was scripted
    with, in order, repeating the last one (200 when not scripted)."""

    def __init__(self, port: int = 0) -> None:
        super().__init__(_Handler, port)
        self.arrivals: list[Arrival] = []
        self.scripts: dict[str, list[int]] = {}
        self.changed = threading.Condition()

    def endpoint(self, *statuses: int, fast: bool = False) -> str:
        """A fresh callback URL answering `statuses` (then the last one for ever); `fast`: its
        retries come at once (the local stack's devstack_retry_scale=0)."""
        path = f"/hooks/{uuid.uuid4().hex}" + ("?devstack_retry_scale=0" if fast else "")
        self.scripts[path] = list(statuses or (200,))
        return f"{self.origin}{path}"

    def script(self, url: str, *statuses: int) -> None:
        with self.changed:
            self.scripts[_path(url)] = list(statuses)

    def answer_for(self, path: str) -> int:
        with self.changed:
            script = self.scripts.get(path, [200])
            return script.pop(0) if len(script) > 1 else script[0]

    def record(self, arrival: Arrival) -> None:
        with self.changed:
            self.arrivals.append(arrival)
            self.changed.notify_all()

    def at(self, url: str) -> list[Arrival]:
        with self.changed:
            return [a for a in self.arrivals if a.path == _path(url)]

    def wait_for(self, url: str, count: int, timeout: float = 30, settle: float = 1.0) -> list[Arrival]:
        """The arrivals at `url` once there are `count`, and nothing more came for `settle` s."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while len([a for a in self.arrivals if a.path == _path(url)]) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.at(url))} of {count} webhooks arrived at {url}"
                self.changed.wait(left)
        time.sleep(settle)
        return self.at(url)


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


class _Handler(QuietHandler):
    server: Receiver

    def do_POST(self) -> None:
        self.server.record(Arrival(self.path, dict(self.headers), self.body(), time.time()))
        self.answer(self.server.answer_for(self.path))


# ---------------------------------------------------------------- the merchant and the operator
class Shop:
    """A fresh mz account with a test key and its test webhook secret."""

    def __init__(self, stack: RunningStack) -> None:
        self.stack = stack
        self.management = stack.state["regions"]["mz"]["management"]
        self.gateway = stack.state["regions"]["mz"]["gateway"]
        self.operator = {"Authorization": f"Bearer {stack.state['operator_token']}"}
        account = self.manage("POST", "/v1/accounts", {"name": "Loja", "region": "mz"}).json()
        self.account_id = account["id"]
        self.key = self.manage("POST", f"/v1/accounts/{self.account_id}/api-keys", {"mode": "test"}).json()["key"]
        self.secret = account["webhook_secrets"]["test"]["secret"]  # made with the account, shown once

    def manage(self, method: str, path: str, body: Any = None) -> requests.Response:
        return requests.request(method, self.management + path, json=body, headers=self.operator, timeout=30)

    def send_charge(self, phone: str, callback_url: str) -> requests.Response:
        """POST /charges of 150.00 MZN from an M-Pesa `phone`, its events sent to `callback_url`."""
        body = {
            "payment_id": str(ULID()),
            "money": {"amount": "150.00", "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}},
            "country": "MZ",
            "callback_url": callback_url,
        }
        headers = {"Authorization": f"Bearer {self.key}", "Idempotency-Key": str(uuid.uuid4())}
        return requests.post(self.gateway + "/charges", json=body, headers=headers, timeout=30)

    def charge(self, phone: str, callback_url: str) -> dict[str, Any]:
        response = self.send_charge(phone, callback_url)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    def payment(self, provider_payment_id: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.key}"}
        return requests.get(f"{self.gateway}/payments/{provider_payment_id}", headers=headers, timeout=30).json()  # type: ignore[no-any-return]

    def event(self, provider_payment_id: str, event_type: str) -> dict[str, Any]:
        """The stored event of that type for the payment (the events table, as the stream saw it)."""
        items = self.stack.aws("dynamodb").query(
            TableName=self.stack.state["resources"]["mz"]["EventsTable"],
            IndexName="gsi1",
            KeyConditionExpression="gsi1pk = :r",
            ExpressionAttributeValues={":r": {"S": f"RES#{provider_payment_id}"}},
        )["Items"]
        (item,) = [i for i in items if i["type"]["S"] == event_type]
        return {"id": item["id"]["S"], "type": event_type}

    def delivery(self, delivery_id: str) -> requests.Response:
        return self.manage("GET", f"/v1/webhook-deliveries/{delivery_id}")

    def delivery_once(self, delivery_id: str, done: Callable[[dict[str, Any]], bool], timeout: float = 60) -> Any:
        """The delivery once `done(delivery)` holds."""
        deadline = time.monotonic() + timeout
        while True:
            response = self.delivery(delivery_id)
            if response.status_code == 200 and done(response.json()):
                return response.json()
            assert time.monotonic() < deadline, f"delivery {delivery_id}: {response.status_code} {response.text}"
            time.sleep(0.2)


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Shop:
    return Shop(stack)


def signature_parts(header: str) -> tuple[int, list[str]]:
    items = [item.split("=", 1) for item in header.split(",")]
    (t,) = [int(value) for key, value in items if key == "t"]
    return t, [value for key, value in items if key == "v1"]


def attempts(delivery: dict[str, Any]) -> list[tuple[int | None, str | None, int]]:
    return [(a["status_code"], a["error"], a["round"]) for a in delivery["attempts"]]


# ---------------------------------------------------------------- delivery
def test_a_succeeded_charge_is_posted_once_signed_with_its_envelope(shop: Shop, receiver: Receiver) -> None:
    url = receiver.endpoint(200)
    charge = shop.charge(SUCCEEDS, url)
    assert charge["status"] == "succeeded"
    (arrival,) = receiver.wait_for(url, 1)  # payment.created is not posted: one webhook only

    envelope = json.loads(arrival.body)
    event = shop.event(charge["provider_payment_id"], "payment.succeeded")
    assert list(envelope) == list(ENVELOPE_FIELDS)
    assert envelope["id"] == event["id"]
    assert envelope["type"] == "payment.succeeded"
    assert (envelope["account_id"], envelope["mode"]) == (shop.account_id, "test")
    assert (envelope["resource"], envelope["resource_id"]) == ("payment", charge["provider_payment_id"])
    assert envelope["data"] == {"object": shop.payment(charge["provider_payment_id"])}

    delivery_id = delivery_id_for(event["id"], url)
    headers = arrival.headers
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"] == "mzpay-webhooks/1"
    assert headers["Service-Event-Id"] == envelope["id"]
    assert headers["Service-Delivery-Id"] == delivery_id

    t = verify(arrival.body, headers["Service-Signature"], [shop.secret])
    assert abs(time.time() - t) < 300
    stamp, signatures = signature_parts(headers["Service-Signature"])
    expected = hmac.new(shop.secret.encode(), f"{stamp}.".encode() + arrival.body, hashlib.sha256).hexdigest()
    assert signatures == [expected]  # computed here, independently of mzpay's signing code

    delivery = shop.delivery_once(delivery_id, lambda d: d["status"] == "delivered")
    assert {k: delivery[k] for k in ("id", "event_id", "event_type", "account_id", "mode", "url", "round")} == {
        "id": delivery_id,
        "event_id": event["id"],
        "event_type": "payment.succeeded",
        "account_id": shop.account_id,
        "mode": "test",
        "url": url,
        "round": 0,
    }
    assert attempts(delivery) == [(200, None, 0)]
    assert delivery["attempt_count"] == 1 and delivery["delivered_at"] and delivery["last_error"] is None


def test_a_failed_charge_is_posted_with_its_failure_code(shop: Shop, receiver: Receiver) -> None:
    url = receiver.endpoint(204)
    charge = shop.charge(INSUFFICIENT_FUNDS, url)
    assert (charge["status"], charge["failure_code"]) == ("failed", "insufficient_funds")
    (arrival,) = receiver.wait_for(url, 1)
    envelope = json.loads(arrival.body)
    assert envelope["type"] == "payment.failed"
    assert envelope["id"] == shop.event(charge["provider_payment_id"], "payment.failed")["id"]
    assert envelope["data"]["object"]["status"] == "failed"
    assert envelope["data"]["object"]["failure_code"] == "insufficient_funds"
    assert envelope["data"]["object"]["failure_message"] == charge["failure_message"]
    verify(arrival.body, arrival.headers["Service-Signature"], [shop.secret])


# ---------------------------------------------------------------- retries
def test_a_receiver_failing_twice_gets_it_on_the_third_attempt(shop: Shop, receiver: Receiver) -> None:
    url = receiver.endpoint(500, 503, 200)
    charge = shop.charge(SUCCEEDS, url)
    arrivals = receiver.wait_for(url, 3)
    assert len(arrivals) == 3
    assert len({a.body for a in arrivals}) == 1  # the same bytes every time
    assert len({(a.headers["Service-Event-Id"], a.headers["Service-Delivery-Id"]) for a in arrivals}) == 1
    for arrival in arrivals:  # each attempt signed afresh
        verify(arrival.body, arrival.headers["Service-Signature"], [shop.secret])

    event = shop.event(charge["provider_payment_id"], "payment.succeeded")
    delivery = shop.delivery_once(delivery_id_for(event["id"], url), lambda d: d["status"] == "delivered")
    assert attempts(delivery) == [(500, None, 0), (503, None, 0), (200, None, 0)]
    assert delivery["attempt_count"] == 3 and delivery["last_error"] == "http_503"
    assert all(a["latency_ms"] >= 0 for a in delivery["attempts"])
    assert [a["at"] for a in delivery["attempts"]] == sorted(a["at"] for a in delivery["attempts"])


def test_a_receiver_that_always_fails_is_dead_lettered_and_a_replay_delivers_it(shop: Shop, receiver: Receiver) -> None:
    url = receiver.endpoint(503, fast=True)
    charge = shop.charge(SUCCEEDS, url)
    delivery_id = delivery_id_for(shop.event(charge["provider_payment_id"], "payment.succeeded")["id"], url)
    failed = shop.delivery_once(delivery_id, lambda d: d["status"] == "failed")
    assert attempts(failed) == [(503, None, 0)] * MAX_ATTEMPTS
    assert failed["failed_at"] and failed["next_attempt_at"] is None and failed["last_error"] == "http_503"
    assert len(receiver.wait_for(url, MAX_ATTEMPTS)) == MAX_ATTEMPTS

    listed = shop.manage("GET", f"/v1/accounts/{shop.account_id}/webhook-deliveries?status=failed")
    assert listed.status_code == 200
    assert delivery_id in [d["id"] for d in listed.json()["data"]]
    assert all(d["status"] == "failed" for d in listed.json()["data"])

    receiver.script(url, 200)  # the merchant fixed the endpoint
    replay = shop.manage("POST", f"/v1/webhook-deliveries/{delivery_id}/replay")
    assert replay.status_code == 202, replay.text
    assert (replay.json()["status"], replay.json()["round"]) == ("pending", 1)
    again = shop.manage("POST", f"/v1/webhook-deliveries/{delivery_id}/replay")
    assert again.status_code == 409
    assert again.json()["code"] == "invalid_state"

    arrivals = receiver.wait_for(url, MAX_ATTEMPTS + 1)
    assert len(arrivals) == MAX_ATTEMPTS + 1  # delivered once on replay
    assert arrivals[-1].body == arrivals[0].body
    assert arrivals[-1].headers["Service-Event-Id"] == arrivals[0].headers["Service-Event-Id"]
    delivered = shop.delivery_once(delivery_id, lambda d: d["status"] == "delivered")
    assert attempts(delivered) == [(503, None, 0)] * MAX_ATTEMPTS + [(200, None, 1)]
    assert delivered["replayed_at"] and delivered["round"] == 1

    after = shop.manage("POST", f"/v1/webhook-deliveries/{delivery_id}/replay")
    assert after.status_code == 409
    assert after.json() == problem(
        409, "Conflict", "invalid_state", "Only a failed delivery can be replayed; this one is delivered."
    )


def test_410_gone_stops_the_retries(shop: Shop, receiver: Receiver) -> None:
    url = receiver.endpoint(410)
    charge = shop.charge(SUCCEEDS, url)
    assert len(receiver.wait_for(url, 1, settle=2.0)) == 1
    delivery_id = delivery_id_for(shop.event(charge["provider_payment_id"], "payment.succeeded")["id"], url)
    stopped = shop.delivery_once(delivery_id, lambda d: d["status"] == "stopped")
    assert attempts(stopped) == [(410, None, 0)]
    assert stopped["stopped_at"] and stopped["last_error"] == "http_410"
    replay = shop.manage("POST", f"/v1/webhook-deliveries/{delivery_id}/replay")
    assert (replay.status_code, replay.json()["code"]) == (409, "invalid_state")


@pytest.mark.parametrize(
    "url", ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.7:8080/hooks", "http://[fd00::7]/hooks"]
)
def test_a_callback_on_a_private_address_is_refused_at_creation_and_never_called(
    shop: Shop, receiver: Receiver, url: str
) -> None:
    refused = shop.send_charge(SUCCEEDS, url)
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["errors"][0]["field"]) == ("invalid_callback_url", "callback_url")

    # The send-time guard stays: an event that names such a URL (stored before the rule, or by
    # any other path) is refused without retries when it would be posted.
    charge = shop.charge(SUCCEEDS, receiver.endpoint(200))
    model = shop.event(charge["provider_payment_id"], "payment.succeeded")
    table = shop.stack.state["resources"]["mz"]["EventsTable"]
    dynamodb = shop.stack.aws("dynamodb")
    (item,) = [
        i
        for i in dynamodb.query(
            TableName=table,
            IndexName="gsi1",
            KeyConditionExpression="gsi1pk = :r",
            ExpressionAttributeValues={":r": {"S": f"RES#{charge['provider_payment_id']}"}},
        )["Items"]
        if i["id"]["S"] == model["id"]
    ]
    event_id = str(ULID())
    item |= {"id": {"S": event_id}, "sk": {"S": f"EVT#{event_id}"}, "gsi1sk": {"S": f"EVT#{event_id}"}}
    item["callback_url"] = {"S": url}
    dynamodb.put_item(TableName=table, Item=item)
    failed = shop.delivery_once(delivery_id_for(event_id, url), lambda d: d["status"] == "failed")
    assert attempts(failed) == [(None, "ssrf_blocked", 0)]
    assert failed["last_error"] == "ssrf_blocked"


# ---------------------------------------------------------------- the management API
def test_deliveries_are_read_and_listed_by_operators_only_as_declared(shop: Shop) -> None:
    missing = shop.delivery(str(ULID()))
    assert missing.status_code == 404
    assert missing.json() == problem(404, "Not Found", "not_found", "No such webhook delivery.")
    bad = shop.manage("GET", f"/v1/accounts/{shop.account_id}/webhook-deliveries?status=lost&page_size=500")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_request"
    assert sorted(e["field"] for e in bad.json()["errors"]) == ["page_size", "status"]
    page = shop.manage("GET", f"/v1/accounts/{shop.account_id}/webhook-deliveries?page_size=1")
    assert page.status_code == 200
    assert (page.json()["object"], len(page.json()["data"]), page.json()["has_more"]) == ("list", 1, True)
    after = shop.manage(
        "GET",
        f"/v1/accounts/{shop.account_id}/webhook-deliveries?page_size=1&page_token={page.json()['next_page_token']}",
    )
    assert after.json()["data"][0]["id"] < page.json()["data"][0]["id"]  # newest first
    anonymous = requests.get(f"{shop.management}/v1/webhook-deliveries/{ULID()}", timeout=30)
    assert anonymous.status_code == 401


# ---------------------------------------------------------------- nothing lost
def test_an_outage_between_the_payment_write_and_the_queue_loses_nothing(
    stack: RunningStack, shop: Shop, receiver: Receiver
) -> None:
    """WebhookQueue disappears (an SQS outage): the charge still commits with its event; the
    dispatcher creates the delivery, cannot queue it and fails the stream record; once SQS is
    back, the stream plays the record again and the webhook arrives, once."""
    sqs = stack.aws("sqs")
    queue_url = stack.state["resources"]["mz"]["WebhookQueue"]
    kept = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    settings = {
        k: kept[k] for k in ("VisibilityTimeout", "MessageRetentionPeriod", "RedrivePolicy", "SqsManagedSseEnabled")
    }
    name = queue_url.rsplit("/", 1)[1]
    url = receiver.endpoint(200)
    failed_plays = "->WebhookDispatcherFunction: batch failed"  # the local event source mapping's log
    failures_before = stack.log().count(failed_plays)
    sqs.delete_queue(QueueUrl=queue_url)
    try:
        charge = shop.charge(SUCCEEDS, url)
        assert charge["status"] == "succeeded"  # the payment's write does not depend on the queue
        delivery_id = delivery_id_for(shop.event(charge["provider_payment_id"], "payment.succeeded")["id"], url)
        created = shop.delivery_once(delivery_id, lambda d: True, timeout=30)  # the dispatcher ran...
        assert created["status"] == "pending" and created["attempts"] == []
        time.sleep(2.0)  # ...and keeps failing while the queue is gone (the stream retries it)
        assert receiver.at(url) == []
        assert stack.log().count(failed_plays) > failures_before
    finally:
        assert sqs.create_queue(QueueName=name, Attributes=settings)["QueueUrl"] == queue_url
    (arrival,) = receiver.wait_for(url, 1, settle=2.0)
    assert arrival.headers["Service-Delivery-Id"] == delivery_id
    delivered = shop.delivery_once(delivery_id, lambda d: d["status"] == "delivered")
    assert attempts(delivered) == [(200, None, 0)]


# ---------------------------------------------------------------- retries that mean something
def test_a_receiver_down_for_seconds_after_the_first_attempt_gets_the_event_once_when_back(shop: Shop) -> None:
    """The local stack waits the production schedule at a second per minute (full jitter, base
    300 s: the next attempt within 5 s, then 10 s, 20 s...). The receiver answers 503, is down
    (connection refused) for 4 s, and is back: it receives the event once, signed, and every
    attempt came no sooner than the wait recorded before it."""
    with serving(Receiver()) as first:
        port = first.server_address[1]
        url = first.endpoint(503)
        charge = shop.charge(SUCCEEDS, url)
        (refused,) = first.wait_for(url, 1, settle=0)
    # down: connections are refused
    time.sleep(max(0.0, refused.at + 4.0 - time.time()))
    back = Receiver(port)  # the same endpoint on the same port, answering 200
    back.script(url, 200)
    back_at = time.time()
    with serving(back):
        (arrival,) = back.wait_for(url, 1, timeout=120, settle=3.0)  # once, and nothing after it
    assert arrival.body == refused.body
    assert arrival.headers["Service-Event-Id"] == refused.headers["Service-Event-Id"]
    verify(arrival.body, arrival.headers["Service-Signature"], [shop.secret])

    event = shop.event(charge["provider_payment_id"], "payment.succeeded")
    delivery = shop.delivery_once(delivery_id_for(event["id"], url), lambda d: d["status"] == "delivered")
    tried = delivery["attempts"]
    assert attempts(delivery)[0] == (503, None, 0) and attempts(delivery)[-1] == (200, None, 0)
    assert all(a[:2] == (None, "connection_error") for a in attempts(delivery)[1:-1])
    assert len(tried) >= 2 and delivery["attempt_count"] == len(tried)
    scale = 1 / 60
    for number, (previous, following) in enumerate(itertools.pairwise(tried), start=1):
        due = iso_seconds(previous["next_attempt_at"])
        waited = due - iso_seconds(previous["at"])
        assert -0.01 <= waited <= retry_ceiling(number) * scale + 1.0  # the schedule's wait, scaled
        assert iso_seconds(following["at"]) >= due - 0.5  # and it was honoured
    assert tried[-1]["next_attempt_at"] is None
    assert iso_seconds(tried[-1]["at"]) >= back_at - 0.5  # delivered after the receiver came back


def iso_seconds(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_in_test_mode_the_payer_answers_a_wallet_prompt_by_themselves(shop: Shop, receiver: Receiver) -> None:
    """docs/test-mode.md: a test wallet charge waiting on the payer's phone is approved by the
    simulated payer 3 s after the prompt appeared: polling shows it and its webhook is posted."""
    url = receiver.endpoint(200)
    charge = shop.charge("+258841234567", url)  # a number with no magic ending: the payer is prompted
    assert (charge["status"], charge["next_action"]["type"]) == ("requires_action", "poll")
    started = time.monotonic()
    while (read := shop.payment(charge["provider_payment_id"]))["status"] == "requires_action":
        assert time.monotonic() - started < 30, read
        time.sleep(0.5)
    assert (read["status"], read["money"]["amount"]) == ("succeeded", "150.00")
    prompted, answered = (
        datetime.fromisoformat(at.replace("Z", "+00:00")) for at in (charge["processed_at"], read["last_updated_at"])
    )
    assert answered - prompted >= timedelta(seconds=3)  # not at once: the payer took their 3 s
    (arrival,) = receiver.wait_for(url, 1)
    envelope = json.loads(arrival.body)
    assert (envelope["type"], envelope["resource_id"]) == ("payment.succeeded", charge["provider_payment_id"])
    assert envelope["data"]["object"]["status"] == "succeeded"
