"""moto in server mode, with two corrections to its DynamoDB.

1. DynamoDB applies each request (a conditional write, a transaction) atomically; moto does
   not. It evaluates a condition and then writes without a lock, and a cancelled transaction
   restores a copy of the whole table, which can undo another request's committed write. Two
   conditional writers could then both "win", hiding the very races the product guards
   against; serialising moto's DynamoDB request handling restores DynamoDB's guarantee while
   clients still race over HTTP.
2. moto deep-copies every table a transaction touches (stream history included) so that it can
   roll back: each transaction costs more than the last, and a local stack that has run for a
   while answers money-moving requests in seconds. Under (1) a transaction can instead check
   every condition first and then write, with nothing to roll back.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    ConditionalCheckFailed,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.responses import DynamoHandler


def _item_key(backend: Any, op_type: str, op: dict[str, Any]) -> dict[str, Any]:
    if op_type != "Put":
        return op["Key"]  # type: ignore[no-any-return]
    table = backend.get_table(op["TableName"])
    key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = op["Item"][table.range_key_attr]
    return key


def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
    """All conditions first (cancelling with per-item reasons, as DynamoDB does), then the writes.
    Only correct while requests are serialised (atomic_dynamodb)."""
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    seen: set[tuple[str, str]] = set()
    reasons: list[tuple[Any, Any, Any]] = []
    plan = []
    for item in transact_items:
        if len(item) > 1:
            raise TransactWriteSingleOpException
        op_type, op = next(iter(item.items()))
        key = _item_key(self, op_type, op)
        identity = (op["TableName"], str(sorted(key.items())))
        if identity in seen:
            raise MultipleTransactionsException()
        seen.add(identity)
        condition = op.get("ConditionExpression")
        current = self.get_item(op["TableName"], key)
        if condition is not None and not get_filter_expression(
            condition, op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
        ).expr(current):
            old = (
                current.to_json()["Attributes"]
                if current and op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
                else None
            )
            reasons.append(("ConditionalCheckFailed", ConditionalCheckFailed().message, old))
        else:
            reasons.append((None, None, None))
        plan.append((op_type, op, key))
    if any(code is not None for code, _, _ in reasons):
        raise TransactionCanceledException(reasons)
    for op_type, op, key in plan:
        names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
        if op_type == "Put":
            self.put_item(
                op["TableName"], op["Item"], expression_attribute_names=names, expression_attribute_values=values
            )
        elif op_type == "Delete":
            self.delete_item(op["TableName"], key, expression_attribute_names=names, expression_attribute_values=values)
        elif op_type == "Update":
            self.update_item(
                op["TableName"],
                key,
                update_expression=op["UpdateExpression"],
                expression_attribute_names=names,
                expression_attribute_values=values,
            )


@contextmanager
def atomic_dynamodb() -> Iterator[None]:
    """While inside, every DynamoDB request to moto (server or in-process) applies atomically,
    and transactions check then write instead of copying whole tables."""
    lock = threading.RLock()
    original_call = DynamoHandler.call_action
    original_transact = dynamodb_models.DynamoDBBackend.transact_write_items

    def call_action(self: DynamoHandler) -> Any:
        with lock:
            return original_call(self)

    DynamoHandler.call_action = call_action  # type: ignore[method-assign]
    dynamodb_models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    try:
        yield
    finally:
        DynamoHandler.call_action = original_call  # type: ignore[method-assign]
        dynamodb_models.DynamoDBBackend.transact_write_items = original_transact  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    from moto import server

    with atomic_dynamodb():
        server.main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
