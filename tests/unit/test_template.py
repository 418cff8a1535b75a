"""template.yaml and the code agree: routes, handlers, resource types, policies, gateway responses."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from devstack.modules import load_module
from devstack.provision import supported_resource_types
from devstack.template import load_samconfig, load_template

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(ROOT / "template.yaml")
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTIONS = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Function"}
APIS = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Api"}


def load_handler_module(logical_id: str) -> ModuleType:
    props = FUNCTIONS[logical_id]["Properties"]
    module_name, _, _ = props["Handler"].rpartition(".")
    path = ROOT / props["CodeUri"] / f"{module_name}.py"
    assert path.is_file(), f"{logical_id}: {path} does not exist"
    return load_module(path, f"template_check_{logical_id}")


def template_routes(logical_id: str) -> set[tuple[str, str]]:
    events = FUNCTIONS[logical_id]["Properties"].get("Events") or {}
    return {(e["Properties"]["Method"].upper(), e["Properties"]["Path"]) for e in events.values() if e["Type"] == "Api"}


def code_routes(module: ModuleType) -> set[tuple[str, str]]:
    app = getattr(module, "app", None)
    if app is None:
        return set()
    schema = app.get_openapi_schema()
    return {
        (method.upper(), path)
        for path, item in schema.paths.items()
        for method in item.model_dump(exclude_none=True)
        if method in {"get", "put", "post", "delete", "patch", "head", "options"}
    }


def page_routes(module: ModuleType) -> set[tuple[str, str]]:
    """Routes kept out of the OpenAPI document (the operator console's pages for people)."""
    app = getattr(module, "app", None)
    if app is None:
        return set()
    return {
        (str(method).upper(), route.openapi_path)
        for route in [*app._static_routes, *app._dynamic_routes]  # Powertools' route tables
        if not route.include_in_schema
        for method in (route.method if isinstance(route.method, list | tuple) else [route.method])
    }


def serves(template_route: tuple[str, str], route: tuple[str, str]) -> bool:
    """Whether API Gateway sends `route` to `template_route` (its method or ANY; its path, or a
    path below a greedy {proxy+})."""
    (method, path), (wanted_method, wanted_path) = template_route, route
    if method not in (wanted_method, "ANY"):
        return False
    if path.endswith("/{proxy+}"):
        return wanted_path.startswith(path.removesuffix("{proxy+}"))
    return path == wanted_path


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_routes_declared_in_code_and_in_the_template_are_the_same(logical_id: str) -> None:
    """Each documented route is an event of its own; the console's pages reach their function
    through its greedy events, each of which serves at least one page."""
    module = load_handler_module(logical_id)
    declared, pages = template_routes(logical_id), page_routes(module)
    page_events = {event for event in declared if any(serves(event, page) for page in pages)}
    assert code_routes(module) == declared - page_events
    assert [page for page in sorted(pages) if not any(serves(event, page) for event in declared)] == []


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_function_handler_exists(logical_id: str) -> None:
    props = FUNCTIONS[logical_id]["Properties"]
    module = load_handler_module(logical_id)
    assert callable(getattr(module, props["Handler"].rpartition(".")[2]))
    assert (ROOT / props["CodeUri"] / "requirements.txt").is_file()


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_function_names_its_service_for_logs(logical_id: str) -> None:
    variables = FUNCTIONS[logical_id]["Properties"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_SERVICE_NAME"]


def test_every_api_event_targets_a_declared_api() -> None:
    for logical_id, function in FUNCTIONS.items():
        for name, event in (function["Properties"].get("Events") or {}).items():
            if event["Type"] == "Api":
                assert event["Properties"]["RestApiId"] == {"Ref": event["Properties"]["RestApiId"]["Ref"]}
                assert event["Properties"]["RestApiId"]["Ref"] in APIS, f"{logical_id}.{name}"


def test_the_local_stack_can_create_every_resource_type_the_template_declares() -> None:
    declared = {spec["Type"] for spec in RESOURCES.values()}
    assert declared <= supported_resource_types(), declared - supported_resource_types()


@pytest.mark.parametrize("api", sorted(APIS))
def test_every_gateway_response_carries_the_request_id(api: str) -> None:
    responses = APIS[api]["Properties"]["GatewayResponses"]
    assert {"MISSING_AUTHENTICATION_TOKEN", "REQUEST_TOO_LARGE", "THROTTLED", "DEFAULT_4XX", "DEFAULT_5XX"} <= set(
        responses
    )
    assert responses["THROTTLED"]["ResponseParameters"]["Headers"]["Retry-After"] == "'1'"
    for kind, spec in responses.items():
        assert spec["ResponseParameters"]["Headers"]["X-Request-ID"] == "context.requestId", kind
    assert responses["MISSING_AUTHENTICATION_TOKEN"]["StatusCode"] == 404


TOPICS = {"Fn::Sub": "arn:${AWS::Partition}:sns:*:*:*"}


def test_functions_use_scoped_policies_only() -> None:
    """Inline statements only (tests/unit/test_iam.py derives them from the code), each allowing
    named actions on named resources, never "*" but for SMS: `sns:Publish` to phone numbers and
    `sns:CheckIfPhoneNumberIsOptedOut` have no resource to name, so they are allowed on "*" beside
    a Deny of the same actions on every topic."""
    sms_actions = {"sns:Publish", "sns:CheckIfPhoneNumberIsOptedOut"}
    for logical_id, function in FUNCTIONS.items():
        for policy in function["Properties"].get("Policies") or []:
            assert isinstance(policy, dict) and set(policy) == {"Statement"}, f"{logical_id}: {policy!r}"
            statements = policy["Statement"]
            for statement in statements:
                resources = (
                    statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
                )
                sms_only = {"Sid": "NoTopics", "Effect": "Deny", "Action": statement["Action"], "Resource": TOPICS}
                if statement == sms_only and set(statement["Action"]) <= sms_actions:
                    continue
                if set(statement["Action"]) <= sms_actions and resources == ["*"]:
                    assert statement["Effect"] == "Allow" and sms_only in statements, logical_id
                    continue
                assert statement["Effect"] == "Allow" and all(r not in ("*", "") for r in resources), logical_id
                assert all(":" in action and "*" not in action for action in statement["Action"]), logical_id


def test_every_work_queue_has_a_dead_letter_queue() -> None:
    queues = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::SQS::Queue"}
    targets = {
        q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for q in queues.values()
        if "RedrivePolicy" in q["Properties"]
    }
    on_failure = {  # event source mappings' on-failure destinations are terminal queues too
        event["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
        for function in FUNCTIONS.values()
        for event in (function["Properties"].get("Events") or {}).values()
        if "DestinationConfig" in event.get("Properties", {})
    }
    work_queues = set(queues) - targets - on_failure
    assert work_queues and targets
    for name in work_queues:
        assert "RedrivePolicy" in queues[name]["Properties"], name
        assert queues[name]["Properties"]["RedrivePolicy"]["maxReceiveCount"] >= 1


def test_samconfig_has_one_environment_per_service_region() -> None:
    regions = TEMPLATE["Parameters"]["ServiceRegion"]["AllowedValues"]
    aws_regions = set()
    for env in regions:
        config = load_samconfig(ROOT / "samconfig.toml", env)
        assert config["parameter_overrides"]["ServiceRegion"] == env
        assert config["stack_name"] == f"mzpay-{env}"
        aws_regions.add(config["region"])
        peers = config["parameter_overrides"]["PeerRegionUrls"]
        assert all(entry.split(".", 1)[0] != env for entry in peers.split(","))
    assert len(aws_regions) == len(regions), "each service region deploys to its own AWS region"


def test_samconfig_builds_in_a_container_because_the_runtime_is_newer_than_this_python() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    for env in ("default", "mz", "regional-sa"):
        assert config[env]["build"]["parameters"]["use_container"] is True
    assert TEMPLATE["Globals"]["Function"]["Runtime"] == "python3.12"
    assert TEMPLATE["Globals"]["Function"]["Tracing"] == "Active"


def test_the_committed_openapi_documents_match_the_code() -> None:
    import json

    from devstack.openapi import OUT, documents

    generated = documents()
    assert sorted(generated) == ["collection", "gateway", "management"]
    for name, document in generated.items():
        committed = json.loads((OUT / f"{name}.json").read_text(encoding="utf-8"))
        assert committed == document, f"docs/openapi/{name}.json is stale: run make openapi"
        declared = {
            (event["Properties"]["Method"].lower(), event["Properties"]["Path"])
            for logical_id, function in FUNCTIONS.items()
            if not page_routes(load_handler_module(logical_id))  # the console's pages are not the API's
            for event in (function["Properties"].get("Events") or {}).values()
            if event["Type"] == "Api" and event["Properties"]["RestApiId"]["Ref"] == f"{name.capitalize()}Api"
        }
        documented = {(method, path) for path, item in document["paths"].items() for method in item}
        assert documented == declared


@pytest.mark.parametrize(
    ("api", "condition"), [("GatewayApi", "HasGatewayMtlsDomain"), ("ManagementApi", "HasManagementMtlsDomain")]
)
def test_each_api_can_be_served_on_a_mutual_tls_domain(api: str, condition: str) -> None:
    """API Gateway's mutual TLS (a custom domain with a truststore) for merchants and operators;
    the management API then answers on that domain only (its execute-api endpoint disabled)."""
    (domain,) = [
        spec
        for spec in RESOURCES.values()
        if spec["Type"] == "AWS::ApiGateway::DomainName" and spec["Condition"] == condition
    ]
    assert set(domain["Properties"]["MutualTlsAuthentication"]) >= {"TruststoreUri"}
    assert domain["Properties"]["SecurityPolicy"] == "TLS_1_2"
    (mapping,) = [
        spec
        for spec in RESOURCES.values()
        if spec["Type"] == "AWS::ApiGateway::BasePathMapping" and spec["Properties"]["RestApiId"] == {"Ref": api}
    ]
    assert mapping["Condition"] == condition
    disabled = APIS["ManagementApi"]["Properties"]["DisableExecuteApiEndpoint"]
    assert disabled == {"Fn::If": ["HasManagementMtlsDomain", True, False]}
