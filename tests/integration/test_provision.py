"""The local stack creates what template.yaml declares (in-process moto)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from devstack.provision import ProvisionedStack
from devstack.template import load_template
from tests.integration.support import provisioned_stack

ROOT = Path(__file__).resolve().parents[2]
REGION = "af-south-1"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack({"OperatorTokenSecret": "seeded-operator-token"}, observability=True) as provisioned:
        yield provisioned


def test_events_table_has_a_new_image_stream_ttl_and_gsi(stack: ProvisionedStack) -> None:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    table = dynamodb.describe_table(TableName="mzpay-mz-EventsTable")["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert table["LatestStreamArn"] == stack.intrinsics.get_att("EventsTable", "StreamArn")
    assert [index["IndexName"] for index in table["GlobalSecondaryIndexes"]] == ["gsi1"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    ttl = dynamodb.describe_time_to_live(TableName="mzpay-mz-EventsTable")["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_every_declared_table_exists(stack: ProvisionedStack) -> None:
    names = set(boto3.client("dynamodb", region_name=REGION).list_tables()["TableNames"])
    assert names == {
        "mzpay-mz-PaymentsTable",
        "mzpay-mz-EventsTable",
        "mzpay-mz-IdempotencyTable",
        "mzpay-mz-CollectionTable",
        "mzpay-mz-AccountsTable",
        "mzpay-mz-WebhookDeliveriesTable",
        "mzpay-mz-AuditTable",
        "mzpay-directory",
    }


def test_directory_home_creates_a_replica_in_every_region_and_the_pepper_everywhere(stack: ProvisionedStack) -> None:
    assert stack.global_tables == {"mzpay-directory": ["af-south-1", "eu-west-1"]}
    for region in ("af-south-1", "eu-west-1"):
        table = boto3.client("dynamodb", region_name=region).describe_table(TableName="mzpay-directory")["Table"]
        assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    values = {
        boto3.client("secretsmanager", region_name=region).get_secret_value(SecretId="mzpay/api-key-pepper")[
            "SecretString"
        ]
        for region in ("af-south-1", "eu-west-1")
    }
    assert len(values) == 1 and len(values.pop()) == 64


def test_work_queues_redrive_to_their_dead_letter_queues(stack: ProvisionedStack) -> None:
    sqs = boto3.client("sqs", region_name=REGION)
    url = stack.intrinsics.ref("WebhookQueue")
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert json.loads(attributes["RedrivePolicy"]) == {
        "deadLetterTargetArn": stack.intrinsics.get_att("WebhookDeadLetterQueue", "Arn"),
        "maxReceiveCount": 20,
    }
    assert attributes["VisibilityTimeout"] == "180"  # 6x the sender's timeout
    assert attributes["MessageRetentionPeriod"] == "1209600"  # outlasts the retry schedule


def test_operator_secret_is_seeded_and_wired_to_the_authorizer(stack: ProvisionedStack) -> None:
    arn = stack.intrinsics.ref("OperatorTokenSecret")
    value = boto3.client("secretsmanager", region_name=REGION).get_secret_value(SecretId=arn)["SecretString"]
    assert value == "seeded-operator-token"
    authorizer = stack.functions["ManagementAuthorizerFunction"]
    assert authorizer.environment["OPERATOR_TOKEN_SECRET_ARN"] == arn
    assert authorizer.environment["POWERTOOLS_SERVICE_NAME"] == "management-authorizer"
    assert authorizer.timeout == 5


def test_functions_get_globals_merged_with_their_own_settings(stack: ProvisionedStack) -> None:
    gateway = stack.functions["GatewayPaymentsFunction"]
    assert gateway.environment["SERVICE_REGION"] == "mz"
    assert gateway.environment["POWERTOOLS_SERVICE_NAME"] == "gateway"
    assert gateway.environment["PEER_REGION_URLS"].startswith("regional-sa.gateway=https://")
    assert gateway.timeout == 28 and gateway.memory == 512  # its own timeout, the global memory
    assert stack.functions["CollectionSystemFunction"].timeout == 10  # the global timeout
    assert gateway.layer_paths == [ROOT / "layers" / "core" / "python"]
    assert gateway.code_dir == ROOT / "functions" / "gateway_payments"


def test_uploads_bucket_is_private_and_encrypted(stack: ProvisionedStack) -> None:
    s3 = boto3.client("s3", region_name=REGION)
    bucket = stack.intrinsics.ref("UploadsBucket")
    block = s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert all(block.values())
    rule = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"


def test_the_alarms_exist_and_the_unconfigured_resources_are_skipped(stack: ProvisionedStack) -> None:
    cloudwatch = boto3.client("cloudwatch", region_name=REGION)
    alarms = [
        alarm for page in cloudwatch.get_paginator("describe_alarms").paginate() for alarm in page["MetricAlarms"]
    ]
    declared = {
        name
        for name, spec in load_template(ROOT / "template.yaml")["Resources"].items()
        if spec["Type"] == "AWS::CloudWatch::Alarm"
    }
    assert {a["AlarmName"] for a in alarms} == {f"mzpay-mz-{name}" for name in declared}
    assert {"WebhookDeadLetterAlarm", "ReconciliationCasesAlarm", "GatewayPaymentsFunctionErrorsAlarm"} <= declared
    logs = boto3.client("logs", region_name=REGION).describe_log_groups(logGroupNamePrefix="/aws/lambda/")["logGroups"]
    payments = stack.functions["GatewayPaymentsFunction"].name
    assert {"logGroupName": f"/aws/lambda/{payments}", "retentionInDays": 90} in [
        {k: group.get(k) for k in ("logGroupName", "retentionInDays")} for group in logs
    ]
    cases = next(a for a in alarms if a["AlarmName"] == "mzpay-mz-ReconciliationCasesAlarm")
    assert (cases["Namespace"], cases["MetricName"], cases["Dimensions"]) == (
        "mzpay",
        "ReconciliationCasesOpen",
        [{"Name": "service", "Value": "payment-expiry"}],
    )
    assert (cases["Statistic"], cases["Threshold"], cases["ComparisonOperator"]) == (
        "Maximum",
        0.0,
        "GreaterThanThreshold",
    )
    # samconfig names the alarm address: the topic has its subscription
    topic = stack.intrinsics.ref("AlarmTopic")
    subscriptions = boto3.client("sns", region_name=REGION).list_subscriptions_by_topic(TopicArn=topic)
    assert [(s["Protocol"], s["Endpoint"]) for s in subscriptions["Subscriptions"]] == [
        ("email", "operations@mzpay.example")
    ]
    # no mutual-TLS custom domains configured (their parameters are empty)
    assert sorted(stack.skipped) == [
        "GatewayMtlsDomain",
        "GatewayMtlsMapping",
        "ManagementMtlsDomain",
        "ManagementMtlsMapping",
    ]


def test_apis_are_described_for_the_local_gateway(stack: ProvisionedStack) -> None:
    assert set(stack.apis) == {"GatewayApi", "CollectionApi", "ManagementApi", "DashboardApi"}
    management = stack.apis["ManagementApi"]
    assert (
        management["Auth"]["Authorizers"]["OperatorAuthorizer"]["FunctionArn"]
        == stack.functions["ManagementAuthorizerFunction"].arn
    )
    assert management["StageName"] == "prod"


def test_the_dashboards_user_pool_takes_totp_and_its_client_signs_in_on_the_server(stack: ProvisionedStack) -> None:
    import boto3

    cognito = boto3.client("cognito-idp", region_name=stack.region)
    pool_id = stack.intrinsics.refs["DashboardUserPool"]
    pool = cognito.describe_user_pool(UserPoolId=pool_id)["UserPool"]
    assert pool["UsernameAttributes"] == ["email"]
    assert pool["Policies"]["PasswordPolicy"]["MinimumLength"] == 12
    mfa = cognito.get_user_pool_mfa_config(UserPoolId=pool_id)
    assert (mfa["MfaConfiguration"], mfa["SoftwareTokenMfaConfiguration"]) == ("OPTIONAL", {"Enabled": True})
    client = cognito.describe_user_pool_client(
        UserPoolId=pool_id, ClientId=stack.intrinsics.refs["DashboardUserPoolClient"]
    )["UserPoolClient"]
    assert client["ExplicitAuthFlows"] == ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]
    assert "ClientSecret" not in client
    environment = stack.functions["DashboardFunction"].environment
    assert (environment["DASHBOARD_USER_POOL_ID"], environment["DASHBOARD_CLIENT_ID"]) == (pool_id, client["ClientId"])


def test_provisioning_reads_the_template_without_changing_it(stack: ProvisionedStack) -> None:
    """tests/integration/support.py reads template.yaml once per process and provisions every
    test's stack from that one copy: provisioning must leave it as the files say."""
    from tests.integration.support import _mz_template

    assert _mz_template()[0] == load_template(ROOT / "template.yaml")
