"""The local stack's moto (devstack.moto_server): the straight writer of DynamoDB item answers
writes the JSON moto's own serializer writes, for every kind of attribute and answer member."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from moto.dynamodb.responses import DynamoHandler
from moto.moto_server.werkzeug_app import create_backend_app

from devstack.moto_server import quicker_moto

HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "Host": "dynamodb.af-south-1.amazonaws.com",
    "Authorization": "AWS4-HMAC-SHA256 Credential=testing/20261129/af-south-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=x",
}
KEY = {"pk": {"S": "a"}, "sk": {"S": "1"}}
ITEM = {
    **KEY,
    "n": {"N": "1.50"},
    "b": {"B": base64.b64encode(b"\x00\x01\xff").decode()},
    "empty": {"S": ""},
    "l": {"L": [{"S": "x"}, {"NULL": True}, {"BOOL": False}, {"L": []}, {"M": {}}]},
    "m": {"M": {"ss": {"SS": ["a", "b"]}, "bs": {"BS": [base64.b64encode(b"zz").decode()]}, "ns": {"NS": ["1", "2"]}}},
    "gsi": {"S": "g"},
}
# (operation, request): each answered by both writers, compared.
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("PutItem", {"TableName": "t", "Item": ITEM, "ReturnConsumedCapacity": "TOTAL"}),
    ("PutItem", {"TableName": "t", "Item": {**ITEM, "sk": {"S": "2"}}, "ReturnValues": "NONE"}),
    ("PutItem", {"TableName": "t", "Item": {**ITEM, "sk": {"S": "3"}}}),
    ("PutItem", {"TableName": "t", "Item": ITEM, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "INDEXES"}),
    ("GetItem", {"TableName": "t", "Key": KEY}),
    ("GetItem", {"TableName": "t", "Key": {"pk": {"S": "none"}, "sk": {"S": "1"}}}),
    ("GetItem", {"TableName": "t", "Key": KEY, "ProjectionExpression": "n, m.ss", "ConsistentRead": True}),
    ("Query", {"TableName": "t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}),
    (
        "Query",
        {
            "TableName": "t",
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": "a"}},
            "Limit": 1,
            "ReturnConsumedCapacity": "TOTAL",
        },
    ),
    ("Query", {"TableName": "t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "z"}}}),
    (
        "Query",
        {
            "TableName": "t",
            "IndexName": "by-gsi",
            "KeyConditionExpression": "gsi = :g",
            "ExpressionAttributeValues": {":g": {"S": "g"}},
            "Select": "COUNT",
        },
    ),
    ("Scan", {"TableName": "t", "FilterExpression": "n > :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}),
    ("Scan", {"TableName": "t", "Limit": 2}),
    (
        "UpdateItem",
        {
            "TableName": "t",
            "Key": KEY,
            "UpdateExpression": "SET n = n + :one, added = :b REMOVE l",
            "ExpressionAttributeValues": {":one": {"N": "1"}, ":b": {"B": base64.b64encode(b"q").decode()}},
            "ReturnValues": "ALL_NEW",
        },
    ),
    (
        "UpdateItem",
        {
            "TableName": "t",
            "Key": KEY,
            "UpdateExpression": "SET v = :v",
            "ExpressionAttributeValues": {":v": {"N": "7"}},
        },
    ),
    (
        "UpdateItem",
        {
            "TableName": "t",
            "Key": KEY,
            "UpdateExpression": "SET v = :v",
            "ExpressionAttributeValues": {":v": {"N": "8"}},
            "ReturnValues": "UPDATED_OLD",
        },
    ),
    (
        "BatchWriteItem",
        {"RequestItems": {"t": [{"PutRequest": {"Item": {**ITEM, "sk": {"S": f"b{i}"}}}} for i in range(3)]}},
    ),
    (
        "BatchGetItem",
        {
            "RequestItems": {
                "t": {"Keys": [KEY, {"pk": {"S": "a"}, "sk": {"S": "b1"}}, {"pk": {"S": "no"}, "sk": {"S": "x"}}]}
            }
        },
    ),
    (
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Put": {"TableName": "t", "Item": {**ITEM, "sk": {"S": "tx"}}}},
                {
                    "Update": {
                        "TableName": "t",
                        "Key": KEY,
                        "UpdateExpression": "SET w = :w",
                        "ExpressionAttributeValues": {":w": {"S": "w"}},
                    }
                },
            ],
            "ReturnConsumedCapacity": "TOTAL",
        },
    ),
    (
        "TransactGetItems",
        {
            "TransactItems": [
                {"Get": {"TableName": "t", "Key": KEY}},
                {"Get": {"TableName": "t", "Key": {"pk": {"S": "no"}, "sk": {"S": "x"}}}},
            ]
        },
    ),
    ("DeleteItem", {"TableName": "t", "Key": {"pk": {"S": "a"}, "sk": {"S": "2"}}, "ReturnValues": "ALL_OLD"}),
    ("DeleteItem", {"TableName": "t", "Key": {"pk": {"S": "a"}, "sk": {"S": "3"}}}),
    ("DescribeTable", {"TableName": "t"}),  # not an item operation: moto's own writer
]


@pytest.fixture
def compared() -> Iterator[list[tuple[str, Any, Any]]]:
    """Inside quicker_moto, every DynamoDB answer written by both writers: (operation, straight, moto's)."""
    seen: list[tuple[str, Any, Any]] = []
    original = DynamoHandler.serialized

    def left_to_moto(self: DynamoHandler, result: Any) -> Any:
        seen.append((f"moto wrote {self._get_action()}", None, None))
        return original(self, result)

    DynamoHandler.serialized = left_to_moto  # type: ignore[method-assign]
    with quicker_moto():
        straight = DynamoHandler.serialized

        def both(self: DynamoHandler, result: Any) -> Any:
            theirs = original(self, result)
            ours = straight(self, result)
            seen.append((self._get_action(), (ours[0], dict(ours[1]), ours[2]), theirs))  # as written, then
            return ours

        DynamoHandler.serialized = both  # type: ignore[method-assign]
        try:
            yield seen
        finally:
            DynamoHandler.serialized = straight  # type: ignore[method-assign]
    DynamoHandler.serialized = original  # type: ignore[method-assign]


def test_the_straight_writer_writes_what_motos_serializer_writes(compared: list[tuple[str, Any, Any]]) -> None:
    client = create_backend_app("dynamodb").test_client()

    def call(operation: str, body: dict[str, Any]) -> Any:
        headers = {**HEADERS, "X-Amz-Target": f"DynamoDB_20120810.{operation}"}
        return client.post("/", data=json.dumps(body), headers=headers)

    created = call(
        "CreateTable",
        {
            "TableName": "t",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "gsi", "AttributeType": "S"},
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "by-gsi",
                    "KeySchema": [{"AttributeName": "gsi", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    assert created.status_code == 200
    for operation, body in REQUESTS:
        assert call(operation, body).status_code == 200, operation
    refused = call("PutItem", {"TableName": "t", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)"})
    assert (refused.status_code, refused.json["__type"]) == (
        400,
        "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
    )
    # moto's own writer wrote only what is not an item operation
    assert [operation for operation, ours, _ in compared if ours is None] == [
        "moto wrote CreateTable",
        "moto wrote DescribeTable",
    ]
    compared[:] = [entry for entry in compared if entry[1] is not None]
    assert [operation for operation, _, _ in compared][1:] == [operation for operation, _ in REQUESTS]
    for operation, (status, headers, body), (their_status, their_headers, their_body) in compared:
        assert (status, headers) == (their_status, their_headers), operation
        assert json.loads(body) == json.loads(their_body), operation
    answered = {operation: json.loads(body) for operation, (_, _, body), _ in compared}
    assert answered["TransactGetItems"]["Responses"][0]["Item"]["b"] == {
        "B": base64.b64encode(b"\x00\x01\xff").decode()
    }


def test_racing_creators_of_one_secret_have_one_winner(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import boto3
    from botocore.exceptions import ClientError
    from moto import mock_aws
    from moto.secretsmanager.models import SecretsManagerBackend

    from devstack.moto_server import atomic_secrets
    from tests.integration.races import race

    # moto's window, held open: the first creator to add its secret waits (1 s at most) until
    # another has found the name free. Unlocked, both then add theirs; atomic_secrets never lets
    # a second creator check before the first has added.
    passed = threading.Condition()
    checks = [0]
    check, add = SecretsManagerBackend._check_with_existing_secrets_and_versions, SecretsManagerBackend._add_secret

    def counted_check(self: Any, *args: Any, **kwargs: Any) -> Any:
        found = check(self, *args, **kwargs)
        with passed:
            checks[0] += 1
            passed.notify_all()
        return found

    def held_add(self: Any, *args: Any, **kwargs: Any) -> Any:
        with passed:
            passed.wait_for(lambda: checks[0] >= 2, timeout=1)
        return add(self, *args, **kwargs)

    monkeypatch.setattr(SecretsManagerBackend, "_check_with_existing_secrets_and_versions", counted_check)
    monkeypatch.setattr(SecretsManagerBackend, "_add_secret", held_add)
    with mock_aws(), atomic_secrets():
        secrets = boto3.client("secretsmanager", region_name="af-south-1")

        def create(index: int) -> str:
            try:
                secrets.create_secret(Name="ca", SecretString=f"value {index}")
                return f"created {index}"
            except ClientError as exc:
                return str(exc.response["Error"]["Code"])

        outcomes = [value for _, value in race(4, create)]
        (winner,) = [outcome for outcome in outcomes if outcome.startswith("created")]
        assert sorted(outcomes) == sorted([winner] + ["ResourceExistsException"] * 3)
        assert secrets.get_secret_value(SecretId="ca")["SecretString"] == winner.replace("created", "value")


def test_a_deferred_kms_key_pair_is_made_at_its_first_use_and_signs_and_verifies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import boto3
    from moto import mock_aws
    from moto.kms import models as kms_models

    from devstack.moto_server import deferred_kms_keys

    for name, value in {"AWS_ACCESS_KEY_ID": "t", "AWS_SECRET_ACCESS_KEY": "t"}.items():
        monkeypatch.setenv(name, value)
    made: list[str] = []
    original = kms_models.generate_private_key
    monkeypatch.setattr(kms_models, "generate_private_key", lambda spec: made.append(spec) or original(spec))
    with mock_aws(), deferred_kms_keys():
        kms = boto3.client("kms", region_name="af-south-1")
        symmetric = kms.create_key()["KeyMetadata"]["KeyId"]
        assert (
            kms.decrypt(CiphertextBlob=kms.encrypt(KeyId=symmetric, Plaintext=b"x")["CiphertextBlob"])["Plaintext"]
            == b"x"
        )
        signing = kms.create_key(KeyUsage="SIGN_VERIFY", KeySpec="RSA_2048")["KeyMetadata"]["KeyId"]
        assert made == []  # neither key's pair made yet
        signed = kms.sign(KeyId=signing, Message=b"m", SigningAlgorithm="RSASSA_PSS_SHA_256")["Signature"]
        verified = kms.verify(KeyId=signing, Message=b"m", Signature=signed, SigningAlgorithm="RSASSA_PSS_SHA_256")
        assert verified["SignatureValid"] is True
        assert kms.get_public_key(KeyId=signing)["PublicKey"]
        assert made == ["RSA_2048"]  # the signing key's, once; the symmetric key never needed one
    assert kms_models.generate_private_key is not original  # the test's own wrapper is back in place
