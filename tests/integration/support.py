"""What every in-process moto test needs: a clean fake-AWS environment and fresh mzpay caches."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from devstack.modules import load_module
from devstack.moto_server import deferred_kms_keys
from devstack.provision import ProvisionedStack, provision
from devstack.template import Intrinsics, load_samconfig, load_template, parameter_values
from mzpay import deps
from mzpay.domain.access.keys import generate_key, key_hash, redacted
from mzpay.store.directory import ApiKey

REGION = "af-south-1"


def function_app(group: str, name: str) -> Any:
    """A function's app.py (functions/<group>/app.py), loaded afresh as the module `name`."""
    return load_module(ROOT / "functions" / group / "app.py", name)


def sqs_records(url: str, queue_name: str, hidden: int = 60) -> list[dict[str, Any]]:
    """The queue's messages as Lambda's SQS event source hands them to a function (left
    invisible `hidden` seconds: 0, visible again at once, as after the visibility timeout)."""
    import boto3

    answer = boto3.client("sqs", region_name=REGION).receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], VisibilityTimeout=hidden
    )
    return [
        {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": m["Attributes"],
            "messageAttributes": {},
            "eventSource": "aws:sqs",
            "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:{queue_name}",
        }
        for m in answer.get("Messages", [])
    ]


def reset_mzpay_caches() -> None:
    """Forget every client, table, store, secret and setting mzpay built (mzpay.deps.reset)."""
    deps.reset()


def create_directory_table(name: str) -> None:
    """The tenant directory's key schema (pk/sk), as template.yaml declares it."""
    import boto3

    boto3.client("dynamodb", region_name=REGION).create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    )


ROOT = Path(__file__).resolve().parents[2]
REGION = "af-south-1"


@contextmanager
def directory_table(monkeypatch: pytest.MonkeyPatch, table: str, **env: str) -> Iterator[None]:
    """In-process moto holding the tenant directory `table` (DIRECTORY_TABLE), with `env` set;
    mzpay's caches fresh before and after."""
    for name, value in {"DIRECTORY_TABLE": table, **env}.items():
        monkeypatch.setenv(name, value)
    reset_mzpay_caches()
    with mock_aws():
        create_directory_table(table)
        yield
        reset_mzpay_caches()


@functools.cache
def _mz_template() -> tuple[dict[str, Any], dict[str, Any]]:
    """template.yaml with its nested stacks, read once per process (provisioning only reads it;
    tests/integration/test_provision.py checks that), and the mz stack's parameter values."""
    template = load_template(ROOT / "template.yaml")
    config = load_samconfig(ROOT / "samconfig.toml", "mz")
    return template, parameter_values(template, {**config["parameter_overrides"], **AT_ANY_HOUR})


# The tests run at any hour: no quiet hours for SMS unless a test sets them with a frozen clock
# (tests/integration/test_message_courtesy.py), as the local stack does (devstack.stack).
AT_ANY_HOUR = {"SmsQuietHours": "none"}


@contextmanager
def provisioned_stack(
    seed_secrets: dict[str, str] | None = None, observability: bool = False
) -> Iterator[ProvisionedStack]:
    """The mz stack of template.yaml provisioned in in-process moto (af-south-1); its alarms and
    log groups only named unless `observability` (tests/integration/test_provision.py checks
    them; the functions' code never reads them, and they are two thirds of a stack's calls)."""
    template, parameters = _mz_template()
    intrinsics = Intrinsics(
        parameters=dict(parameters),
        pseudo={
            "AWS::Region": REGION,
            "AWS::AccountId": "123456789012",
            "AWS::StackName": "mzpay-mz",
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        },
        conditions=template["Conditions"],
    )
    with mock_aws(), deferred_kms_keys():
        yield provision(
            template,
            intrinsics,
            region=REGION,
            stack_name="mzpay-mz",
            endpoint=None,
            root=ROOT,
            seed_secrets=seed_secrets or {},
            observability=observability,
        )


@contextmanager
def function_stack(function: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    """The provisioned stack with `function`'s environment set, as the function runs in it; the
    layer's dependencies are built afresh for it and dropped afterwards."""
    with provisioned_stack() as provisioned:
        for name, value in provisioned.functions[function].environment.items():
            monkeypatch.setenv(name, value)
        deps.reset()
        yield provisioned
        deps.reset()


def new_api_key(key_id: str, account_id: str, pepper: str, **changes: Any) -> tuple[ApiKey, str]:
    """An active mz key of `account_id` for payments (test mode unless `changes` say otherwise)
    and its secret, hashed with `pepper`; `changes` may name any ApiKey field."""
    secret = generate_key(changes.get("mode", "test"))
    key = ApiKey(
        key_id=key_id,
        account_id=account_id,
        home_region="mz",
        mode="test",
        scopes=["payments:read", "payments:write"],
        status="active",
        key_hash=key_hash(secret, pepper),
        hint=redacted(secret),
        created_at="2026-03-01T10:00:00Z",
    )
    return replace(key, **changes), secret


FAKE_AWS = {"AWS_DEFAULT_REGION": REGION, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


@contextmanager
def functions_stack(*functions: str) -> Iterator[ProvisionedStack]:
    """The provisioned stack with the environments of all `functions` set (for a module-wide
    fixture: it sets the fake AWS environment itself) and DynamoDB atomic per request, so that
    transactions check then write instead of copying the table (devstack.moto_server)."""
    from devstack.moto_server import atomic_dynamodb

    with pytest.MonkeyPatch.context() as monkeypatch:
        for name, value in FAKE_AWS.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
        with provisioned_stack() as provisioned:
            for function in functions:
                for name, value in provisioned.functions[function].environment.items():
                    monkeypatch.setenv(name, value)
            deps.reset()
            with atomic_dynamodb():
                yield provisioned
            deps.reset()


def dynamodb_requests() -> list[str]:
    """The DynamoDB operations mzpay's session sends from now on, in order (a live list); every
    cache is forgotten first, so the clients are made again on the session that counts."""
    from mzpay import deps
    from mzpay.store import aws

    deps.reset()
    sent: list[str] = []
    session, _ = aws.session_and_config()
    session.events.register(
        "before-send.dynamodb",
        lambda request, **_: sent.append(request.headers["X-Amz-Target"].decode().split(".")[-1]),
    )
    return sent
