"""Poison records against in-process moto (the stack of template.yaml): what DynamoDB itself
refuses is classified permanent and skipped into the failure queue with the event's key, a
transient fault raises (the stream plays the record again), and a delivery keeps its most recent
attempts only."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.domain.webhooks.rules import delivery_id_for
from mzpay.fanout import stream as fanout
from mzpay.webhooks import outbox, sender
from tests.integration.support import REGION
from tests.integration.test_webhook_outbox import (  # noqa: F401 - fixtures
    event_image,
    receive,
    receiver_factory,
    roll_secret,
    stack,
    stored,
)


@pytest.fixture
def dispatcher(stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch) -> ProvisionedStack:  # noqa: F811
    for name, value in stack.functions["WebhookDispatcherFunction"].environment.items():
        monkeypatch.setenv(name, value)
    deps.reset()
    return stack


def failure_messages() -> list[dict[str, Any]]:
    answer = boto3.client("sqs", region_name=REGION).receive_message(
        QueueUrl=deps.dispatch_failures().url, MaxNumberOfMessages=10
    )
    return [json.loads(m["Body"]) for m in answer.get("Messages", [])]


def test_an_item_dynamodb_refuses_is_skipped_with_its_key_and_no_delivery(
    dispatcher: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outbox, "MAX_PAYLOAD_BYTES", 10 * 1024 * 1024)  # as if the cap were wrong
    image = event_image()
    image["data"]["object"]["padding"] = "x" * 420_000  # the delivery item would pass 400 KB
    result = fanout.dispatch_event(image)
    assert result.delivery_id is None
    (skip,) = result.skipped
    assert (skip.step, skip.reason) == ("webhook", "rejected_by_dynamodb")  # moto's own ValidationException
    assert deps.deliveries().get(delivery_id_for(image["id"], image["callback_url"])) is None
    fanout.skip(image, skip, {"sequence_number": "42"})
    (message,) = failure_messages()
    assert message["event_key"] == {"pk": image["pk"], "sk": image["sk"]}
    assert (message["reason"], message["event_id"], message["stream"]) == (
        "rejected_by_dynamodb",
        image["id"],
        {"sequence_number": "42"},
    )
    assert receive() == []  # nothing queued for the sender


def test_an_over_long_url_is_skipped_before_anything_is_written(dispatcher: ProvisionedStack) -> None:
    image = event_image(callback_url="https://shop.example/" + "a" * 3000)
    result = fanout.dispatch_event(image)
    assert (result.delivery_id, [(s.step, s.reason) for s in result.skipped]) == (
        None,
        [("webhook", "callback_url_too_long")],
    )
    assert deps.deliveries().get(delivery_id_for(image["id"], image["callback_url"])) is None


def test_a_transient_fault_raises_so_that_the_record_is_played_again(
    dispatcher: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def throttled(delivery: dict[str, Any]) -> bool:
        raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException"}}, "PutItem")

    monkeypatch.setattr(deps.deliveries(), "create", throttled)
    with pytest.raises(ClientError):
        fanout.dispatch_event(event_image())
    assert failure_messages() == []


def test_a_payout_event_without_a_payout_id_skips_its_settlement_only(dispatcher: ProvisionedStack) -> None:
    image = event_image("payout.approved", callback_url=None)
    image["resource_id"] = ""
    result = fanout.dispatch_event(image)
    assert [(s.step, s.reason) for s in result.skipped] == [("settlement", "malformed_event")]


def test_a_delivery_keeps_its_most_recent_attempts_only(
    dispatcher: ProvisionedStack,
    receiver_factory: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outbox, "MAX_ATTEMPTS_KEPT", 5)
    roll_secret()
    receiver = receiver_factory(503)
    delivery_id = outbox.dispatch(event_image(callback_url=receiver.url))
    assert delivery_id is not None
    (record,) = receive()
    for count in range(1, 8):
        message = sender.Received(record["messageId"], record["receiptHandle"], delivery_id, 0, count)
        assert sender.attempt(message) is False
    delivery = stored(delivery_id)
    assert delivery["attempt_count"] == 7 and len(receiver.requests) == 7
    assert len(delivery["attempts"]) == 5
    assert [a["at"] for a in delivery["attempts"]] == sorted(a["at"] for a in delivery["attempts"])
    assert all(a["status_code"] == 503 and a["next_attempt_at"] for a in delivery["attempts"])
