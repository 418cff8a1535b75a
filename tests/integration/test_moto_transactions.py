"""devstack.moto_server: transactions check every condition, then write (no whole-table copy)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from devstack.moto_server import atomic_dynamodb
from tests.integration.support import REGION


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws(), atomic_dynamodb():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        dynamodb.create_table(
            TableName="t",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        dynamodb.put_item(TableName="t", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        yield dynamodb


def put(pk: str) -> dict[str, Any]:
    return {"Put": {"TableName": "t", "Item": {"pk": {"S": pk}}, "ConditionExpression": "attribute_not_exists(pk)"}}


def update_a(expression: str, condition: str, values: dict[str, Any]) -> dict[str, Any]:
    """A conditional update of the item "a"."""
    update = {"UpdateExpression": expression, "ConditionExpression": condition, "ExpressionAttributeValues": values}
    return {"Update": {"TableName": "t", "Key": {"pk": {"S": "a"}}, **update}}


def test_a_cancelled_transaction_writes_nothing_and_names_each_reason(client: Any) -> None:
    with pytest.raises(ClientError) as raised:
        client.transact_write_items(
            TransactItems=[
                put("b"),
                update_a("SET n = :two", "n = :zero", {":two": {"N": "2"}, ":zero": {"N": "0"}}),
            ]
        )
    reasons = [r["Code"] for r in raised.value.response["CancellationReasons"]]
    assert (raised.value.response["Error"]["Code"], reasons) == (
        "TransactionCanceledException",
        ["None", "ConditionalCheckFailed"],
    )
    assert "Item" not in client.get_item(TableName="t", Key={"pk": {"S": "b"}})
    assert client.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}


def test_a_transaction_whose_conditions_hold_applies_every_write(client: Any) -> None:
    client.transact_write_items(
        TransactItems=[
            put("c"),
            update_a("SET n = n + :one", "n = :one", {":one": {"N": "1"}}),
            {"Delete": {"TableName": "t", "Key": {"pk": {"S": "gone"}}}},
        ]
    )
    assert client.get_item(TableName="t", Key={"pk": {"S": "c"}})["Item"] == {"pk": {"S": "c"}}
    assert client.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "2"}


def test_two_operations_on_one_item_are_refused(client: Any) -> None:
    with pytest.raises(ClientError) as raised:
        client.transact_write_items(TransactItems=[put("d"), put("d")])
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert "Item" not in client.get_item(TableName="t", Key={"pk": {"S": "d"}})
