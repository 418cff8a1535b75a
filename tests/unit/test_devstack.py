"""The local stack's emulation rules, in-process: routing, IAM policies, gateway responses,
event filters, partial batch responses and CloudFormation intrinsics."""

from __future__ import annotations

from typing import Any

import pytest
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from devstack.apigw import ApiDefinition, GatewayError, RestApi, Route, mapping_value, policy_allows, render_template
from devstack.esm import failed_item_ids, parse_filters, passes_filters, pattern_matches
from devstack.template import Intrinsics, parameter_values, references

ROUTES = [
    Route("GET", "/health", "Fn", None),
    Route("GET", "/v1/payments/{id}", "Fn", None),
    Route("POST", "/v1/payments/{id}/refund", "Fn", None),
    Route("GET", "/v1/payments/latest", "Fn", None),
    Route("ANY", "/files/{proxy+}", "Fn", None),
    Route("POST", "/files/upload", "Fn", None),
]


def api(routes: list[Route] = ROUTES, **props: Any) -> RestApi:
    definition = ApiDefinition.from_template(
        "TestApi", {"api_id": "abc123", "StageName": "prod", **props}, "af-south-1", routes, {}
    )
    return RestApi(definition, {})


@pytest.mark.parametrize(
    ("method", "path", "expected", "params"),
    [
        ("GET", "/health", "/health", {}),
        ("GET", "/v1/payments/01J", "/v1/payments/{id}", {"id": "01J"}),
        ("GET", "/v1/payments/latest", "/v1/payments/latest", {}),
        ("POST", "/v1/payments/01J/refund", "/v1/payments/{id}/refund", {"id": "01J"}),
        ("DELETE", "/files/a/b/c.pdf", "/files/{proxy+}", {"proxy": "a/b/c.pdf"}),
        ("POST", "/files/upload", "/files/upload", {}),
    ],
)
def test_routes_match_like_api_gateway(method: str, path: str, expected: str, params: dict[str, str]) -> None:
    route, found = api().route_for(method, path)
    assert (route.path, found) == (expected, params)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/health"),
        ("GET", "/nothing"),
        ("GET", "/v1/payments"),
        ("GET", "/v1/payments/01J/refund"),
        ("GET", "/files"),
    ],
)
def test_undeclared_method_or_path_is_missing_authentication_token(method: str, path: str) -> None:
    with pytest.raises(GatewayError) as raised:
        api().route_for(method, path)
    assert raised.value.response_type == "MISSING_AUTHENTICATION_TOKEN"


ARN = "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/GET/v1/payments/01J"


def statement(effect: str, resource: str | list[str]) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
    }


@pytest.mark.parametrize(
    ("policy", "allowed"),
    [
        (statement("Allow", "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/*"), True),
        (statement("Allow", ARN), True),
        (statement("Allow", "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/POST/*"), False),
        (statement("Deny", "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/*"), False),
        ({"Statement": [*statement("Allow", "*")["Statement"], *statement("Deny", ARN)["Statement"]]}, False),
        ({"Statement": []}, False),
    ],
)
def test_authorizer_policies_are_evaluated_like_iam(policy: dict[str, Any], allowed: bool) -> None:
    assert policy_allows(policy, ARN) is allowed


def test_cached_narrow_policy_denies_other_routes_like_api_gateway() -> None:
    other = ARN.replace("GET/v1/payments/01J", "GET/v1/payments/02K")
    assert policy_allows(statement("Allow", ARN), ARN) and not policy_allows(statement("Allow", ARN), other)


def test_gateway_response_templates_substitute_context_variables() -> None:
    context = {"requestId": "rid-1", "authorizer": {"code": "ip_not_allowed"}, "error": {"message": 'say "hi"'}}
    template = (
        '{"code":"$context.authorizer.code","id":"req_$context.requestId","m":$context.error.messageString,'
        '"u":"$context.authorizer.missing"}'
    )
    assert render_template(template, context) == '{"code":"ip_not_allowed","id":"req_rid-1","m":"say \\"hi\\"","u":""}'


def test_gateway_response_header_sources() -> None:
    request = Request(EnvironBuilder(path="/x", query_string="q=1", headers={"X-Trace": "t-1"}).get_environ())
    context = {"requestId": "rid-2"}
    assert mapping_value("'Bearer realm=\"x\"'", request, context) == 'Bearer realm="x"'
    assert mapping_value("context.requestId", request, context) == "rid-2"
    assert mapping_value("method.request.header.X-Trace", request, context) == "t-1"
    assert mapping_value("method.request.querystring.q", request, context) == "1"
    with pytest.raises(NotImplementedError):
        mapping_value("integration.response.body.x", request, context)


def test_gateway_response_falls_back_to_default_4xx_then_to_aws_default() -> None:
    responses = {
        "DEFAULT_4XX": {
            "StatusCode": 400,
            "ResponseParameters": {"Headers": {"X-Request-ID": "context.requestId"}},
            "ResponseTemplates": {"application/json": '{"m":$context.error.messageString}'},
        }
    }
    request = Request(EnvironBuilder(path="/x").get_environ())
    with_default = api(GatewayResponses=responses).gateway_response(
        GatewayError("UNAUTHORIZED", "Unauthorized"), request, {"requestId": "r"}
    )
    assert (with_default.status_code, with_default.get_data(as_text=True)) == (400, '{"m":"Unauthorized"}')
    assert with_default.headers["X-Request-ID"] == "r"
    bare = api().gateway_response(GatewayError("MISSING_AUTHENTICATION_TOKEN"), request, {"requestId": "r"})
    assert (bare.status_code, bare.get_json()) == (403, {"message": "Missing Authentication Token"})


def test_proxy_event_is_api_gateway_rest_v1_shaped() -> None:
    rest = api(BinaryMediaTypes=["image~1png"])
    request = Request(
        EnvironBuilder(
            method="POST",
            path="/v1/payments/01J/refund",
            query_string="a=1&a=2&b=3",
            headers={"X-Request-ID": "r1", "Content-Type": "image/png"},
            data=b"\x89PNG\x00",
            environ_base={"REMOTE_ADDR": "198.51.100.7"},
        ).get_environ()
    )
    route, params = rest.route_for("POST", "/v1/payments/01J/refund")
    context = {"requestId": "apigw-1", "path": "/prod/v1/payments/01J/refund"}
    event = rest.proxy_event(
        request, route, params, request.get_data(), {**context, "identity": {"sourceIp": "198.51.100.7"}}
    )
    assert event["resource"] == "/v1/payments/{id}/refund"
    assert event["path"] == "/v1/payments/01J/refund"
    assert event["httpMethod"] == "POST"
    assert event["pathParameters"] == {"id": "01J"}
    assert event["queryStringParameters"] == {"a": "2", "b": "3"}
    assert event["multiValueQueryStringParameters"] == {"a": ["1", "2"], "b": ["3"]}
    assert event["headers"]["X-Request-Id"] == "r1"
    assert event["multiValueHeaders"]["X-Request-Id"] == ["r1"]
    assert event["isBase64Encoded"] is True and event["body"] == "iVBORwA="
    assert event["requestContext"]["requestId"] == "apigw-1"
    assert event["requestContext"]["identity"]["sourceIp"] == "198.51.100.7"
    assert event["requestContext"]["resourcePath"] == "/v1/payments/{id}/refund"
    assert event["requestContext"]["stage"] == "prod"


def test_text_bodies_are_not_base64_encoded() -> None:
    rest = api(BinaryMediaTypes=["image~1png"])
    request = Request(
        EnvironBuilder(
            method="POST", path="/files/upload", data='{"a": "é"}', headers={"Content-Type": "application/json"}
        ).get_environ()
    )
    route, params = rest.route_for("POST", "/files/upload")
    event = rest.proxy_event(
        request,
        route,
        params,
        request.get_data(),
        {"requestId": "x", "path": "/prod/files/upload", "identity": {"sourceIp": "127.0.0.1"}},
    )
    assert (event["isBase64Encoded"], event["body"], event["pathParameters"]) == (False, '{"a": "é"}', None)


def test_malformed_proxy_response_is_an_integration_failure() -> None:
    with pytest.raises(GatewayError) as raised:
        api().to_response({"body": "no status"})
    assert raised.value.response_type == "INTEGRATION_FAILURE"


def test_proxy_response_headers_and_base64_bodies() -> None:
    response = api().to_response(
        {
            "statusCode": 201,
            "headers": {"A": "1"},
            "multiValueHeaders": {"B": ["x", "y"]},
            "body": "aGk=",
            "isBase64Encoded": True,
        }
    )
    assert response.status_code == 201 and response.get_data() == b"hi"
    assert response.headers["A"] == "1" and response.headers.getlist("B") == ["x", "y"]


# ---------------------------------------------------------------- event source mappings
INSERT = {"eventName": "INSERT", "dynamodb": {"NewImage": {"kind": {"S": "payment.succeeded"}, "n": {"N": "3"}}}}
MODIFY = {"eventName": "MODIFY", "dynamodb": {"NewImage": {"kind": {"S": "payment.failed"}}}}


@pytest.mark.parametrize(
    ("pattern", "record", "matches"),
    [
        ({"eventName": ["INSERT"]}, INSERT, True),
        ({"eventName": ["INSERT"]}, MODIFY, False),
        ({"eventName": ["INSERT", "MODIFY"]}, MODIFY, True),
        ({"dynamodb": {"NewImage": {"kind": {"S": [{"prefix": "payment."}]}}}}, MODIFY, True),
        ({"dynamodb": {"NewImage": {"kind": {"S": [{"prefix": "payout."}]}}}}, MODIFY, False),
        ({"dynamodb": {"NewImage": {"n": [{"exists": True}]}}}, INSERT, True),
        ({"dynamodb": {"NewImage": {"n": [{"exists": False}]}}}, MODIFY, True),
        ({"eventName": [{"anything-but": ["REMOVE"]}]}, INSERT, True),
        ({"eventName": ["INSERT"], "dynamodb": {"NewImage": {"kind": {"S": ["payment.failed"]}}}}, INSERT, False),
    ],
)
def test_filter_patterns(pattern: dict[str, Any], record: dict[str, Any], matches: bool) -> None:
    assert pattern_matches(pattern, record) is matches


def test_several_filters_are_or_and_no_filter_passes_everything() -> None:
    filters = parse_filters(
        {"Filters": [{"Pattern": '{"eventName": ["REMOVE"]}'}, {"Pattern": '{"eventName": ["INSERT"]}'}]}
    )
    assert passes_filters(filters, INSERT) and not passes_filters(filters, MODIFY)
    assert passes_filters([], MODIFY)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, set()),
        ({}, set()),
        ({"batchItemFailures": []}, set()),
        ({"batchItemFailures": [{"itemIdentifier": "b"}]}, {"b"}),
        ({"batchItemFailures": [{"itemIdentifier": "zzz"}]}, None),
        ({"batchItemFailures": [{"itemIdentifier": ""}]}, None),
        ({"batchItemFailures": "b"}, None),
        ("not a dict", None),
    ],
)
def test_partial_batch_responses_follow_lambda_rules(result: Any, expected: set[str] | None) -> None:
    assert failed_item_ids(result, ["a", "b", "c"]) == expected


# ---------------------------------------------------------------- intrinsics
def intrinsics(**params: Any) -> Intrinsics:
    resolver = Intrinsics(
        parameters={"Stage": "prod", "ServiceRegion": "mz", **params},
        pseudo={"AWS::Region": "af-south-1", "AWS::AccountId": "123456789012", "AWS::StackName": "mzpay-mz"},
        conditions={
            "IsMz": {"Fn::Equals": [{"Ref": "ServiceRegion"}, "mz"]},
            "NotMz": {"Fn::Not": [{"Condition": "IsMz"}]},
        },
    )
    resolver.refs["Queue"] = "http://q"
    resolver.attrs[("Queue", "Arn")] = "arn:aws:sqs:af-south-1:123456789012:q"
    return resolver


def test_intrinsics_resolve() -> None:
    r = intrinsics()
    assert (
        r.resolve({"Fn::Sub": "mzpay-${ServiceRegion}-${AWS::Region}-${Queue.Arn}-${!Literal}"})
        == "mzpay-mz-af-south-1-arn:aws:sqs:af-south-1:123456789012:q-${Literal}"
    )
    assert r.resolve({"Fn::Sub": ["${X}/${Stage}", {"X": {"Ref": "Queue"}}]}) == "http://q/prod"
    assert r.resolve({"Fn::GetAtt": ["Queue", "Arn"]}) == "arn:aws:sqs:af-south-1:123456789012:q"
    assert r.resolve({"Fn::If": ["IsMz", "a", "b"]}) == "a"
    assert r.resolve({"Fn::If": ["NotMz", "a", "b"]}) == "b"
    assert r.resolve({"Fn::Join": ["-", ["a", {"Ref": "Stage"}]]}) == "a-prod"
    assert r.resolve({"Fn::Select": [1, {"Fn::Split": [",", "x,y,z"]}]}) == "y"
    assert r.resolve({"k": {"Fn::If": ["NotMz", "x", {"Ref": "AWS::NoValue"}]}, "j": 1}) == {"j": 1}
    with pytest.raises(KeyError):
        r.resolve({"Ref": "Nope"})


def test_references_find_refs_getatts_and_sub_names() -> None:
    node = {"a": {"Ref": "Table"}, "b": {"Fn::GetAtt": ["Queue", "Arn"]}, "c": {"Fn::Sub": "${Key.Arn}/${AWS::Region}"}}
    assert references(node) == {"Table", "Queue", "Key", "AWS::Region"}


def test_parameter_values_apply_defaults_overrides_and_allowed_values() -> None:
    template = {
        "Parameters": {
            "ServiceRegion": {"Type": "String", "AllowedValues": ["mz", "regional-sa"]},
            "Stage": {"Type": "String", "Default": "prod"},
            "Cidrs": {"Type": "CommaDelimitedList", "Default": "10.0.0.0/8,::1/128"},
        }
    }
    assert parameter_values(template, {"ServiceRegion": "mz"}) == {
        "ServiceRegion": "mz",
        "Stage": "prod",
        "Cidrs": ["10.0.0.0/8", "::1/128"],
    }
    with pytest.raises(ValueError, match="not one of"):
        parameter_values(template, {"ServiceRegion": "eu"})
    with pytest.raises(ValueError, match="no value"):
        parameter_values(template, {})
    with pytest.raises(ValueError, match="lacks"):
        parameter_values(template, {"ServiceRegion": "mz", "Typo": "x"})


class _FakeRuntime:
    """A function that fails (raises) on any batch holding a key in `poison`."""

    def __init__(self, poison: set[str]) -> None:
        self.poison = poison
        self.calls: list[list[str]] = []
        self.spec = type("Spec", (), {"arn": "arn:aws:lambda:af-south-1:123456789012:function:f"})()

    def invoke(self, event: dict[str, Any]) -> Any:
        from devstack.lambdas import InvocationError

        keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]]
        self.calls.append(keys)
        if self.poison & set(keys):
            raise InvocationError("RuntimeError", "poison")
        return {"batchItemFailures": []}


class _FakeSqs:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_message(self, QueueUrl: str, MessageBody: str) -> None:
        import json

        self.sent.append({"queue": QueueUrl, **json.loads(MessageBody)})


def _stream_source(runtime: _FakeRuntime, **settings: Any) -> Any:
    import threading

    from devstack.esm import DynamoDBStreamEventSource

    source = DynamoDBStreamEventSource.__new__(DynamoDBStreamEventSource)
    threading.Thread.__init__(source, name="test", daemon=True)
    source.runtime, source.sqs, source.stopping = runtime, _FakeSqs(), threading.Event()
    source.deliveries, source.discarded = 0, 0
    source.stream_arn = "arn:aws:dynamodb:af-south-1:123456789012:table/t/stream/2026"
    source.report_failures, source.retry_delay = True, 0.0
    source.maximum_retry_attempts = settings.get("retries", -1)
    source.maximum_record_age = settings.get("age", -1)
    source.bisect = settings.get("bisect", False)
    source.on_failure_queue_url = settings.get("queue")
    return source


def _records(*keys: str, created: float) -> list[dict[str, Any]]:
    return [
        {"dynamodb": {"Keys": {"pk": {"S": k}}, "SequenceNumber": str(100 + i), "ApproximateCreationDateTime": created}}
        for i, k in enumerate(keys)
    ]


def test_stream_records_past_their_maximum_age_are_discarded_to_the_on_failure_destination() -> None:
    import time

    runtime = _FakeRuntime(set())
    source = _stream_source(runtime, age=60, queue="q")
    old, fresh = _records("old1", "old2", created=time.time() - 120), _records("new", created=time.time())
    fresh[0]["dynamodb"]["SequenceNumber"] = "102"
    source.deliver(old + fresh, "shard-1")
    assert runtime.calls == [["new"]]  # the old records never reach the function
    (message,) = source.sqs.sent
    assert message["requestContext"]["condition"] == "RecordAgeExceeded"
    assert message["requestContext"]["approximateInvokeCount"] == 0
    assert "functionError" not in message["responseContext"]
    info = message["DDBStreamBatchInfo"]
    assert (info["shardId"], info["startSequenceNumber"], info["endSequenceNumber"], info["batchSize"]) == (
        "shard-1",
        "100",
        "101",
        2,
    )


def test_without_bisect_a_failed_batch_is_retried_whole_then_discarded_whole() -> None:
    runtime = _FakeRuntime({"p"})
    source = _stream_source(runtime, retries=2, queue="q")
    source.deliver(_records("a", "p", "b", created=0), "shard-1")
    assert runtime.calls == [["a", "p", "b"]] * 3
    (message,) = source.sqs.sent
    assert message["DDBStreamBatchInfo"]["batchSize"] == 3
    assert message["requestContext"] | {"requestId": None} == {
        "requestId": None,
        "functionArn": "arn:aws:lambda:af-south-1:123456789012:function:f",
        "condition": "RetryAttemptsExhausted",
        "approximateInvokeCount": 3,
    }


def test_without_an_on_failure_destination_discarded_records_are_dropped() -> None:
    runtime = _FakeRuntime({"p"})
    source = _stream_source(runtime, retries=0, bisect=True)
    source.deliver(_records("a", "p", created=0), "shard-1")
    assert runtime.calls == [["a", "p"], ["a"], ["p"]]
    assert source.sqs.sent == [] and source.discarded == 1


def test_a_functions_stdout_goes_to_its_log_file_and_its_errors_also_to_the_stacks_output(tmp_path: Any) -> None:
    """make run: the functions' JSON logs in functions.log; an ERROR or CRITICAL record also one
    short line in the stack's output (written in pieces, as a stream may write them)."""
    import io
    import json

    from devstack.worker import FunctionLog

    echo = io.StringIO()
    log = FunctionLog(str(tmp_path / "functions.log"), "mzpay-mz-GatewayPayments", echo)
    info = json.dumps({"level": "INFO", "message": "settle", "function_request_id": "r1"})
    error = json.dumps({"level": "ERROR", "message": "unhandled error", "function_request_id": "r2"})
    log.write(info + "\n" + error[:20])
    log.write(error[20:] + "\n")
    print("not json", file=log)  # type: ignore[arg-type]
    log.write(json.dumps({"level": "CRITICAL", "message": "down"}) + "\n")
    log.flush()
    assert (tmp_path / "functions.log").read_text().splitlines() == [
        info,
        error,
        "not json",
        '{"level": "CRITICAL", "message": "down"}',
    ]
    assert echo.getvalue().splitlines() == [
        "mzpay-mz-GatewayPayments ERROR unhandled error r2",
        "mzpay-mz-GatewayPayments CRITICAL down -",
    ]
    assert log.isatty() is False


# ---------------------------------------------------------------- SQS: MaximumConcurrency
class _Queue:
    """An SQS queue as the event source sees it: receive hands out visible messages, in order."""

    def __init__(self, count: int) -> None:
        import threading

        self.lock = threading.Lock()
        self.visible = [
            {"MessageId": f"m{i}", "ReceiptHandle": f"h{i}", "Body": f"b{i}", "Attributes": {}} for i in range(count)
        ]
        self.deleted: list[str] = []

    def client(self, service: str, endpoint_url: str) -> _Queue:
        return self

    def receive_message(self, **request: Any) -> dict[str, Any]:
        with self.lock:
            batch, self.visible = (
                self.visible[: request["MaxNumberOfMessages"]],
                self.visible[request["MaxNumberOfMessages"] :],
            )
        return {"Messages": batch}

    def delete_message_batch(self, QueueUrl: str, Entries: list[dict[str, str]]) -> None:
        with self.lock:
            self.deleted += [e["ReceiptHandle"] for e in Entries]


class _HeldRuntime:
    """A function whose invocations run until the test lets them end; it counts them."""

    def __init__(self) -> None:
        import threading

        self.spec = type("Spec", (), {"logical_id": "Sender", "region": "af-south-1"})()
        self.started = threading.Semaphore(0)
        self.finish = threading.Semaphore(0)
        self.bodies: list[list[str]] = []

    def invoke(self, event: dict[str, Any]) -> Any:
        self.bodies.append([r["body"] for r in event["Records"]])
        self.started.release()
        assert self.finish.acquire(timeout=10), "the test never let the invocation end"
        return {"batchItemFailures": []}


def _sqs_source(queue: _Queue, runtime: _HeldRuntime, maximum_concurrency: int | None) -> Any:
    from devstack.esm import SqsEventSource

    return SqsEventSource(
        runtime,  # type: ignore[arg-type]
        queue,  # type: ignore[arg-type]
        "http://moto",
        queue_url="http://moto/123456789012/q",
        queue_arn="arn:aws:sqs:af-south-1:123456789012:q",
        batch_size=1,
        report_batch_item_failures=True,
        maximum_concurrency=maximum_concurrency,
    )


def test_an_sqs_mapping_runs_up_to_its_maximum_concurrency_at_once_and_receives_nothing_beyond() -> None:
    queue, runtime = _Queue(4), _HeldRuntime()
    source = _sqs_source(queue, runtime, maximum_concurrency=2)
    source.poll_once()
    source.poll_once()
    assert runtime.started.acquire(timeout=10) and runtime.started.acquire(timeout=10)
    assert runtime.bodies == [["b0"], ["b1"]] and source.in_flight == 2  # two at once
    source.poll_once()  # both slots busy: nothing is received (Lambda polls no more than it can run)
    assert [m["Body"] for m in queue.visible] == ["b2", "b3"] and len(runtime.bodies) == 2
    runtime.finish.release()  # one invocation ends: its slot takes the next batch
    source.poll_once()
    assert runtime.started.acquire(timeout=10)
    assert runtime.bodies[2] == ["b2"] and [m["Body"] for m in queue.visible] == ["b3"]
    for _ in range(2):
        runtime.finish.release()
    source.poll_once()
    assert runtime.started.acquire(timeout=10)
    runtime.finish.release()
    assert source.slots.acquire(timeout=10) and source.slots.acquire(timeout=10)  # every batch ended
    assert sorted(queue.deleted) == ["h0", "h1", "h2", "h3"] and source.most_in_flight == 2


def test_an_sqs_mapping_without_maximum_concurrency_runs_one_batch_at_a_time() -> None:
    queue, runtime = _Queue(2), _HeldRuntime()
    source = _sqs_source(queue, runtime, maximum_concurrency=None)
    for _ in range(2):
        runtime.finish.release()
    source.poll_once()  # the batch runs in the poller's own thread, to its end
    assert queue.deleted == ["h0"] and source.in_flight == 0
    source.poll_once()
    assert queue.deleted == ["h0", "h1"] and source.most_in_flight == 1


@pytest.mark.parametrize("value", [1, 1001])
def test_maximum_concurrency_outside_lambdas_range_is_refused(value: int) -> None:
    with pytest.raises(ValueError, match="2 to 1000"):
        _sqs_source(_Queue(0), _HeldRuntime(), maximum_concurrency=value)


def test_moto_tells_the_stack_each_table_it_wrote_once_per_round() -> None:
    import os
    import threading

    from devstack.changes import ChangeWriter, TableChanges, stream_table

    read, write = os.pipe()
    writer, changes = ChangeWriter(write), TableChanges(read)
    woken = {name: threading.Event() for name in ("events", "payments")}
    changes.follow("af-south-1", "events", woken["events"].set)
    changes.follow("af-south-1", "payments", woken["payments"].set)
    changes.start()
    for _ in range(3):
        writer.changed("af-south-1", "events")
    writer.changed("eu-west-1", "payments")  # another region's table of that name: not followed here
    assert woken["events"].wait(10)
    writer.changed("af-south-1", "payments")
    assert woken["payments"].wait(10)
    assert stream_table("arn:aws:dynamodb:af-south-1:123456789012:table/events/stream/2026") == ("af-south-1", "events")


def test_a_followed_stream_is_read_again_as_soon_as_moto_tells_a_write() -> None:
    import threading

    from devstack.threads import Loop

    class Follower(Loop):
        pause = 60.0  # without a wake the next round would be a minute away

        def __init__(self) -> None:
            super().__init__("follower")
            self.rounds = 0
            self.round = threading.Semaphore(0)

        def once(self) -> bool:
            self.rounds += 1
            self.round.release()
            return False

    loop = Follower()
    loop.start()
    assert loop.round.acquire(timeout=10)
    loop.wake()
    assert loop.round.acquire(timeout=10) and loop.rounds == 2
    loop.stop()
    loop.join(timeout=10)
    assert not loop.is_alive()


def test_a_schedule_fires_only_once_the_stack_is_ready() -> None:
    """EventBridge's clock starts when the stack is up: nothing scheduled runs while it warms up
    and seeds (a scheduled function failing then printed noise at every first start)."""
    import threading

    from devstack.esm import ScheduleEventSource

    calls: list[dict[str, Any]] = []

    class Runtime:
        spec = type("Spec", (), {"logical_id": "ExpiryFunction", "region": "af-south-1"})()

        def invoke(self, event: dict[str, Any]) -> None:
            calls.append(event)

    ready = threading.Event()
    source = ScheduleEventSource(Runtime(), None, "", schedule="rate(1 minute)", ready=ready)  # type: ignore[arg-type]
    source.interval = 0.01
    source.poll_once()
    source.poll_once()
    assert calls == []
    ready.set()
    source.poll_once()
    assert [(call["detail-type"], call["source"], call["region"]) for call in calls] == [
        ("Scheduled Event", "aws.events", "af-south-1")
    ]
