"""The outbox against in-process moto (the stack provisioned from template.yaml): the dispatcher's
idempotency when a stream record is played twice or raced, its recovery after a failed or dead
run, the sender's leases and outcomes with a real receiver on loopback, dead letters, and
operators' list and replay (two concurrent replays: one wins)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import pytest

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.webhooks.events import new_event
from mzpay.domain.webhooks.rules import DeliveryStatus, delivery_id_for
from mzpay.domain.webhooks.secrets import SecretVersion, generate_secret
from mzpay.operators import webhook_deliveries
from mzpay.store import aws
from mzpay.store.accounts import WebhookSecrets
from mzpay.store.events import event_item
from mzpay.store.webhook_deliveries import delivery_key, plain
from mzpay.webhooks import outbox, sender, verify
from tests.integration.races import race
from tests.integration.support import REGION, provisioned_stack, reset_mzpay_caches
from tests.receivers import LoopbackServer, QuietHandler, serving

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT = "01JACC0000000000000000000A"


def setting(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """Sets one of the outbox's settings; the caches are cleared, as the settings are read once per
    execution environment."""
    monkeypatch.setenv(name, value)
    _clear_caches()


def _clear_caches() -> None:
    reset_mzpay_caches()


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack() as provisioned:
        sender = provisioned.functions["WebhookSenderFunction"].environment
        management = provisioned.functions["ManagementWebhooksFunction"].environment
        for name, value in {**management, **sender}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("WEBHOOK_RETRY_BASE_SECONDS", "0")
        monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
        _clear_caches()
        yield provisioned
        _clear_caches()


# ---------------------------------------------------------------- helpers
def stored(delivery_id: str) -> dict[str, Any]:
    """The delivery's item as stored (the table's own attributes, numbers as ints)."""
    item = aws.table(deps.deliveries().table.name).get_item(Key=delivery_key(delivery_id), ConsistentRead=True)
    assert "Item" in item
    return plain(item["Item"])  # type: ignore[no-any-return]


def all_deliveries() -> list[dict[str, Any]]:
    table = boto3.resource("dynamodb", region_name=REGION).Table("mzpay-mz-WebhookDeliveriesTable")
    return table.scan()["Items"]  # type: ignore[no-any-return]


def receive(visibility: int = 30) -> list[dict[str, Any]]:
    """Messages on WebhookQueue as Lambda's SQS event source hands them to the sender."""
    messages = boto3.client("sqs", region_name=REGION).receive_message(
        QueueUrl=deps.delivery_queue().url,
        MaxNumberOfMessages=10,
        AttributeNames=["All"],
        VisibilityTimeout=visibility,
    )
    return [
        {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": m["Attributes"],
        }
        for m in messages.get("Messages", [])
    ]


def queued_bodies() -> list[dict[str, Any]]:
    return [json.loads(record["body"]) for record in receive()]


def event_image(
    event_type: str = "payment.succeeded",
    callback_url: str | None = "https://shop.example/hooks",
    account_id: str = ACCOUNT,
) -> dict[str, Any]:
    """An event item as the events table's stream shows it (NEW_IMAGE, deserialised)."""
    event = new_event(
        event_type,
        account_id,
        "test",
        "payment",
        "01JPAY0000000000000000000A",
        {"object": {"status": "succeeded", "money": {"amount": "150.00", "currency": "MZN"}, "attempt": Decimal(2)}},
        "2026-11-21T07:38:59Z",
        callback_url,
    )
    return event_item(event)


class Receiver(LoopbackServer):
    """A merchant's endpoint on loopback answering the statuses it is told, in order."""

    path = "/hooks"

    def __init__(self, statuses: list[int]) -> None:
        super().__init__(_Handler)
        self.statuses = statuses
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()


class _Handler(QuietHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.body()
        with self.server.lock:
            self.server.requests.append((dict(self.headers), body))
            status = self.server.statuses.pop(0) if len(self.server.statuses) > 1 else self.server.statuses[0]
        time.sleep(0.05)
        self.answer(status)


@pytest.fixture
def receiver_factory() -> Iterator[Any]:
    with ExitStack() as servers:

        def start(*statuses: int) -> Receiver:
            return servers.enter_context(serving(Receiver(list(statuses)), poll_interval=0.02))

        yield start


def dispatched(callback_url: str) -> tuple[str | None, dict[str, Any]]:
    """An event dispatched to `callback_url`: its delivery id, and the one queue message that carries it."""
    delivery_id = outbox.dispatch(event_image(callback_url=callback_url))
    (record,) = receive()
    return delivery_id, record


def roll_secret(account_id: str = ACCOUNT, mode: str = "test") -> str:
    """A current webhook secret for (account, mode), stored as operators' roll stores it."""
    store = WebhookSecrets.from_env()
    secret = generate_secret()
    version = SecretVersion("01JSEC0000000000000000000A", store.encrypt(secret, account_id), datetime.now(UTC), None)
    store.write(account_id, mode, [version], 0)
    return secret


# ---------------------------------------------------------------- dispatcher
def test_a_stream_record_played_twice_makes_one_delivery_and_one_message(stack: ProvisionedStack) -> None:
    image = event_image()
    first = outbox.dispatch(image)
    assert outbox.dispatch(image) == first == delivery_id_for(image["id"], "https://shop.example/hooks")
    assert len(all_deliveries()) == 1
    assert queued_bodies() == [{"delivery_id": first, "round": 0}]
    delivery = stored(first)  # type: ignore[arg-type]
    assert delivery["status"] == "pending" and delivery["round"] == 0 and delivery["attempts"] == []
    assert delivery["enqueued_at"] and "enqueue_lease" not in delivery
    assert json.loads(delivery["payload"]) == {
        "id": image["id"],
        "type": "payment.succeeded",
        "created_at": "2026-11-21T07:38:59Z",
        "account_id": "01JACC0000000000000000000A",
        "mode": "test",
        "api_version": image["api_version"],
        "resource": "payment",
        "resource_id": "01JPAY0000000000000000000A",
        "data": {"object": {"status": "succeeded", "money": {"amount": "150.00", "currency": "MZN"}, "attempt": 2}},
    }


def test_racing_plays_of_one_stream_record_make_one_delivery_and_one_message(stack: ProvisionedStack) -> None:
    image = event_image()
    with atomic_dynamodb():
        outcomes = race(4, lambda _: outbox.dispatch(image, wait_seconds=20))
    expected = delivery_id_for(image["id"], image["callback_url"])
    assert outcomes == [("ok", expected)] * 4
    assert len(all_deliveries()) == 1
    assert queued_bodies() == [{"delivery_id": expected, "round": 0}]


@pytest.mark.parametrize(
    "image",
    [
        event_image("payment.created"),
        event_image("payment.requires_action"),
        event_image("transaction.rejected"),
        event_image("payment.succeeded", callback_url=None),
        {**event_image(), "sk": "TOTAL"},
    ],
    ids=["created", "requires_action", "rejected", "no_callback_url", "not_an_event"],
)
def test_events_that_are_not_posted_make_nothing(stack: ProvisionedStack, image: dict[str, Any]) -> None:
    assert outbox.dispatch(image) is None
    assert all_deliveries() == []
    assert queued_bodies() == []


def test_a_run_that_could_not_queue_fails_and_the_next_play_queues_once(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = event_image()
    real_send = deps.delivery_queue().send

    def unavailable(*args: Any) -> None:
        raise ConnectionError("SQS is unreachable")

    monkeypatch.setattr(deps.delivery_queue(), "send", unavailable)
    with pytest.raises(ConnectionError):
        outbox.dispatch(image)
    delivery_id = delivery_id_for(image["id"], image["callback_url"])
    left = stored(delivery_id)
    assert left["status"] == "pending" and left["attempts"] == []
    assert "enqueued_at" not in left and "enqueue_lease" not in left  # the lease was given back
    monkeypatch.setattr(deps.delivery_queue(), "send", real_send)
    assert outbox.dispatch(image, wait_seconds=0) == delivery_id  # no waiting: nobody holds it
    assert queued_bodies() == [{"delivery_id": delivery_id, "round": 0}]
    assert len(all_deliveries()) == 1


def test_a_run_that_died_holding_the_lease_is_taken_over_once_it_expires(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = event_image()

    class Died(BaseException):
        """The execution environment vanished: no except clause ran."""

    def die(*args: Any) -> None:
        raise Died

    with monkeypatch.context() as patched:
        patched.setattr(deps.delivery_queue(), "send", die)
        with pytest.raises(Died):
            outbox.dispatch(image)
    delivery_id = delivery_id_for(image["id"], image["callback_url"])
    assert stored(delivery_id)["enqueue_lease"]  # still held by the dead run
    with pytest.raises(outbox.DispatchInProgress):  # while it could still be alive: wait, then retry
        outbox.dispatch(image, wait_seconds=0.3)
    assert queued_bodies() == []
    later = time.time() + outbox.ENQUEUE_LEASE_SECONDS + 1
    assert outbox.dispatch(image, clock=lambda: later) == delivery_id
    assert queued_bodies() == [{"delivery_id": delivery_id, "round": 0}]


# ---------------------------------------------------------------- sender
def test_an_attempt_posts_the_signed_envelope_and_records_delivery(
    stack: ProvisionedStack, receiver_factory: Any
) -> None:
    secret = roll_secret()
    receiver = receiver_factory(200)
    delivery_id, record = dispatched(receiver.url)
    assert sender.send_batch([record]) == {"batchItemFailures": []}
    ((headers, body),) = receiver.requests
    delivery = stored(delivery_id)  # type: ignore[arg-type]
    assert body == delivery["payload"].encode()
    assert verify(body, headers["Service-Signature"], [secret]) > 0
    assert headers["Service-Event-Id"] == json.loads(body)["id"]
    assert headers["Service-Delivery-Id"] == delivery_id
    assert delivery["status"] == "delivered" and delivery["delivered_at"]
    assert delivery["attempt_count"] == 1
    (attempt,) = delivery["attempts"]
    assert attempt["status_code"] == 200 and attempt["error"] is None and attempt["round"] == 0
    assert "lease_token" not in delivery and "next_attempt_at" not in delivery


def test_a_failed_attempt_is_recorded_and_the_message_hidden_for_its_backoff(
    stack: ProvisionedStack, receiver_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    roll_secret()
    receiver = receiver_factory(503)
    setting(monkeypatch, "WEBHOOK_RETRY_BASE_SECONDS", "300")
    monkeypatch.setattr(outbox.rules, "retry_delay", lambda attempt, base: 120 if (attempt, base) == (1, 300) else None)
    delivery_id, record = dispatched(receiver.url)
    assert sender.send_batch([record]) == {"batchItemFailures": [{"itemIdentifier": record["messageId"]}]}
    delivery = stored(delivery_id)  # type: ignore[arg-type]
    assert delivery["status"] == "pending" and delivery["last_error"] == "http_503"
    assert [(a["status_code"], a["error"]) for a in delivery["attempts"]] == [(503, None)]
    assert delivery["next_attempt_at"] > delivery["attempts"][0]["at"]
    assert receive(visibility=0) == []  # hidden for its 120 s backoff (not the 30 s of the receive)


def test_copies_of_a_message_never_post_twice(stack: ProvisionedStack, receiver_factory: Any) -> None:
    roll_secret()
    receiver = receiver_factory(200)
    delivery_id, record = dispatched(receiver.url)
    message = sender.Received.from_record(record)
    with atomic_dynamodb():
        outcomes = race(3, lambda _: sender.attempt(message))  # the same message received 3 times
    assert outcomes == [("ok", True)] * 3
    assert len(receiver.requests) == 1
    stranger = sender.Received("another-message", "handle", delivery_id, 0, 1)  # type: ignore[arg-type]
    assert sender.attempt(stranger) is True  # delivered: nothing left to do
    assert len(receiver.requests) == 1 and stored(delivery_id)["attempt_count"] == 1  # type: ignore[arg-type]


def test_a_message_owned_by_another_is_dropped_unposted(stack: ProvisionedStack, receiver_factory: Any) -> None:
    roll_secret()
    receiver = receiver_factory(500)
    delivery_id, record = dispatched(receiver.url)
    assert sender.attempt(sender.Received.from_record(record)) is False  # owns round 0 now
    duplicate = sender.Received("a-second-copy-sent-by-a-dead-dispatcher", "h", delivery_id, 0, 1)  # type: ignore[arg-type]
    assert sender.attempt(duplicate) is True
    assert len(receiver.requests) == 1


def test_410_stops_and_a_refused_address_fails_without_retries(
    stack: ProvisionedStack, receiver_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    roll_secret()
    gone = receiver_factory(410)
    stopped = outbox.dispatch(event_image(callback_url=gone.url))
    setting(monkeypatch, "WEBHOOK_ALLOW_LOOPBACK", "false")
    refused = outbox.dispatch(event_image(callback_url="http://169.254.169.254/latest/meta-data/"))
    setting(monkeypatch, "WEBHOOK_ALLOW_LOOPBACK", "true")
    assert sender.send_batch(receive()) == {"batchItemFailures": []}
    assert stored(stopped)["status"] == "stopped" and stored(stopped)["stopped_at"]  # type: ignore[arg-type]
    blocked = stored(refused)  # type: ignore[arg-type]
    assert blocked["status"] == "failed" and blocked["last_error"] == "ssrf_blocked"
    assert [(a["status_code"], a["error"]) for a in blocked["attempts"]] == [(None, "ssrf_blocked")]


def test_without_a_signing_secret_the_attempt_fails_and_is_retried(
    stack: ProvisionedStack, receiver_factory: Any
) -> None:
    receiver = receiver_factory(200)
    delivery_id, record = dispatched(receiver.url)
    assert sender.send_batch([record])["batchItemFailures"] == [{"itemIdentifier": record["messageId"]}]
    assert receiver.requests == []
    assert stored(delivery_id)["last_error"] == "no_signing_secret"  # type: ignore[arg-type]


# ---------------------------------------------------------------- dead letters and replays
def failed_delivery(receiver_url: str = "https://shop.example/hooks") -> str:
    delivery_id = outbox.dispatch(event_image(callback_url=receiver_url))
    assert delivery_id is not None
    receive()  # the sender's message: out of attempts, it reaches the dead-letter queue
    sender.dead_letter(json.dumps({"delivery_id": delivery_id, "round": 0}))
    assert stored(delivery_id)["status"] == "failed"
    return delivery_id


def test_a_dead_letter_fails_its_round_only(stack: ProvisionedStack) -> None:
    delivery_id = failed_delivery()
    item = stored(delivery_id)
    assert item["failed_at"] and item["gsi2pk"].endswith("#failed")
    webhook_deliveries.replay(delivery_id)
    sender.dead_letter(json.dumps({"delivery_id": delivery_id, "round": 0}))  # a stale copy of round 0
    assert stored(delivery_id)["status"] == "pending"
    sender.dead_letter("not json")  # dropped, logged


def test_racing_replays_one_wins_and_the_other_is_invalid_state(stack: ProvisionedStack) -> None:
    delivery_id = failed_delivery()
    with atomic_dynamodb():
        outcomes = race(2, lambda _: webhook_deliveries.replay(delivery_id).wire())
    wins = [value for kind, value in outcomes if kind == "ok"]
    losses = [value for kind, value in outcomes if kind == "error"]
    assert len(wins) == 1 and len(losses) == 1
    assert wins[0]["status"] == "pending" and wins[0]["round"] == 1 and wins[0]["replayed_at"]
    assert isinstance(losses[0], ServiceError) and (losses[0].status, losses[0].code) == (409, "invalid_state")
    assert queued_bodies() == [{"delivery_id": delivery_id, "round": 1}]
    with pytest.raises(ServiceError) as pending:
        webhook_deliveries.replay(delivery_id)
    assert (pending.value.status, pending.value.code) == (409, "invalid_state")


def test_a_replay_whose_message_cannot_be_queued_is_undone(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    delivery_id = failed_delivery()

    def unavailable(*args: Any) -> None:
        raise ConnectionError("SQS is unreachable")

    with monkeypatch.context() as patched:
        patched.setattr(deps.delivery_queue(), "send", unavailable)
        with pytest.raises(ConnectionError):
            webhook_deliveries.replay(delivery_id)
    item = stored(delivery_id)
    assert item["status"] == "failed" and item["gsi2pk"].endswith("#failed")
    assert webhook_deliveries.replay(delivery_id).round == 2  # the undone round stays counted


def test_an_unknown_delivery_is_not_found(stack: ProvisionedStack) -> None:
    for delivery_id in ("01JNOPE000000000000000000A", "not-an-id", "x" * 3000):
        with pytest.raises(ServiceError) as missing:
            webhook_deliveries.delivery(delivery_id)
        assert (missing.value.status, missing.value.code) == (404, "not_found")


def test_an_accounts_deliveries_list_newest_first_by_status_with_a_cursor(stack: ProvisionedStack) -> None:
    account_id = access.create_account("Mercearia", "mz").id
    ids = [outbox.dispatch(event_image(account_id=account_id)) for _ in range(3)]
    failed = failed_delivery_of(account_id)
    outbox.dispatch(event_image(account_id=ACCOUNT))  # another account's
    first = webhook_deliveries.account_deliveries(account_id, None, 2, None).wire()
    assert [d["id"] for d in first["data"]] == [failed, ids[2]]
    assert first["has_more"] is True and first["data"][0]["object"] == "webhook_delivery"
    assert "attempts" not in first["data"][0]
    second = webhook_deliveries.account_deliveries(account_id, None, 2, first["next_page_token"]).wire()
    assert [d["id"] for d in second["data"]] == [ids[1], ids[0]]
    assert (second["has_more"], second["next_page_token"]) == (False, None)
    only_failed = webhook_deliveries.account_deliveries(account_id, DeliveryStatus.FAILED, 50, None).wire()
    assert [d["id"] for d in only_failed["data"]] == [failed]
    pending = webhook_deliveries.account_deliveries(account_id, DeliveryStatus.PENDING, 50, None).wire()
    assert [d["id"] for d in pending["data"]] == ids[::-1]
    # not a token; a damaged one; one of the unfiltered list (another index)
    for token in ("garbage", first["next_page_token"][:-3], first["next_page_token"]):
        with pytest.raises(ServiceError) as bad:
            webhook_deliveries.account_deliveries(account_id, DeliveryStatus.FAILED, 2, token)
        assert (bad.value.status, bad.value.code) == (400, "invalid_request")
        assert [e.field for e in bad.value.errors] == ["page_token"]
    with pytest.raises(ServiceError) as unknown:
        webhook_deliveries.account_deliveries("01JNOPE000000000000000000A", None, 2, None)
    assert unknown.value.status == 404


def failed_delivery_of(account_id: str) -> str:
    delivery_id = outbox.dispatch(event_image(account_id=account_id))
    assert delivery_id is not None
    sender.dead_letter(json.dumps({"delivery_id": delivery_id, "round": 0}))
    return delivery_id
