"""The stack is watched: template.yaml declares each function's log group (with retention), each
API's access log (with the request id), the alarms an operator needs, each wired to the alarm
topic and to a runbook in docs/operations.md, and gradual deployments of the API functions rolled
back by those alarms. A new function or API is held to the same (these tests name what it lacks)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from devstack import permissions
from devstack.template import load_samconfig, load_template, template_text

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(ROOT / "template.yaml")
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTIONS = permissions.functions(TEMPLATE)
APIS = sorted(k for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Api")
ALARMS = {k: v["Properties"] for k, v in RESOURCES.items() if v["Type"] == "AWS::CloudWatch::Alarm"}
OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
TOPIC = [{"Ref": "AlarmTopic"}]


def alarms_on(namespace: str, metric: str, dimension: dict[str, Any] | None = None) -> list[str]:
    return [
        name
        for name, alarm in ALARMS.items()
        if alarm.get("Namespace") == namespace
        and alarm.get("MetricName") == metric
        and (dimension is None or dimension in (alarm.get("Dimensions") or []))
    ]


def watching(logical_id: str) -> str:
    """The log group and errors alarm a function needs, as template.yaml lines (beside the others)."""
    return f"""  {logical_id}Logs:
    Type: AWS::Logs::LogGroup
    DeletionPolicy: Retain
    UpdateReplacePolicy: Retain
    Properties:
      LogGroupName: !Sub /aws/lambda/${{{logical_id}}}
      RetentionInDays: !Ref LogRetentionDays

  {logical_id}ErrorsAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmDescription: !Sub "${{{logical_id}}} failed invocations (runbook: docs/operations.md, Function errors)."
      Namespace: AWS/Lambda
      MetricName: Errors
      Dimensions:
        - Name: FunctionName
          Value: !Ref {logical_id}
      Statistic: Sum
      Period: 60
      EvaluationPeriods: 1
      Threshold: 0
      ComparisonOperator: GreaterThanThreshold
      TreatMissingData: notBreaching
      AlarmActions: [!Ref AlarmTopic]
      OKActions: [!Ref AlarmTopic]
"""


def test_the_printed_blocks_are_the_templates_own() -> None:
    """What a failing test prints for a new function is what the others have (it deploys)."""
    text = template_text(ROOT / "template.yaml")  # with its nested templates
    assert all(watching(name) in text for name in FUNCTIONS)


def api_of(logical_id: str) -> str | None:
    events = RESOURCES[logical_id]["Properties"].get("Events") or {}
    apis = {e["Properties"]["RestApiId"]["Ref"] for e in events.values() if e["Type"] == "Api"}
    assert len(apis) <= 1, logical_id
    return next(iter(apis), None)


@pytest.mark.parametrize("logical_id", FUNCTIONS)
def test_each_function_has_a_log_group_with_retention(logical_id: str) -> None:
    groups = [
        spec
        for spec in RESOURCES.values()
        if spec["Type"] == "AWS::Logs::LogGroup"
        and spec["Properties"]["LogGroupName"] == {"Fn::Sub": f"/aws/lambda/${{{logical_id}}}"}
    ]
    assert len(groups) == 1, f"{logical_id} has no log group; add to template.yaml:\n{watching(logical_id)}"
    assert groups[0]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}


@pytest.mark.parametrize("logical_id", FUNCTIONS)
def test_each_function_has_an_errors_alarm(logical_id: str) -> None:
    found = alarms_on("AWS/Lambda", "Errors", {"Name": "FunctionName", "Value": {"Ref": logical_id}})
    assert found == [f"{logical_id}ErrorsAlarm"], f"{logical_id}: add to template.yaml:\n{watching(logical_id)}"


@pytest.mark.parametrize("logical_id", FUNCTIONS)
def test_each_api_function_deploys_gradually_rolled_back_by_its_alarms(logical_id: str) -> None:
    props = RESOURCES[logical_id]["Properties"]
    api = api_of(logical_id)
    if api is None:  # the authorizers and the workers: no API route of their own
        assert "DeploymentPreference" not in props
        return
    lines = f"""      AutoPublishAlias: live
      DeploymentPreference:
        Type: !Ref DeploymentType
        Alarms:
          - !Ref {logical_id}ErrorsAlarm
          - !Ref {api}ServerErrorsAlarm
          - !Ref {api}LatencyAlarm"""
    assert props.get("AutoPublishAlias") == "live", f"{logical_id}: add to its Properties:\n{lines}"
    preference = props["DeploymentPreference"]
    assert preference["Type"] == {"Ref": "DeploymentType"}
    assert preference["Alarms"] == [
        {"Ref": f"{logical_id}ErrorsAlarm"},
        {"Ref": f"{api}ServerErrorsAlarm"},
        {"Ref": f"{api}LatencyAlarm"},
    ]


def test_deployment_types_are_gradual_or_explicitly_all_at_once() -> None:
    allowed = TEMPLATE["Parameters"]["DeploymentType"]["AllowedValues"]
    assert TEMPLATE["Parameters"]["DeploymentType"]["Default"].startswith("Canary")
    assert all(re.fullmatch(r"(Canary|Linear)10Percent\w+|AllAtOnce", kind) for kind in allowed)


@pytest.mark.parametrize("api", APIS)
def test_each_api_writes_access_logs_with_the_request_id(api: str) -> None:
    props = RESOURCES[api]["Properties"]
    setting = props["AccessLogSetting"]
    assert setting["DestinationArn"] == {"Fn::GetAtt": [f"{api}AccessLogs", "Arn"]}
    assert RESOURCES[f"{api}AccessLogs"]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    fields = json.loads(setting["Format"])
    assert fields["requestId"] == "$context.requestId"  # the X-Request-ID every answer carries
    assert {"status", "responseLatency", "ip", "resourcePath", "httpMethod", "authorizerError"} <= set(fields)
    assert RESOURCES[api]["DependsOn"] == "ApiGatewayAccount"
    role = RESOURCES["ApiGatewayAccount"]["Properties"]["CloudWatchRoleArn"]
    assert role == {"Fn::GetAtt": ["ApiGatewayCloudWatchRole", "Arn"]}


@pytest.mark.parametrize("api", APIS)
def test_each_api_has_a_5xx_rate_and_a_latency_alarm(api: str) -> None:
    name = RESOURCES[api]["Properties"]["Name"]
    dimension = {"Name": "ApiName", "Value": name}
    assert alarms_on("AWS/ApiGateway", "5XXError", dimension) == [f"{api}ServerErrorsAlarm"]
    assert ALARMS[f"{api}ServerErrorsAlarm"]["Statistic"] == "Average"  # the rate
    assert alarms_on("AWS/ApiGateway", "Latency", dimension) == [f"{api}LatencyAlarm"]
    assert ALARMS[f"{api}LatencyAlarm"]["Threshold"] == {"Ref": "ApiLatencyThresholdMs"}


def test_throttles_stream_age_queue_age_and_dead_letters_are_watched() -> None:
    assert alarms_on("AWS/Lambda", "Throttles")
    stream_readers = [
        name
        for name in FUNCTIONS
        if any(e["Type"] == "DynamoDB" for e in (RESOURCES[name]["Properties"].get("Events") or {}).values())
    ]
    assert stream_readers
    for name in stream_readers:
        assert alarms_on("AWS/Lambda", "IteratorAge", {"Name": "FunctionName", "Value": {"Ref": name}}), name
    queues = {k: v["Properties"] for k, v in RESOURCES.items() if v["Type"] == "AWS::SQS::Queue"}
    dead_letters = {
        q["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0] for q in queues.values() if "RedrivePolicy" in q
    }
    on_failure = {
        e["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
        for name in FUNCTIONS
        for e in (RESOURCES[name]["Properties"].get("Events") or {}).values()
        if "DestinationConfig" in e.get("Properties", {})
    }
    for queue in queues:
        dimension = {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}
        if queue in dead_letters | on_failure:  # depth (or arrivals, for one drained by a function)
            watched = alarms_on("AWS/SQS", "ApproximateNumberOfMessagesVisible", dimension) + alarms_on(
                "AWS/SQS", "NumberOfMessagesReceived", dimension
            )
        else:
            watched = alarms_on("AWS/SQS", "ApproximateAgeOfOldestMessage", dimension)
        assert watched, queue


@pytest.mark.parametrize("alarm", sorted(ALARMS))
def test_each_alarm_reaches_the_topic_and_names_its_runbook(alarm: str) -> None:
    props = ALARMS[alarm]
    assert props["AlarmActions"] == TOPIC and props["OKActions"] == TOPIC, alarm
    assert props["TreatMissingData"] == "notBreaching"
    description = props["AlarmDescription"]
    text = description["Fn::Sub"] if isinstance(description, dict) else description
    match = re.search(r"runbook: docs/operations\.md, ([^)]+)\)", text)
    assert match, f"{alarm}: its description names no runbook"
    assert f"\n### {match.group(1)}\n" in OPERATIONS, f"docs/operations.md has no runbook '{match.group(1)}'"


def test_what_protects_retained_data_is_retained_too() -> None:
    """A retained table, bucket or secret is unreadable without its key: the key is retained."""
    retained = {k for k, v in RESOURCES.items() if v.get("DeletionPolicy") == "Retain"}
    for name in sorted(retained):
        key = permissions.kms_key_of(name, TEMPLATE)
        if key:
            assert key in retained, f"{name} is retained but its key {key} is not"
        assert RESOURCES[name].get("UpdateReplacePolicy") == "Retain", name
    assert {"DataKey", "KeyPepperSecret", "DirectoryTable", "PaymentsTable"} <= retained


def test_metrics_have_a_namespace_and_each_function_a_service() -> None:
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == "mzpay"
    assert all(
        RESOURCES[name]["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"] for name in FUNCTIONS
    )


def test_samconfig_names_what_an_operator_must_set_and_the_doc_every_parameter() -> None:
    must_set = {
        "ServiceRegion",
        "Stage",
        "PeerRegionUrls",
        "AlarmEmail",
        "OperatorIpAllowlist",
        "PublicGatewayUrl",
        "PublicCollectionUrl",
        "LicenceIssuerPublicKey",
        "CollectionOidcIssuer",
        "CollectionOidcJwksUri",
        "DirectoryHomeRegion",
        "DirectoryReplicaAwsRegions",
    }
    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    for env in TEMPLATE["Parameters"]["ServiceRegion"]["AllowedValues"]:
        overrides = load_samconfig(ROOT / "samconfig.toml", env)["parameter_overrides"]
        assert must_set <= set(overrides), (env, must_set - set(overrides))
        assert overrides["AlarmEmail"], env  # alarms that reach nobody are no alarms
        assert overrides["DirectoryReplicaAwsRegions"].split(",") == regions_in_home_order(config)
    for parameter in TEMPLATE["Parameters"]:
        assert f"| `{parameter}` |" in OPERATIONS, f"docs/operations.md, Parameters: `{parameter}` is missing"


def regions_in_home_order(config: dict[str, Any]) -> list[str]:
    home = load_samconfig(ROOT / "samconfig.toml", "mz")["parameter_overrides"]["DirectoryHomeRegion"]
    envs = TEMPLATE["Parameters"]["ServiceRegion"]["AllowedValues"]
    ordered = [home, *[e for e in envs if e != home]]
    return [config[env]["global"]["parameters"]["region"] for env in ordered]
