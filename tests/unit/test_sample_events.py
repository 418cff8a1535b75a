"""The sample events of events/ stay valid: they parse, they hit routes the template declares,
and the functions answer them in-process as `sam local invoke -e` would see it."""

from __future__ import annotations

import json
import platform
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mzpay
import mzpay.config
import mzpay.deps
from devstack.modules import load_module
from devstack.template import load_template
from tests.expected import policy

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
FUNCTIONS = ROOT / "functions"

PEER_REGION_URLS = "regional-sa.gateway=https://gw.sa.example,regional-sa.collection=https://col.sa.example"
ENVIRONMENT = {
    "SERVICE_REGION": "mz",
    "STAGE": "prod",
    "PEER_REGION_URLS": PEER_REGION_URLS,
    "GIT_COMMIT": "abc1234",
    "BUILD_DATE": "2026-11-21T00:00:00Z",
}

# event file -> (function directory, template function, template API)
PROXY_EVENTS = {
    "gateway_health.json": ("gateway_access", "GatewayAccessFunction", "GatewayApi"),
    "collection_version.json": ("collection_system", "CollectionSystemFunction", "CollectionApi"),
    "management_system_info.json": ("management_accounts", "ManagementAccountsFunction", "ManagementApi"),
}
# API events run against the local stack by `make invoke` (devstack.invoke fills the placeholders)
STACK_EVENTS = {
    "gateway_charge.json": ("gateway_payments", "GatewayPaymentsFunction", "GatewayApi"),
    "gateway_capture.json": ("gateway_payments", "GatewayPaymentsFunction", "GatewayApi"),
}
# queue and stream batches for `make invoke`: event file -> (function, its event source's resource)
BATCH_EVENTS = {
    "webhook_sender_batch.json": ("WebhookSenderFunction", "WebhookQueue"),
    "payout_settlement_batch.json": ("PayoutSettlementFunction", "PayoutSettlementQueue"),
    "events_stream_insert.json": ("WebhookDispatcherFunction", "EventsTable"),
}
# what --set must give each event (the others are filled from the stack file or made fresh)
GIVEN = {
    "gateway_capture.json": {"payment_id"},
    "webhook_sender_batch.json": {"delivery_id"},
    "payout_settlement_batch.json": {"provider_payout_id"},
    "events_stream_insert.json": {"callback_url"},
}
AUTHORIZER_EVENT = "management_authorizer.json"
GATEWAY_AUTHORIZER_EVENT = "gateway_authorizer.json"  # a mistyped key: answered without any AWS call


def load_event(name: str) -> dict[str, Any]:
    data = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def load_function(group: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """functions/<group>/app.py under a module name of its own (every function's file is app.py)."""
    name = f"mzpay_test_function_{group}_{uuid.uuid4().hex}"
    module = load_module(FUNCTIONS / group / "app.py", name)
    monkeypatch.delitem(sys.modules, name)  # forgotten again after the test
    monkeypatch.setitem(sys.modules, name, module)
    return module


def response_header(response: dict[str, Any], name: str) -> str | None:
    wanted = name.lower()
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == wanted:
            return str(values[-1])
    for key, value in (response.get("headers") or {}).items():
        if key.lower() == wanted:
            return str(value)
    return None


def declared_routes() -> dict[tuple[str, str, str], str]:
    """(API logical id, METHOD, path) -> function logical id, for every Api event in template.yaml."""
    template = load_template(ROOT / "template.yaml")
    routes: dict[tuple[str, str, str], str] = {}
    for logical_id, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        for source in (resource.get("Properties", {}).get("Events") or {}).values():
            if source.get("Type") != "Api":
                continue
            props = source["Properties"]
            api = props.get("RestApiId", {}).get("Ref", "ServerlessRestApi")
            routes[(api, props["Method"].upper(), props["Path"])] = logical_id
    return routes


def expected_build() -> dict[str, str]:
    """The build every version answer carries: the sample events' commit and date, this runtime."""
    runtime = "python" + ".".join(str(part) for part in sys.version_info[:3])
    return {
        "version": mzpay.__version__,
        "git_commit": "abc1234",
        "build_date": "2026-11-21T00:00:00Z",
        "go_version": runtime,
        "runtime_version": runtime,
        "platform": expected_platform(),
    }


def expected_platform() -> str:
    machine = platform.machine().lower()
    return f"{sys.platform}/" + {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)


@pytest.fixture
def stack_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key, value in ENVIRONMENT.items():
        monkeypatch.setenv(key, value)
    mzpay.deps.reset()
    yield
    mzpay.deps.reset()


def invoke(group: str, event_name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]]:
    event = load_event(event_name)
    module = load_function(group, monkeypatch)
    response = module.lambda_handler(event, None)
    return event, response


def answered_ok(group: str, event_name: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The body the function answers the sample event with, after checking it is a 200 that names
    the platform's request id."""
    event, response = invoke(group, event_name, monkeypatch)
    assert response["statusCode"] == 200
    assert response_header(response, "X-Request-ID") == event["requestContext"]["requestId"]
    return json.loads(response["body"])


# ---------------------------------------------------------------- the files


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.json")), ids=lambda p: p.name)
def test_every_sample_event_is_a_json_object(path: Path) -> None:
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict)


def test_the_sample_events_are_the_documented_ones() -> None:
    assert sorted(p.name for p in EVENTS.glob("*.json")) == sorted(
        [*PROXY_EVENTS, *STACK_EVENTS, *BATCH_EVENTS, AUTHORIZER_EVENT, GATEWAY_AUTHORIZER_EVENT]
    )


def fill(name: str) -> dict[str, Any]:
    """The event as devstack.invoke fills it for the demo account, with --set values."""
    from devstack.invoke import filled

    given = {key: f"given-{key}" for key in GIVEN.get(name, ())}
    text = (EVENTS / name).read_text(encoding="utf-8")
    event: dict[str, Any] = json.loads(filled(text, {"account_id": "01JACC0000000000000000000A"}, given))
    assert "${" not in json.dumps(event)
    return event


@pytest.mark.parametrize("name", sorted(STACK_EVENTS))
def test_a_stack_event_targets_a_declared_route_and_names_only_known_placeholders(name: str) -> None:
    _group, function, api = STACK_EVENTS[name]
    event = fill(name)
    assert declared_routes().get((api, event["httpMethod"], event["resource"])) == function
    assert event["requestContext"]["authorizer"]["account_id"] == "01JACC0000000000000000000A"
    for key, value in (event["pathParameters"] or {}).items():
        assert value == f"given-{key}" and event["path"].endswith(f"/{value}/capture")
    if name == "gateway_charge.json":
        body = json.loads(event["body"])
        assert str(uuid.UUID(body["payment_id"])) == body["payment_id"]


@pytest.mark.parametrize("name", sorted(BATCH_EVENTS))
def test_a_batch_event_is_one_record_of_the_source_its_function_is_wired_to(name: str) -> None:
    function, source = BATCH_EVENTS[name]
    template = load_template(ROOT / "template.yaml")
    events = template["Resources"][function]["Properties"]["Events"].values()
    wired = {json.dumps(e["Properties"].get("Queue") or e["Properties"].get("Stream")) for e in events}
    (record,) = fill(name)["Records"]
    if source == "EventsTable":
        assert json.dumps({"Fn::GetAtt": [source, "StreamArn"]}) in wired
        assert record["eventName"] == "INSERT" and record["eventSource"] == "aws:dynamodb"
        image = record["dynamodb"]["NewImage"]
        event_id = image["id"]["S"]
        assert image["sk"] == record["dynamodb"]["Keys"]["sk"] == {"S": f"EVT#{event_id}"}  # one ULID throughout
        assert image["pk"] == {"S": "ACC#01JACC0000000000000000000A#test"}
        assert image["callback_url"] == {"S": "given-callback_url"}
    else:
        assert json.dumps({"Fn::GetAtt": [source, "Arn"]}) in wired
        assert record["eventSource"] == "aws:sqs" and record["attributes"]["ApproximateReceiveCount"] == "1"
        assert set(json.loads(record["body"]).values()) & {"given-delivery_id", "given-provider_payout_id"}


def test_a_placeholder_nothing_fills_is_named() -> None:
    from devstack.invoke import filled

    with pytest.raises(SystemExit, match=r"needs \$\{payment_id\}: pass --set payment_id=VALUE"):
        filled("${payment_id}", {})
    first, again = filled("${uuid} ${uuid}", {}).split()
    assert first == again != filled("${uuid}", {})  # one value throughout a file, a new one per file


@pytest.mark.parametrize("name", sorted(PROXY_EVENTS))
def test_proxy_event_targets_a_route_the_template_declares_for_its_function(name: str) -> None:
    _group, function, api = PROXY_EVENTS[name]
    event = load_event(name)
    assert declared_routes().get((api, event["httpMethod"], event["resource"])) == function


@pytest.mark.parametrize("name", sorted(PROXY_EVENTS))
def test_proxy_event_is_consistent_with_its_request_context(name: str) -> None:
    event = load_event(name)
    context = event["requestContext"]
    assert event["path"] == event["resource"] == context["resourcePath"]
    assert context["httpMethod"] == event["httpMethod"]
    assert context["path"] == f"/{context['stage']}{event['path']}"
    assert context["stage"] == "prod"
    assert context["accountId"] == "123456789012"
    assert context["identity"]["sourceIp"] == "198.51.100.7"
    assert str(uuid.UUID(context["requestId"])) == context["requestId"]
    assert event["headers"]["Host"] == f"{context['apiId']}.execute-api.af-south-1.amazonaws.com"
    assert event["multiValueHeaders"] == {key: [value] for key, value in event["headers"].items()}
    assert "x-request-id" not in {key.lower() for key in event["headers"]}
    assert event["body"] is None
    assert event["isBase64Encoded"] is False


def test_request_ids_differ_between_proxy_events() -> None:
    ids = [load_event(name)["requestContext"]["requestId"] for name in PROXY_EVENTS]
    assert len(set(ids)) == len(ids)


def test_authorizer_event_is_the_request_authorizer_call_of_the_system_info_request() -> None:
    request = load_event("management_system_info.json")
    event = load_event(AUTHORIZER_EVENT)
    context = request["requestContext"]
    expected_context = {key: value for key, value in context.items() if key != "authorizer"}
    assert event == {
        "type": "REQUEST",
        "methodArn": f"arn:aws:execute-api:af-south-1:123456789012:{context['apiId']}/prod/GET/v1/system/info",
        "resource": request["resource"],
        "path": request["path"],
        "httpMethod": request["httpMethod"],
        "headers": request["headers"],
        "multiValueHeaders": request["multiValueHeaders"],
        "queryStringParameters": request["queryStringParameters"],
        "multiValueQueryStringParameters": request["multiValueQueryStringParameters"],
        "pathParameters": request["pathParameters"],
        "stageVariables": request["stageVariables"],
        "requestContext": expected_context,
    }
    assert event["headers"]["Authorization"].startswith("Bearer ")
    assert context["authorizer"] == {
        "principalId": "operator",
        "role": "operator",
        "operator": "operator",
        "source_ip": "198.51.100.7",
        "integrationLatency": 12,
    }


# ---------------------------------------------------------------- the functions answer them


@pytest.mark.usefixtures("stack_env")
def test_gateway_health_event_answers_ok_with_the_platform_request_id(monkeypatch: pytest.MonkeyPatch) -> None:
    assert answered_ok("gateway_access", "gateway_health.json", monkeypatch) == {
        "status": "ok",
        "api": "gateway",
        "service_region": "mz",
        "version": mzpay.__version__,
    }


@pytest.mark.usefixtures("stack_env")
def test_collection_version_event_answers_the_build_and_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    assert answered_ok("collection_system", "collection_version.json", monkeypatch) == {
        "object": "version",
        **expected_build(),
    }


@pytest.mark.usefixtures("stack_env")
def test_management_system_info_event_answers_region_stage_peers_and_build(monkeypatch: pytest.MonkeyPatch) -> None:
    assert answered_ok("management_accounts", "management_system_info.json", monkeypatch) == {
        "service_region": "mz",
        "stage": "prod",
        "peer_regions": {"regional-sa": {"gateway": "https://gw.sa.example", "collection": "https://col.sa.example"}},
        "build": expected_build(),
    }


@pytest.mark.usefixtures("stack_env")
def test_management_authorizer_event_is_allowed_for_the_whole_api_with_the_operator_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The authorizer event with the secret stubbed (no AWS): Allow on the API's stage, and the
    context the system-info event carries as requestContext.authorizer."""
    from mzpay.http import operator_auth

    event = load_event(AUTHORIZER_EVENT)
    token = event["headers"]["Authorization"].removeprefix("Bearer ")
    monkeypatch.setattr(operator_auth, "operator_token", lambda: token)
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "198.51.100.0/24")
    mzpay.deps.reset()
    try:
        module = load_function("management_authorizer", monkeypatch)
        answer = module.lambda_handler(event, None)
    finally:
        mzpay.deps.reset()
    api_id = event["requestContext"]["apiId"]
    assert answer == {
        "principalId": "operator",
        "policyDocument": policy("Allow", f"arn:aws:execute-api:af-south-1:123456789012:{api_id}/prod/*"),
        "context": {"role": "operator", "operator": "operator", "source_ip": "198.51.100.7"},
    }
    proxy_authorizer = load_event("management_system_info.json")["requestContext"]["authorizer"]
    assert proxy_authorizer == {**answer["context"], "principalId": answer["principalId"], "integrationLatency": 12}


def test_gateway_authorizer_event_refuses_the_mistyped_key_before_any_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**ENVIRONMENT, "DIRECTORY_TABLE": "unused", "KEY_PEPPER_SECRET": "unused"}.items():
        monkeypatch.setenv(name, value)
    event = load_event(GATEWAY_AUTHORIZER_EVENT)
    answer = load_function("gateway_authorizer", monkeypatch).lambda_handler(event, None)
    assert answer["principalId"] == "anonymous"
    assert answer["policyDocument"]["Statement"] == [
        {
            "Action": "execute-api:Invoke",
            "Effect": "Allow",
            "Resource": "arn:aws:execute-api:af-south-1:123456789012:q1w2e3r4t5/prod/*",
        }
    ]
    refusal = json.loads(answer["context"]["refusal"])
    assert refusal == {
        "status": 401,
        "code": "invalid_api_key",
        "message": "The API key is malformed or mistyped (its checksum does not match).",
        "headers": {"WWW-Authenticate": 'Bearer realm="mzpay"'},
        "extensions": {},
    }
