"""Fairness between tenants, against in-process moto (docs/webhooks.md, "Fairness: the hot lane
and the slow lane"): a slow attempt in the hot lane marks its endpoint slow and moves its retry to
WebhookSlowQueue with the round's owner and the attempts made; a marked endpoint's next delivery
goes there unattempted (another account's does not); a quick answer in the slow lane clears the
mark; a round out of attempts in the slow lane reaches the dead-letter queue. The attempts are
recorded as ever. The lanes' waits are shortened here (the rules' constants) so that the test
takes no longer than its receivers' own delays."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.domain.webhooks import rules
from mzpay.domain.webhooks.rules import Lane, endpoint_key
from mzpay.webhooks import outbox, sender
from tests.integration.races import race
from tests.integration.support import REGION
from tests.integration.test_webhook_outbox import (
    ACCOUNT,
    dispatched,
    event_image,
    receive,
    roll_secret,
    stack,
    stored,
)
from tests.receivers import LoopbackServer, QuietHandler, serving

__all__ = ["stack"]  # the fixture, shared with the outbox's own tests

OTHER = "01JACC0000000000000000000B"


class SlowReceiver(LoopbackServer):
    """Answers 503 after `delay` seconds (0: at once), then 200 once told `recover()`."""

    path = "/hooks"

    def __init__(self, delay: float) -> None:
        super().__init__(_Handler)
        self.delay = delay
        self.status = 503
        self.requests: list[str] = []
        self.gate: threading.Event | None = None  # when set: each request is held until it opens


class _Handler(QuietHandler):
    server: SlowReceiver

    def do_POST(self) -> None:
        self.body()
        self.server.requests.append(self.headers["Service-Delivery-Id"])
        if self.server.gate is not None:
            self.server.gate.wait(10)
        time.sleep(self.server.delay)  # the receiver's slowness is the scenario
        self.answer(self.server.status)


@pytest.fixture
def slow_receiver() -> Iterator[SlowReceiver]:
    with serving(SlowReceiver(0.6), poll_interval=0.02) as server:
        yield server


@pytest.fixture
def lanes(stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch) -> ProvisionedStack:
    monkeypatch.setattr(rules, "SLOW_ATTEMPT_SECONDS", 0.4)  # the receiver's 0.6 s is slow
    monkeypatch.setattr(rules, "HOT_LANE_TIMEOUT_SECONDS", 3.0)
    monkeypatch.setattr(outbox.rules, "retry_delay", lambda attempt, base: 0 if attempt < rules.MAX_ATTEMPTS else None)
    return stack


def slow_lane(visibility: int = 30) -> list[dict[str, Any]]:
    """Messages on WebhookSlowQueue as its event source hands them to the sender."""
    queue = deps.delivery_queue()
    assert queue.slow_url is not None
    messages = boto3.client("sqs", region_name=REGION).receive_message(
        QueueUrl=queue.slow_url, MaxNumberOfMessages=10, AttributeNames=["All"], VisibilityTimeout=visibility
    )
    arn = f"arn:aws:sqs:{REGION}:123456789012:{queue.slow_url.rsplit('/', 1)[1]}"
    return [
        {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": m["Attributes"],
            "eventSourceARN": arn,
        }
        for m in messages.get("Messages", [])
    ]


def dead_letters() -> list[dict[str, Any]]:
    queue = deps.delivery_queue()
    assert queue.dead_letter_url is not None
    answer = boto3.client("sqs", region_name=REGION).receive_message(
        QueueUrl=queue.dead_letter_url, MaxNumberOfMessages=10
    )
    return [json.loads(m["Body"]) for m in answer.get("Messages", [])]


def attempts(delivery_id: str) -> list[tuple[int | None, str | None]]:
    return [(a["status_code"], a["error"]) for a in stored(delivery_id)["attempts"]]


def test_a_slow_attempt_moves_its_retry_to_the_slow_lane_and_marks_the_endpoint(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    roll_secret()
    delivery_id = outbox.dispatch(event_image(callback_url=slow_receiver.url))
    assert delivery_id is not None
    (record,) = receive()
    assert sender.send_batch([record]) == {"batchItemFailures": []}  # done in the hot lane: moved
    assert attempts(delivery_id) == [(503, None)] and stored(delivery_id)["status"] == "pending"
    assert receive(visibility=0) == []  # nothing left in the hot lane
    (moved,) = slow_lane()
    assert json.loads(moved["body"]) == {
        "delivery_id": delivery_id,
        "round": 0,
        "owner": record["messageId"],
        "attempts_before": 1,
    }
    until = deps.deliveries().slow_until("test", endpoint_key(ACCOUNT, slow_receiver.url))
    assert until is not None and until > time.time() + rules.SLOW_ENDPOINT_HOLD_SECONDS - 60

    slow_receiver.delay, slow_receiver.status = 0, 200  # back, and quick: the slow lane delivers
    message = sender.Received.from_record(moved, Lane.SLOW)
    assert (message.attempt_number, message.owned_by) == (2, record["messageId"])
    assert sender.send_batch([moved]) == {"batchItemFailures": []}
    assert attempts(delivery_id) == [(503, None), (200, None)] and stored(delivery_id)["status"] == "delivered"
    assert stored(delivery_id)["attempt_count"] == 2
    assert deps.deliveries().slow_until("test", endpoint_key(ACCOUNT, slow_receiver.url)) is None  # cleared


def test_a_marked_endpoints_delivery_goes_to_the_slow_lane_unattempted_and_another_accounts_does_not(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    roll_secret()
    roll_secret(OTHER)
    deps.deliveries().mark_slow("test", endpoint_key(ACCOUNT, slow_receiver.url), int(time.time()) + 600)
    mine = outbox.dispatch(event_image(callback_url=slow_receiver.url))
    theirs = outbox.dispatch(event_image(callback_url=slow_receiver.url, account_id=OTHER))
    slow_receiver.delay, slow_receiver.status = 0, 200
    records = receive()
    assert len(records) == 2
    assert sender.send_batch(records) == {"batchItemFailures": []}
    assert slow_receiver.requests == [theirs]  # the other account's endpoint is not marked: posted
    assert attempts(mine) == [] and stored(mine)["status"] == "pending"  # type: ignore[arg-type]
    assert "lease_token" not in stored(mine)  # type: ignore[arg-type]  # given back unused
    (moved,) = slow_lane()
    body = json.loads(moved["body"])
    assert body == {"delivery_id": mine, "round": 0, "owner": body["owner"], "attempts_before": 0}
    assert stored(mine)["owner"] == body["owner"]  # type: ignore[arg-type]  # the moved message owns the round
    (hot,) = [r for r in records if json.loads(r["body"])["delivery_id"] == mine]
    assert sender.send_batch([hot]) == {"batchItemFailures": []}  # a copy of the hot one: ignored
    assert slow_lane(visibility=0) == [] and attempts(mine) == []  # type: ignore[arg-type]
    assert sender.send_batch([moved]) == {"batchItemFailures": []}  # its first attempt, in the slow lane
    assert attempts(mine) == [(200, None)] and stored(mine)["status"] == "delivered"  # type: ignore[arg-type]


def moved_to_the_slow_lane(receiver: SlowReceiver) -> tuple[str | None, dict[str, Any]]:
    """A delivery to the slow receiver, its first attempt made in the hot lane: its id and the
    message that moved it to the slow lane."""
    roll_secret()
    delivery_id, record = dispatched(receiver.url)
    sender.send_batch([record])
    (moved,) = slow_lane()
    return delivery_id, moved


def test_a_copy_of_a_moved_message_sent_by_another_owner_is_dropped_unposted(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    delivery_id, moved = moved_to_the_slow_lane(slow_receiver)
    stranger = {**moved, "messageId": "x", "body": json.dumps({**json.loads(moved["body"]), "owner": "another"})}
    assert sender.send_batch([stranger]) == {"batchItemFailures": []}
    assert slow_receiver.requests == [delivery_id]  # only the hot lane's attempt was posted


def test_a_round_out_of_attempts_in_the_slow_lane_reaches_the_dead_letter_queue(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    delivery_id, moved = moved_to_the_slow_lane(slow_receiver)
    body = {**json.loads(moved["body"]), "attempts_before": rules.MAX_ATTEMPTS}  # its 20 attempts made
    assert sender.send_batch([{**moved, "body": json.dumps(body)}]) == {"batchItemFailures": []}
    assert dead_letters() == [{"delivery_id": delivery_id, "round": 0}]
    assert slow_receiver.requests == [delivery_id]  # no 21st attempt
    sender.dead_letter(json.dumps({"delivery_id": delivery_id, "round": 0}))  # the dead-letter handler
    assert stored(delivery_id)["status"] == "failed"  # type: ignore[arg-type]


def test_a_quick_failure_in_the_hot_lane_is_retried_there_as_before(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The receiver answers at once; on a saturated machine the attempt around it can still take
    # longer than the module's 0.4 s mark (seen in a three-worker run): here only a timeout is slow.
    monkeypatch.setattr(rules, "SLOW_ATTEMPT_SECONDS", rules.HOT_LANE_TIMEOUT_SECONDS)
    roll_secret()
    slow_receiver.delay = 0
    delivery_id, record = dispatched(slow_receiver.url)
    assert sender.send_batch([record]) == {"batchItemFailures": [{"itemIdentifier": record["messageId"]}]}
    assert attempts(delivery_id) == [(503, None)]  # type: ignore[arg-type]
    assert slow_lane() == []
    assert deps.deliveries().slow_until("test", endpoint_key(ACCOUNT, slow_receiver.url)) is None


def test_copies_of_a_message_to_a_marked_endpoint_racing_move_it_once_and_post_nothing(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    roll_secret()
    deps.deliveries().mark_slow("test", endpoint_key(ACCOUNT, slow_receiver.url), int(time.time()) + 600)
    delivery_id, record = dispatched(slow_receiver.url)
    message = sender.Received.from_record(record)
    with atomic_dynamodb():
        outcomes = race(3, lambda _: sender.attempt(message))  # the same message received 3 times
    assert outcomes == [("ok", True)] * 3
    (moved,) = slow_lane()  # one lease won: one move
    assert json.loads(moved["body"])["delivery_id"] == delivery_id
    assert slow_receiver.requests == [] and attempts(delivery_id) == []  # type: ignore[arg-type]
    assert "lease_token" not in stored(delivery_id)  # type: ignore[arg-type]


def test_the_endpoint_is_marked_slow_while_its_slow_attempt_is_still_under_way(
    lanes: ProvisionedStack, slow_receiver: SlowReceiver
) -> None:
    roll_secret()
    # Held until the test opens the gate, then slow on its own: the attempt lasts past the slow
    # threshold whenever the gate opens (opened at once on seeing the mark, it might not have).
    slow_receiver.gate, slow_receiver.delay = threading.Event(), rules.SLOW_ATTEMPT_SECONDS
    delivery_id, record = dispatched(slow_receiver.url)
    running = threading.Thread(target=sender.send_batch, args=([record],))
    running.start()
    endpoint = endpoint_key(ACCOUNT, slow_receiver.url)
    deadline = time.monotonic() + 10
    while deps.deliveries().slow_until("test", endpoint) is None:
        assert time.monotonic() < deadline, "the endpoint was not marked while its attempt hung"
        time.sleep(0.05)
    assert running.is_alive() and slow_receiver.requests == [delivery_id]  # the attempt still waits
    slow_receiver.gate.set()
    running.join(10)
    assert not running.is_alive() and attempts(delivery_id) == [(503, None)]  # type: ignore[arg-type]
    (moved,) = slow_lane()  # a slow attempt: its retry is in the slow lane
    assert json.loads(moved["body"])["attempts_before"] == 1
