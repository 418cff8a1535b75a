"""The local stack plays API Gateway, Lambda and event source mappings faithfully
(tests/fixtures/devstack/template.yaml, over real HTTP and real moto)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.polling import eventually as poll

pytestmark = pytest.mark.e2e


def base(stack: RunningStack) -> str:
    return stack.state["regions"]["mz"]["echo"]


def sink_keys(stack: RunningStack) -> set[str]:
    table = stack.state["resources"]["mz"]["SinkTable"]
    items = stack.aws("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"]
    return {item["pk"]["S"] for item in items}


def eventually(check: Callable[[], bool], timeout: float = 20) -> None:
    assert poll(check, bool, timeout), "condition not reached in time"


def test_proxy_event_reaches_the_function_in_rest_v1_shape(fixture_stack: RunningStack) -> None:
    response = requests.post(
        base(fixture_stack) + "/echo/01JABC?a=1&a=2",
        data='{"x": 1}',
        headers={"Content-Type": "application/json", "X-Custom": "v"},
        timeout=10,
    )
    assert response.status_code == 200
    answer = response.json()
    event = answer["event"]
    assert answer["function"] == "fixture-mz-EchoFunction"
    assert 0 < answer["remaining_ms"] <= 1000
    assert event["resource"] == "/echo/{id}"
    assert event["path"] == "/echo/01JABC"
    assert event["httpMethod"] == "POST"
    assert event["pathParameters"] == {"id": "01JABC"}
    assert event["queryStringParameters"] == {"a": "2"}
    assert event["multiValueQueryStringParameters"] == {"a": ["1", "2"]}
    assert event["headers"]["X-Custom"] == "v" and event["multiValueHeaders"]["X-Custom"] == ["v"]
    assert event["body"] == '{"x": 1}' and event["isBase64Encoded"] is False
    context = event["requestContext"]
    assert context["stage"] == "test"
    assert context["resourcePath"] == "/echo/{id}"
    assert context["identity"]["sourceIp"] == "127.0.0.1"
    assert context["requestId"] == response.headers["x-amzn-RequestId"]
    assert "authorizer" not in context


def test_multi_value_response_headers_reach_the_client(fixture_stack: RunningStack) -> None:
    response = requests.post(base(fixture_stack) + "/echo/1", timeout=10)
    assert response.raw.headers.getlist("X-Twice") == ["a", "b"]


def test_binary_media_types_arrive_base64_encoded(fixture_stack: RunningStack) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\xff"
    response = requests.put(
        base(fixture_stack) + "/files/logo/v2.png", data=png, headers={"Content-Type": "image/png"}, timeout=10
    )
    event = response.json()["event"]
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == png
    assert event["pathParameters"] == {"proxy": "logo/v2.png"}
    assert event["resource"] == "/files/{proxy+}"


def test_undeclared_route_is_api_gateways_default_without_a_gateway_response(fixture_stack: RunningStack) -> None:
    response = requests.get(base(fixture_stack) + "/echo/1", timeout=10)  # only POST is declared
    assert response.status_code == 403
    assert response.json() == {"message": "Missing Authentication Token"}


def test_a_crashing_function_is_502_and_a_slow_one_504(fixture_stack: RunningStack) -> None:
    crashed = requests.get(base(fixture_stack) + "/files/crash", timeout=10)
    assert (crashed.status_code, crashed.json()) == (502, {"message": "Internal server error"})
    malformed = requests.get(base(fixture_stack) + "/files/malformed", timeout=10)
    assert malformed.status_code == 502
    slow = requests.get(base(fixture_stack) + "/files/slow", timeout=10)
    assert (slow.status_code, slow.json()) == (504, {"message": "Endpoint request timed out"})
    assert requests.get(base(fixture_stack) + "/files/ok", timeout=10).status_code == 200  # a fresh environment


def test_authorizer_allows_denies_and_caches_by_identity(fixture_stack: RunningStack) -> None:
    url = base(fixture_stack) + "/private"
    assert requests.get(url, timeout=10).status_code == 401  # identity source missing: no invocation
    assert requests.get(url, headers={"Authorization": "nobody"}, timeout=10).status_code == 401
    first = requests.get(url, headers={"Authorization": "allow"}, timeout=10)
    second = requests.get(url, headers={"Authorization": "allow"}, timeout=10)
    assert first.status_code == second.status_code == 200
    authorizer = first.json()["event"]["requestContext"]["authorizer"]
    assert authorizer["principalId"] == "tester"
    assert second.json()["event"]["requestContext"]["authorizer"]["calls"] == authorizer["calls"]  # cached
    denied = requests.get(url, headers={"Authorization": "deny"}, timeout=10)
    assert denied.status_code == 403
    assert denied.json() == {"code": "nope"}
    assert denied.headers["X-Request-ID"] == denied.headers["x-amzn-RequestId"]
    crashed = requests.get(url, headers={"Authorization": "boom"}, timeout=10)
    assert (crashed.status_code, crashed.json()) == (500, {"message": "Authorizer error"})


def test_concurrent_requests_run_in_parallel_environments(fixture_stack: RunningStack) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda i: requests.post(base(fixture_stack) + f"/echo/{i}", timeout=20), range(8)))
    assert [a.status_code for a in answers] == [200] * 8
    assert sorted(a.json()["event"]["pathParameters"]["id"] for a in answers) == [str(i) for i in range(8)]


def test_sqs_partial_batch_failures_retry_then_dead_letter(fixture_stack: RunningStack) -> None:
    sqs = fixture_stack.aws("sqs")
    resources = fixture_stack.state["resources"]["mz"]
    sqs.send_message(QueueUrl=resources["WorkQueue"], MessageBody="ok-1")
    sqs.send_message(QueueUrl=resources["WorkQueue"], MessageBody="fail-1")
    eventually(lambda: {"sqs#ok-1#1", "sqs#fail-1#1", "sqs#fail-1#2"} <= sink_keys(fixture_stack))

    def dead_lettered() -> list[str]:
        answer = sqs.receive_message(QueueUrl=resources["WorkDeadLetterQueue"], WaitTimeSeconds=1)
        return [m["Body"] for m in answer.get("Messages", [])]

    found: list[str] = []
    eventually(lambda: bool(found.extend(dead_lettered()) or found))
    assert found == ["fail-1"]
    keys = sink_keys(fixture_stack)
    assert "sqs#ok-1#2" not in keys  # the successful message was deleted, never redelivered
    assert "sqs#fail-1#3" not in keys  # maxReceiveCount 2: no third delivery


def test_stream_delivers_filtered_inserts_and_gives_up_on_a_poison_record(fixture_stack: RunningStack) -> None:
    dynamodb = fixture_stack.aws("dynamodb")
    source = fixture_stack.state["resources"]["mz"]["SourceTable"]
    dynamodb.put_item(TableName=source, Item={"pk": {"S": "a"}})
    eventually(lambda: "stream#a" in sink_keys(fixture_stack))
    dynamodb.put_item(TableName=source, Item={"pk": {"S": "a"}, "changed": {"BOOL": True}})  # MODIFY: filtered
    dynamodb.put_item(TableName=source, Item={"pk": {"S": "poison"}, "poison": {"BOOL": True}})
    eventually(lambda: "poison-attempt#poison#3" in sink_keys(fixture_stack))  # first try + 2 retries
    dynamodb.put_item(TableName=source, Item={"pk": {"S": "after"}})
    eventually(lambda: "stream#after" in sink_keys(fixture_stack))
    keys = sink_keys(fixture_stack)
    assert "poison-attempt#poison#4" not in keys
    assert {k for k in keys if k.startswith("stream#")} == {"stream#a", "stream#after"}


def test_a_failed_stream_batch_is_bisected_and_its_poison_record_goes_to_the_on_failure_destination(
    fixture_stack: RunningStack,
) -> None:
    """BisectBatchOnFunctionError, MaximumRetryAttempts 1 and an SQS OnFailure destination, as
    Lambda plays them: a batch of 4 with one poison record is split until the poison record is
    alone, the others are processed, and the poison one, after its retry, is described to the
    queue (shard and sequence numbers, no data) in Lambda's shape."""
    dynamodb = fixture_stack.aws("dynamodb")
    resources = fixture_stack.state["resources"]["mz"]
    source = resources["BisectSourceTable"]

    def calls() -> list[list[str]]:
        table = resources["SinkTable"]
        items = dynamodb.scan(TableName=table, ConsistentRead=True)["Items"]
        ordered = sorted((i["pk"]["S"], i["keys"]["S"]) for i in items if i["pk"]["S"].startswith("bisect-call#"))
        return [keys.split(",") for _, keys in ordered]

    dynamodb.put_item(TableName=source, Item={"pk": {"S": "gate"}, "gate": {"BOOL": True}})
    eventually(lambda: calls() == [["gate"]])  # the function is busy on it for 1.5 s...
    for key in ("b1", "poison", "b2", "b3"):  # ...so these arrive as one batch
        item = {"pk": {"S": key}, **({"poison": {"BOOL": True}} if key == "poison" else {})}
        dynamodb.put_item(TableName=source, Item=item)
    eventually(lambda: {"bisect#b1", "bisect#b2", "bisect#b3"} <= sink_keys(fixture_stack), timeout=30)

    sqs = fixture_stack.aws("sqs")
    messages: list[dict[str, Any]] = []
    eventually(
        lambda: bool(
            messages.extend(sqs.receive_message(QueueUrl=resources["StreamFailureQueue"]).get("Messages", []))
            or messages
        )
    )
    assert calls() == [
        ["gate"],
        ["b1", "poison", "b2", "b3"],  # fails: bisected
        ["b1", "poison"],  # fails: bisected
        ["b1"],
        ["poison"],  # fails alone...
        ["poison"],  # ...and once more (MaximumRetryAttempts 1), then discarded
        ["b2", "b3"],
    ]
    assert "bisect#poison" not in sink_keys(fixture_stack)
    (message,) = messages
    body = json.loads(message["Body"])
    streams = fixture_stack.aws("dynamodbstreams")
    stream_arn = dynamodb.describe_table(TableName=source)["Table"]["LatestStreamArn"]
    (shard,) = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
    iterator = streams.get_shard_iterator(
        StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    (poison,) = [r for r in records if r["dynamodb"]["Keys"]["pk"]["S"] == "poison"]
    sequence = poison["dynamodb"]["SequenceNumber"]
    arrival = poison["dynamodb"]["ApproximateCreationDateTime"].astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert body == {
        "requestContext": {
            "requestId": body["requestContext"]["requestId"],
            "functionArn": "arn:aws:lambda:af-south-1:123456789012:function:fixture-mz-BisectFunction",
            "condition": "RetryAttemptsExhausted",
            "approximateInvokeCount": 2,
        },
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "version": "1.0",
        "timestamp": body["timestamp"],
        "DDBStreamBatchInfo": {
            "shardId": shard["ShardId"],
            "startSequenceNumber": sequence,
            "endSequenceNumber": sequence,
            "approximateArrivalOfFirstRecord": arrival,
            "approximateArrivalOfLastRecord": arrival,
            "batchSize": 1,
            "streamArn": stream_arn,
        },
    }
    assert abs(datetime.fromisoformat(body["timestamp"].replace("Z", "+00:00")).timestamp() - time.time()) < 60
