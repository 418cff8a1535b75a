"""A poison event cannot stop webhook delivery (issue 11): through the local stack, an event that
can never be dispatched (a callback_url over 2,048 characters, an envelope over 256 KiB) is
skipped into WebhookDispatchFailureQueue, and events made right after it, test and live, reach a
real receiver within seconds. Operators list the skip and replay it: skipped again before the
repair, delivered once after it, and a second (or a racing) replay changes nothing.

The poison events are written into the events table directly, as an event stored before the
gateway bounded callback_url (or a hand-made one) would be: the gateway refuses such a charge now,
and the dispatcher must not rely on it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import delivery_id_for
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem
from tests.providers.mpesa_sandbox import MpesaSandbox

pytestmark = pytest.mark.e2e

SUCCEEDS = "+258840000000"
WITHIN_SECONDS = 15.0


@pytest.fixture(scope="module")
def sandbox() -> Iterator[MpesaSandbox]:
    with MpesaSandbox(api_key="live-api-key-of-the-merchant") as provider:
        yield provider


class Operator:
    def __init__(self, stack: RunningStack) -> None:
        self.stack = stack
        self.base = stack.state["regions"]["mz"]["management"]
        self.headers = {"Authorization": f"Bearer {stack.state['operator_token']}"}

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return requests.request(method, self.base + path, json=body, headers=self.headers, timeout=60)

    def failures(self) -> list[dict[str, Any]]:
        answer = self.call("GET", "/v1/webhook-dispatch-failures?limit=100")
        assert answer.status_code == 200, answer.text
        assert answer.json()["object"] == "list"
        return answer.json()["data"]  # type: ignore[no-any-return]

    def failure_of(self, event_id: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = [f for f in self.failures() if f["event_id"] == event_id]
            if found:
                (failure,) = found
                return failure
            assert time.monotonic() < deadline, f"no dispatch failure for event {event_id}"
            time.sleep(0.3)


@pytest.fixture(scope="module")
def shop(stack: RunningStack, sandbox: MpesaSandbox) -> Merchant:
    merchant = Merchant(stack)
    operator = Operator(stack)
    bound = operator.call(
        "PUT",
        f"/v1/accounts/{merchant.account['id']}/connector-bindings/live/mpesa",
        {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()},
    )
    assert bound.status_code == 200, bound.text
    return merchant


def secret(shop: Merchant, mode: str) -> str:
    return str(shop.account["webhook_secrets"][mode]["secret"])


def events_table(stack: RunningStack) -> str:
    return str(stack.state["resources"]["mz"]["EventsTable"])


def stored_event(stack: RunningStack, provider_payment_id: str, event_type: str) -> dict[str, Any]:
    items = stack.aws("dynamodb").query(
        TableName=events_table(stack),
        IndexName="gsi1",
        KeyConditionExpression="gsi1pk = :r",
        ExpressionAttributeValues={":r": {"S": f"RES#{provider_payment_id}"}},
    )["Items"]
    (item,) = [i for i in items if i["type"]["S"] == event_type]
    return item  # type: ignore[no-any-return]


def charge(shop: Merchant, mode: str, url: str) -> dict[str, Any]:
    key = shop.test_key if mode == "test" else shop.live_key
    answer = shop.charge(wallet(SUCCEEDS), key=key, callback_url=url)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "succeeded"
    return answer.json()  # type: ignore[no-any-return]


def poison_event(
    stack: RunningStack, shop: Merchant, mode: str, model: dict[str, Any], url: str, pad: int
) -> dict[str, Any]:
    """A copy of a real payment.succeeded event item under a new id (in `mode`), delivered to
    `url`, its data.object padded with `pad` characters: written to the events table."""
    event_id = str(ULID())
    item = json.loads(json.dumps(model))
    item["id"] = {"S": event_id}
    item["pk"] = {"S": f"ACC#{shop.account['id']}#{mode}"}
    item["mode"] = {"S": mode}
    item["sk"] = item["gsi1sk"] = {"S": f"EVT#{event_id}"}
    item["callback_url"] = {"S": url}
    if pad:
        item["data"]["M"]["object"]["M"]["padding"] = {"S": "x" * pad}
    stack.aws("dynamodb").put_item(TableName=events_table(stack), Item=item)
    return {"id": event_id, "pk": item["pk"]["S"], "sk": item["sk"]["S"]}


CASES = {
    # a callback_url of 3,000 characters (test mode), an envelope of ~300 KB (live mode)
    "url_too_long": ("test", 3_000, 0, "callback_url_too_long"),
    "payload_too_large": ("live", 0, 300_000, "payload_too_large"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_poison_event_is_skipped_and_later_events_are_delivered_then_replayed_after_repair(
    stack: RunningStack, shop: Merchant, receiver: Receiver, case: str
) -> None:
    mode, url_pad, data_pad, reason = CASES[case]
    operator = Operator(stack)
    model_url = receiver.endpoint(200)
    model = stored_event(stack, charge(shop, mode, model_url)["provider_payment_id"], "payment.succeeded")
    receiver.wait_for(model_url, 1, settle=0)

    poison_url = receiver.endpoint(200)
    long_url = poison_url + ("?pad=" + "x" * url_pad if url_pad else "")
    poison = poison_event(stack, shop, mode, model, long_url, data_pad)
    started = time.monotonic()
    after = {m: receiver.endpoint(200) for m in ("test", "live")}  # events right behind it, both modes
    made = {m: charge(shop, m, after[m]) for m in ("test", "live")}
    for m in ("test", "live"):
        (arrival,) = receiver.wait_for(after[m], 1, timeout=WITHIN_SECONDS, settle=0)
        verify(arrival.body, arrival.headers["Service-Signature"], [secret(shop, m)])
        assert json.loads(arrival.body)["resource_id"] == made[m]["provider_payment_id"]
    assert time.monotonic() - started < WITHIN_SECONDS

    failure = operator.failure_of(poison["id"])
    assert failure == {
        "object": "webhook_dispatch_failure",
        "id": failure["id"],
        "kind": "skipped",
        "sent_at": failure["sent_at"],
        "reason": reason,
        "step": "webhook",
        "detail": failure["detail"],
        "event_id": poison["id"],
        "event_type": "payment.succeeded",
        "account_id": shop.account["id"],
        "mode": mode,
        "event_key": {"pk": poison["pk"], "sk": poison["sk"]},
        "stream": failure["stream"],
    }
    assert "at most" in failure["detail"] and failure["sent_at"].endswith("Z")
    assert failure["stream"]["event_source_arn"].startswith("arn:aws:dynamodb:")
    assert receiver.at(long_url) == []
    deliveries = operator.call("GET", f"/v1/accounts/{shop.account['id']}/webhook-deliveries?page_size=100").json()
    assert poison["id"] not in [d["event_id"] for d in deliveries["data"]]  # no delivery item at all

    # Replayed before the repair: skipped again, and the message stays for the next replay.
    again = operator.call("POST", f"/v1/webhook-dispatch-failures/{failure['id']}/replay")
    assert again.status_code == 200, again.text
    assert again.json()["object"] == "webhook_dispatch_replay" and again.json()["removed"] is False
    assert again.json()["events"] == [
        {
            "event_id": poison["id"],
            "event_type": "payment.succeeded",
            "delivery_id": None,
            "outcome": "skipped",
            "reason": reason,
        }
    ]
    assert operator.failure_of(poison["id"])["id"] == failure["id"]

    # The operator repairs the stored event; two racing replays deliver it once.
    repair = (
        {"UpdateExpression": "SET callback_url = :u", "ExpressionAttributeValues": {":u": {"S": poison_url}}}
        if url_pad
        else {"UpdateExpression": "REMOVE #d.#o.padding", "ExpressionAttributeNames": {"#d": "data", "#o": "object"}}
    )
    stack.aws("dynamodb").update_item(
        TableName=events_table(stack), Key={"pk": {"S": poison["pk"]}, "sk": {"S": poison["sk"]}}, **repair
    )
    delivery_url = poison_url if url_pad else long_url
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(lambda _: operator.call("POST", f"/v1/webhook-dispatch-failures/{failure['id']}/replay"), range(2))
        )
    assert sorted(a.status_code for a in answers) in ([200, 404], [200, 200])
    expected_delivery = delivery_id_for(poison["id"], delivery_url)
    for answer in answers:
        if answer.status_code == 404:
            assert answer.json() == problem(
                404, "Not Found", "not_found", "No such webhook dispatch failure (replayed already?)."
            )
            continue
        assert answer.json()["events"] == [
            {
                "event_id": poison["id"],
                "event_type": "payment.succeeded",
                "delivery_id": expected_delivery,
                "outcome": "dispatched",
                "reason": None,
            }
        ]
    assert any(a.status_code == 200 and a.json()["removed"] is True for a in answers)
    (arrival,) = receiver.wait_for(delivery_url, 1, timeout=WITHIN_SECONDS, settle=2.0)  # once
    assert arrival.headers["Service-Event-Id"] == poison["id"]
    assert arrival.headers["Service-Delivery-Id"] == expected_delivery
    verify(arrival.body, arrival.headers["Service-Signature"], [secret(shop, mode)])
    assert [f for f in operator.failures() if f["event_id"] == poison["id"]] == []

    later = operator.call("POST", f"/v1/webhook-dispatch-failures/{failure['id']}/replay")
    assert later.status_code == 404
    assert later.json()["code"] == "not_found"
    time.sleep(1.0)
    assert len(receiver.at(delivery_url)) == 1


def test_a_lambda_on_failure_message_is_replayed_from_the_stream_or_reported_expired(
    stack: RunningStack, shop: Merchant, receiver: Receiver
) -> None:
    """A stream batch the event source mapping gave up on (its on-failure record names the shard
    and sequence range): replay reads those records from the stream and dispatches them; a range
    the stream no longer holds is reported expired."""
    url = receiver.endpoint(200)
    made = charge(shop, "test", url)
    (first,) = receiver.wait_for(url, 1, settle=0)
    event_id = first.headers["Service-Event-Id"]
    streams = stack.aws("dynamodbstreams")
    arn = stack.aws("dynamodb").describe_table(TableName=events_table(stack))["Table"]["LatestStreamArn"]
    (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
    records, token = [], iterator["ShardIterator"]
    while token:
        page = streams.get_records(ShardIterator=token, Limit=1000)
        records += page["Records"]
        token = page.get("NextShardIterator") if page["Records"] else None
    (record,) = [r for r in records if r["dynamodb"].get("NewImage", {}).get("id", {}).get("S") == event_id]
    sequence = record["dynamodb"]["SequenceNumber"]
    # The delivery made in the first play is forgotten, as if that play had failed.
    stack.aws("dynamodb").delete_item(
        TableName=stack.state["resources"]["mz"]["WebhookDeliveriesTable"],
        Key={"pk": {"S": f"DLV#{delivery_id_for(event_id, url)}"}, "sk": {"S": "DELIVERY"}},
    )
    queue = stack.state["resources"]["mz"]["WebhookDispatchFailureQueue"]

    def on_failure(shard_id: str, start: str, end: str, stream_arn: str = arn) -> dict[str, Any]:
        return {
            "requestContext": {
                "requestId": str(ULID()),
                "functionArn": "arn:aws:lambda:af-south-1:123456789012:function:mzpay-mz-WebhookDispatcherFunction",
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": 201,
            },
            "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
            "version": "1.0",
            "timestamp": "2026-11-21T07:39:00.000Z",
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": start,
                "endSequenceNumber": end,
                "approximateArrivalOfFirstRecord": "2026-11-21T07:38:59Z",
                "approximateArrivalOfLastRecord": "2026-11-21T07:38:59Z",
                "batchSize": 1,
                "streamArn": stream_arn,
            },
        }

    sqs = stack.aws("sqs")
    kept = sqs.send_message(QueueUrl=queue, MessageBody=json.dumps(on_failure(shard["ShardId"], sequence, sequence)))
    gone_stream = arn.replace(f"table/{events_table(stack)}/", "table/a-table-deleted-since/")  # no longer readable
    gone = sqs.send_message(
        QueueUrl=queue, MessageBody=json.dumps(on_failure(shard["ShardId"], sequence, sequence, gone_stream))
    )
    operator = Operator(stack)
    listed = {f["id"]: f for f in operator.failures()}
    assert listed[kept["MessageId"]]["kind"] == "stream_batch"
    assert listed[kept["MessageId"]]["reason"] == "RetryAttemptsExhausted"
    assert listed[kept["MessageId"]]["stream"] == {
        "stream_arn": arn,
        "shard_id": shard["ShardId"],
        "start_sequence_number": sequence,
        "end_sequence_number": sequence,
        "batch_size": 1,
        "approximate_arrival_of_first_record": "2026-11-21T07:38:59Z",
        "approximate_arrival_of_last_record": "2026-11-21T07:38:59Z",
    }

    replayed = operator.call("POST", f"/v1/webhook-dispatch-failures/{kept['MessageId']}/replay")
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["removed"] is True
    assert replayed.json()["events"] == [
        {
            "event_id": event_id,
            "event_type": "payment.succeeded",
            "delivery_id": delivery_id_for(event_id, url),
            "outcome": "dispatched",
            "reason": None,
        }
    ]
    arrivals = receiver.wait_for(url, 2, timeout=WITHIN_SECONDS)  # the forgotten delivery, made again
    assert [a.headers["Service-Event-Id"] for a in arrivals] == [event_id, event_id]
    assert json.loads(arrivals[1].body)["resource_id"] == made["provider_payment_id"]

    expired = operator.call("POST", f"/v1/webhook-dispatch-failures/{gone['MessageId']}/replay")
    assert expired.status_code == 200, expired.text
    assert expired.json()["removed"] is True
    assert expired.json()["events"] == [
        {"event_id": None, "event_type": None, "delivery_id": None, "outcome": "expired", "reason": None}
    ]
    assert {kept["MessageId"], gone["MessageId"]}.isdisjoint(f["id"] for f in operator.failures())


def test_dispatch_failures_are_operators_only_and_unknown_ids_are_not_found(stack: RunningStack) -> None:
    operator = Operator(stack)
    for message_id in ("00000000-0000-4000-8000-000000000000", "not-a-message-id"):
        answer = operator.call("POST", f"/v1/webhook-dispatch-failures/{message_id}/replay")
        assert answer.status_code == 404
        assert answer.json() == problem(
            404, "Not Found", "not_found", "No such webhook dispatch failure (replayed already?)."
        )
    bad = operator.call("GET", "/v1/webhook-dispatch-failures?limit=0")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
    anonymous = requests.get(f"{operator.base}/v1/webhook-dispatch-failures", timeout=30)
    assert anonymous.status_code == 401
