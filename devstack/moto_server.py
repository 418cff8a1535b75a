"""moto in server mode, with corrections to its DynamoDB (and Secrets Manager's CreateSecret).

1. DynamoDB applies each request (a conditional write, a transaction) atomically; moto does
   not. It evaluates a condition and then writes without a lock, and a cancelled transaction
   restores a copy of the whole table, which can undo another request's committed write. Two
   conditional writers could then both "win", hiding the very races the product guards
   against; serialising moto's DynamoDB request handling restores DynamoDB's guarantee while
   clients still race over HTTP. Secrets Manager's CreateSecret likewise checks that the name
   is free and then adds the secret unlocked (atomic_secrets): one racing creator wins, as on AWS.
2. moto deep-copies every table a transaction touches (stream history included) so that it can
   roll back: each transaction costs more than the last, and a local stack that has run for a
   while answers money-moving requests in seconds. Under (1) a transaction can instead check
   every condition first and then write, with nothing to roll back.

3. Per request, moto's server finds the service by listing its own package's folders and trying
   hundreds of URL patterns, holding a lock, and logs a line; a Query reads and sorts every item
   of the table to keep one partition's; and each answer is written by a serializer that walks
   the operation's botocore model through generic value pickers (a fifth of moto's CPU in a test
   run). In server mode (quicker_moto) the service of a host is remembered, requests are not
   logged, a Query of a table's key reads only its partition, and the answer of an item operation
   is written straight from its plain result (tests/unit/test_moto_server.py compares the two
   writers' JSON): a stack that has served a whole test run answers as quickly as a new one.

Run by the local stack (devstack.stack.start_moto), it also tells the stack which tables it
wrote (`--changes-fd`, devstack.changes) and exits when the stack does (`--exit-with-stdin`: the
stack holds the other end of moto's standard input; a stack that dies, even killed, closes it).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from moto.core.responses import ActionResult
from moto.core.utils import get_service_model
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    ConditionalCheckFailed,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models.table import StreamShard, Table
from moto.dynamodb.responses import DynamoHandler, DynamoResult
from moto.secretsmanager.models import SecretsManagerBackend

from devstack.changes import ChangeWriter

ENABLE_TOTP = "MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP"  # moto's Cognito then verifies TOTP codes


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


class _DeferredPrivateKey:
    """moto's KMS makes an RSA key pair for every key it creates, symmetric ones too (about
    75 ms of CPU each; the integration tests provision three keys per test): this one makes it
    the first time a Sign, Verify or GetPublicKey uses it."""

    def __init__(self, make: Callable[[str], Any], key_spec: str) -> None:
        self._make, self._key_spec = make, key_spec
        self._key: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._key is None:
            self._key = self._make(self._key_spec)
        return getattr(self._key, name)


@contextmanager
def deferred_kms_keys() -> Iterator[None]:
    """While inside, a KMS key's asymmetric key pair is made when first used (_DeferredPrivateKey)."""
    from moto.kms import models as kms_models

    original = kms_models.generate_private_key
    kms_models.generate_private_key = lambda key_spec: _DeferredPrivateKey(original, key_spec)  # type: ignore[assignment,return-value]
    try:
        yield
    finally:
        kms_models.generate_private_key = original


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


@contextmanager
def atomic_secrets() -> Iterator[None]:
    """While inside, Secrets Manager's CreateSecret applies atomically, as on AWS: moto checks that
    the name is free and then adds the secret, unlocked, so two racing creators could both "win"
    (the second replacing the first's value) where AWS answers ResourceExistsException to one."""
    lock = threading.Lock()
    original_create = SecretsManagerBackend.create_secret

    def create_secret(self: SecretsManagerBackend, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original_create(self, *args, **kwargs)

    SecretsManagerBackend.create_secret = create_secret  # type: ignore[method-assign]
    try:
        yield
    finally:
        SecretsManagerBackend.create_secret = original_create  # type: ignore[method-assign]


@contextmanager
def telling_changes(changes: ChangeWriter) -> Iterator[None]:
    """While inside, every stream record moto adds (a table's item written: put, update, delete,
    in a transaction or a batch too) is told to `changes` as (region, table)."""
    original_add = StreamShard.add

    def add(self: StreamShard, old: Any, new: Any) -> None:
        original_add(self, old, new)
        changes.changed(self.table.region_name, self.table.name)

    StreamShard.add = add  # type: ignore[method-assign]
    try:
        yield
    finally:
        StreamShard.add = original_add  # type: ignore[method-assign]


_query = threading.local()  # the partition a Query of this thread reads (quicker_moto)
_WHOLE_TABLE = object()  # ... or every item, unsorted


@contextmanager
def quicker_moto() -> Iterator[None]:
    """While inside: the service of each host is looked up once, moto's package folders listed
    once, and a Query without an index reads its partition only (moto's Query takes every item of
    the table, sorted, and keeps the partition's: its cost grew with the table). A Query with an
    index still reads every item, unsorted: it sorts its results itself."""
    from moto import backends
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    original_backend_for_host = DomainDispatcherApplication.get_backend_for_host
    original_modules = backends.list_of_moto_modules
    original_all_items = Table.all_items
    original_query = Table.query
    original_serialized = DynamoHandler.serialized
    modules = list(original_modules())
    known: dict[str | None, Any] = {}

    def get_backend_for_host(self: Any, host: str | None) -> Any:
        if host not in known:
            known[host] = original_backend_for_host(self, host)
        return known[host]

    def all_items(self: Table) -> list[Any]:
        scope = getattr(_query, "scope", None)
        if scope is None:
            return original_all_items(self)
        if scope is _WHOLE_TABLE:
            return [item for hashed in self.items.values() for item in _partition(self, hashed)]
        hashed = self.items.get(scope)
        return [] if hashed is None else _partition(self, hashed)

    def query(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        _query.scope = hash_key if index_name is None and hash_key is not None else _WHOLE_TABLE
        try:
            return original_query(self, hash_key, *args, **kwargs)
        finally:
            _query.scope = None

    def serialized(self: DynamoHandler, result: ActionResult) -> Any:
        if type(result) in (ActionResult, DynamoResult) and self._get_action() in _ITEM_OPERATIONS:
            output = get_service_model("dynamodb").operation_model(self._get_action()).output_shape
            with contextlib.suppress(_NotPlain):
                body = json.dumps(_plain(output, result.result))
                return 200, {"Content-Type": "application/x-amz-json-1.0", **self.response_headers}, body
        return original_serialized(self, result)

    DomainDispatcherApplication.get_backend_for_host = get_backend_for_host  # type: ignore[method-assign]
    backends.list_of_moto_modules = lambda: modules
    Table.all_items = all_items  # type: ignore[method-assign]
    Table.query = query  # type: ignore[method-assign]
    DynamoHandler.serialized = serialized  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        DomainDispatcherApplication.get_backend_for_host = original_backend_for_host  # type: ignore[method-assign]
        backends.list_of_moto_modules = original_modules
        Table.all_items = original_all_items  # type: ignore[method-assign]
        Table.query = original_query  # type: ignore[method-assign]
        DynamoHandler.serialized = original_serialized  # type: ignore[method-assign]


# The DynamoDB operations whose answers hold only items, keys, counts and capacities: written as
# JSON straight from moto's plain result (blobs in base64), keeping the members the operation's
# model declares, as moto's serializer does. Anything else in a result (a timestamp) is left to it.
_ITEM_OPERATIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)
_SCALARS = frozenset({"string", "boolean", "integer", "long", "double", "float"})


class _NotPlain(Exception):
    """A value the straight writer does not write: moto's serializer does."""


def _plain(shape: Any, value: Any) -> Any:
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        members = shape.members
        return {
            name: _plain(members[name], member)
            for name, member in value.items()
            if member is not None and name in members
        }
    if kind == "map" and isinstance(value, dict):
        return {key: _plain(shape.value, member) for key, member in value.items()}
    if kind == "list" and isinstance(value, list | tuple):
        return [_plain(shape.member, member) for member in value]
    if kind == "blob" and isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if kind in _SCALARS and isinstance(value, str | bool | int | float):
        return value
    raise _NotPlain(kind)


def _partition(table: Table, hashed: Any) -> list[Any]:
    """The items of one hash key: a dict by range key when the table has one, else the item."""
    return list(hashed.values()) if table.range_key_attr else [hashed]


def exit_with_stdin() -> None:
    """Exit the process as soon as standard input ends (its writer, the stack, is gone)."""

    def watch() -> None:
        while os.read(0, 4096):  # not sys.stdin: its lock, held at exit, aborts the interpreter
            pass
        os._exit(0)  # nothing of moto's is worth keeping: its state lives in memory only

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


IDENTITY_PATH = "/__devstack__/identity"  # answers --identity: the stack knows its own moto


@contextmanager
def answering(path: str, content_type: str, body: Callable[[], bytes]) -> Iterator[None]:
    """While inside, moto's server answers GET `path` with `body()` (devstack's own routes)."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    original_call = DomainDispatcherApplication.__call__

    def call(self: Any, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO") == path:
            start_response("200 OK", [("Content-Type", content_type)])
            return [body()]
        return original_call(self, environ, start_response)

    DomainDispatcherApplication.__call__ = call  # type: ignore[method-assign]
    try:
        yield
    finally:
        DomainDispatcherApplication.__call__ = original_call  # type: ignore[method-assign]


def answering_identity(identity: str) -> contextlib.AbstractContextManager[None]:
    """While inside, moto's server answers GET IDENTITY_PATH with `identity`: the stack that
    started it reads it back before it provisions anything (another program on the port would not
    know it)."""
    return answering(IDENTITY_PATH, "text/plain", lambda: identity.encode("utf-8"))


SENT_PATH = "/__devstack__/sent"  # what moto's SES and SNS "sent", for tests and mzpay-admin


def sent_messages() -> dict[str, list[dict[str, Any]]]:
    """Every e-mail moto's SES kept (raw MIME or simple) and every SMS its SNS published to a
    phone number, in every account and region, oldest first: moto's own records, read from its
    backends."""
    from moto.ses.models import ses_backends
    from moto.sns.models import sns_backends

    emails: list[dict[str, Any]] = []
    sms: list[dict[str, Any]] = []
    for account_id, regions in ses_backends.items():
        for region, backend in regions.items():
            for message in backend.sent_messages:
                emails.append(
                    {
                        "region": region,
                        "account_id": account_id,
                        "message_id": message.id,
                        "source": message.source,
                        "destinations": message.destinations,
                        "raw_data": getattr(message, "raw_data", None),
                        "subject": getattr(message, "subject", None),
                        "body": getattr(message, "body", None),
                    }
                )
    for account_id, sns_regions in sns_backends.items():
        for region, sns in sns_regions.items():
            for message_id, (phone_number, text) in sns.sms_messages.items():
                sms.append(
                    {
                        "region": region,
                        "account_id": account_id,
                        "message_id": message_id,
                        "phone_number": phone_number,
                        "message": text,
                    }
                )
    return {"emails": emails, "sms": sms}


def answering_sent() -> contextlib.AbstractContextManager[None]:
    """While inside, moto's server answers GET SENT_PATH with sent_messages() as JSON."""
    return answering(SENT_PATH, "application/json", lambda: json.dumps(sent_messages(), default=str).encode("utf-8"))


def main(argv: list[str]) -> None:
    from moto import server

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--changes-fd", type=int, help="write `<region> <table>` lines here (devstack.changes)")
    parser.add_argument("--exit-with-stdin", action="store_true", help="exit when standard input ends")
    parser.add_argument("--identity", help="answer it at IDENTITY_PATH (the stack checks that moto is its own)")
    own, rest = parser.parse_known_args(argv)
    os.environ[ENABLE_TOTP] = "true"  # moto's Cognito checks TOTP codes (devstack.cognito)
    if own.exit_with_stdin:
        exit_with_stdin()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request: moto serves thousands a minute
    with (
        atomic_dynamodb(),
        atomic_secrets(),
        quicker_moto(),
        deferred_kms_keys(),
        answering_sent(),
        contextlib.ExitStack() as stack,
    ):
        if own.changes_fd is not None:
            stack.enter_context(telling_changes(ChangeWriter(own.changes_fd)))
        if own.identity is not None:
            stack.enter_context(answering_identity(own.identity))
        server.main(rest)


if __name__ == "__main__":
    main(sys.argv[1:])
