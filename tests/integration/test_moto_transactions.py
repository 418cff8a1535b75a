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


def _queries(dynamodb: Any) -> list[Any]:
    """Queries of the key and of an index, forwards and backwards, paged, filtered."""
    answers = []
    for forward in (True, False):
        for index in (None, "by_g"):
            names = {"#k": "g" if index else "pk"}
            pages, start = [], None
            while True:
                request: dict[str, Any] = {
                    "TableName": "q",
                    "KeyConditionExpression": "#k = :k",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": {":k": {"S": "p1"}},
                    "ScanIndexForward": forward,
                    "Limit": 3,
                }
                if index:
                    request["IndexName"] = index
                if start:
                    request["ExclusiveStartKey"] = start
                page = dynamodb.query(**request)
                pages.append(page["Items"])
                start = page.get("LastEvaluatedKey")
                if not start:
                    break
            answers.append(pages)
    answers.append(
        dynamodb.query(
            TableName="q",
            KeyConditionExpression="pk = :k AND begins_with(sk, :s)",
            FilterExpression="n > :n",
            ExpressionAttributeValues={":k": {"S": "p2"}, ":s": {"S": "s1"}, ":n": {"N": "3"}},
        )["Items"]
    )
    answers.append(
        dynamodb.query(
            TableName="q", KeyConditionExpression="pk = :k", ExpressionAttributeValues={":k": {"S": "none"}}
        )["Items"]
    )
    return answers


def test_quicker_moto_answers_every_query_as_moto_does() -> None:
    from devstack.moto_server import quicker_moto

    with mock_aws(), atomic_dynamodb():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        dynamodb.create_table(
            TableName="q",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk", "g")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "by_g",
                    "KeySchema": [
                        {"AttributeName": "g", "KeyType": "HASH"},
                        {"AttributeName": "sk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        for i in range(40):
            item = {"pk": {"S": f"p{i % 3}"}, "sk": {"S": f"s{i:02d}"}, "n": {"N": str(i % 7)}}
            if i % 2:
                item["g"] = {"S": f"p{i % 4}"}
            dynamodb.put_item(TableName="q", Item=item)
        expected = _queries(dynamodb)
        with quicker_moto():
            assert _queries(dynamodb) == expected
    assert any(len(pages) > 1 for pages in expected[:4])  # paged: the start keys were exercised
