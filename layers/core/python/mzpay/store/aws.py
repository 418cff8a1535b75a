"""One boto3 session per execution environment; clients and tables are made once and reused."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from mzpay.config import env as env
from mzpay.config import settings
from mzpay.memo import once

CONNECT_TIMEOUT_SECONDS = 2
READ_TIMEOUT_SECONDS = 5


@once
def session_and_config() -> tuple[Any, Any]:
    # Imported on first use: a request that never touches AWS keeps boto3 off the cold start.
    import boto3
    from botocore.config import Config

    # Fail fast and let the caller answer 503 + Retry-After rather than hang a request; the local
    # stack sets longer timeouts (its moto, on a busy machine, answers slower than AWS).
    tuning = settings()
    config = Config(
        connect_timeout=tuning.aws_connect_timeout_seconds or CONNECT_TIMEOUT_SECONDS,
        read_timeout=tuning.aws_read_timeout_seconds or READ_TIMEOUT_SECONDS,
        retries={"max_attempts": 2, "mode": "standard"},
    )
    return boto3.session.Session(), config


@once
def client(service: str) -> Any:
    """A boto3 client for `service` (AWS_ENDPOINT_URL, if set, points it at the local stack)."""
    session, config = session_and_config()
    return session.client(service, config=config)


class SqsQueue:
    """A store that is an SQS queue, at `url` (each names its queue in its `from_env`)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def post(self, body: str) -> None:
        """One message with `body` on the queue."""
        client("sqs").send_message(QueueUrl=self.url, MessageBody=body)


@once
def table(name: str) -> Any:
    """A DynamoDB Table resource."""
    session, config = session_and_config()
    return session.resource("dynamodb", config=config).Table(name)


def _error_response(exc: BaseException) -> dict[str, Any]:
    """The AWS error response a botocore exception carries; {} for those that carry none (a
    timeout or a connection error has no `response`, or, requests-style, `response = None`)."""
    response = getattr(exc, "response", None)
    return response if isinstance(response, dict) else {}


def error_code(exc: BaseException) -> str:
    """The AWS error code of `exc` ('' when it is not an AWS error answer)."""
    error = _error_response(exc).get("Error")
    return str(error.get("Code", "")) if isinstance(error, dict) else ""


def is_conditional_failure(exc: BaseException) -> bool:
    """True for a lost conditional write (single item or inside a transaction)."""
    code = error_code(exc)
    if code == "ConditionalCheckFailedException":
        return True
    if code == "TransactionCanceledException":
        reasons = _error_response(exc).get("CancellationReasons") or []
        return any(isinstance(r, dict) and r.get("Code") == "ConditionalCheckFailed" for r in reasons)
    return False


def landed(write: Callable[[], object]) -> bool:
    """Run the conditional `write`: True when it landed, False when its condition refused it
    (any other failure is raised)."""
    try:
        write()
    except Exception as exc:
        if is_conditional_failure(exc):
            return False
        raise
    return True


def first_failed_item(exc: BaseException) -> int:
    """The index of the first item of a canceled transaction whose condition failed (0 when the
    answer does not say)."""
    reasons = _error_response(exc).get("CancellationReasons") or []
    codes = [r.get("Code") if isinstance(r, dict) else None for r in reasons]
    return next((i for i, code in enumerate(codes) if code == "ConditionalCheckFailed"), 0)


# AWS answers that mean "not now": retrying later can succeed.
RETRYABLE_ERROR_CODES = frozenset(
    {
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "LimitExceededException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalServerError",
        "InternalFailure",
        "InternalError",
        "TransactionInProgressException",
        "TransactionConflict",
        "KMSInternalException",
        "KeyUnavailableException",
        "DependencyTimeoutException",
        "RequestTimeout",
        "RequestTimeoutException",
    }
)


def is_dependency_fault(exc: BaseException) -> bool:
    """True for a failure of AWS rather than of the request or the code: unreachable (connect or
    read timeout, connection refused or reset), throttled, or a 5xx. The caller answers 503 with
    Retry-After, never 500. A transaction cancelled only by conflicts (no condition failed) is
    one too. The one place that decides it: the resolver and every store ask here."""
    botocore_exceptions = sys.modules.get("botocore.exceptions")
    if botocore_exceptions is None:
        return False
    if isinstance(exc, (botocore_exceptions.ConnectionError, botocore_exceptions.HTTPClientError)):
        return True  # connect/read timeouts, refused or reset connections, proxy errors
    if isinstance(exc, botocore_exceptions.ClientError):
        code = error_code(exc)
        if code == "TransactionCanceledException":
            reasons = _error_response(exc).get("CancellationReasons") or []
            codes = {r.get("Code") for r in reasons if isinstance(r, dict)} - {"None", None}
            return bool(codes) and codes <= {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}
        status = _error_response(exc).get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return code in RETRYABLE_ERROR_CODES or (isinstance(status, int) and status >= 500)
    return False


BATCH_GET_ATTEMPTS = 3


def batch_get(client: Any, request: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """BatchGetItem of `request` (RequestItems), the items found per table. Keys DynamoDB leaves
    unprocessed (throttling) are asked again after a short backoff, as AWS advises; still left
    after BATCH_GET_ATTEMPTS, it is a dependency fault (the caller answers 503 + Retry-After)."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in request}
    for attempt in range(BATCH_GET_ATTEMPTS):
        if attempt:
            time.sleep(0.05 * 2**attempt)
        response = client.batch_get_item(RequestItems=request)
        for name, items in response.get("Responses", {}).items():
            found.setdefault(name, []).extend(items)
        request = response.get("UnprocessedKeys") or {}
        if not request:
            return found
    from botocore.exceptions import ClientError

    error = {"Code": "ProvisionedThroughputExceededException", "Message": "BatchGetItem left keys unprocessed"}
    raise ClientError({"Error": error}, "BatchGetItem")


def read_keys(client: Any, table_name: str, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items under `keys` in the table `table_name` (consistent reads, one BatchGetItem), in
    the order of `keys`; a key with no item is left out."""
    if not keys:
        return []
    items = batch_get(client, {table_name: {"Keys": keys, "ConsistentRead": True}})[table_name]
    found = {(item["pk"], item["sk"]): item for item in items}
    return [found[key] for key in ((k["pk"], k["sk"]) for k in keys) if key in found]


def in_partition(key: str) -> dict[str, Any]:
    """The Query arguments that read the table's partition `key` (its items under pk = `key`)."""
    return {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {":pk": key}}


def index_entry(partition: str, sort: str, index: str = "gsi1") -> dict[str, str]:
    """The attributes that list an item in `index` (`<index>pk`, `<index>sk`): in the partition
    `partition`, ordered by `sort`. `in_index` reads such a partition."""
    return {f"{index}pk": partition, f"{index}sk": sort}


def in_index(key: str, index: str = "gsi1", hash_key: str = "") -> dict[str, Any]:
    """The Query arguments that read the partition `key` of the table's `index` (whose hash key
    is `hash_key`, by default `<index>pk`)."""
    return {
        "IndexName": index,
        "KeyConditionExpression": f"{hash_key or index + 'pk'} = :pk",
        "ExpressionAttributeValues": {":pk": key},
    }


def query_pages(table: Any, query: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every answer of the Query `query` on `table`, page after page to the end."""
    query = dict(query)
    while True:
        answer = table.query(**query)
        yield answer
        if "LastEvaluatedKey" not in answer:
            return
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def query_all(table: Any, **query: Any) -> list[dict[str, Any]]:
    """Every item the Query `query` finds in `table`, in its order."""
    return [item for answer in query_pages(table, query) for item in answer.get("Items", [])]


def query_up_to(table: Any, limit: int, **query: Any) -> list[dict[str, Any]]:
    """The first `limit` items (or fewer, at the end) the Query `query` finds in `table`, each
    page asked only for what is still missing."""
    items: list[dict[str, Any]] = []
    while len(items) < limit:
        answer = table.query(**query, Limit=limit - len(items))
        items += answer.get("Items", [])
        if "LastEvaluatedKey" not in answer:
            break
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return items


def index_page(
    table: Any, index: str, key_name: str, key: str, size: int, start: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A page of the items under `key_name` = `key` in the table's `index`, in its sort order, and
    the key to continue after (None: the end)."""
    query: dict[str, Any] = {**in_index(key, index, key_name), "Limit": size}
    if start is not None:
        query["ExclusiveStartKey"] = start
    answer = table.query(**query)
    return answer.get("Items", []), answer.get("LastEvaluatedKey")


def newest_first(
    table: Any, partition: str, size: int, start: dict[str, str] | None
) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
    """A page of `partition`'s items (sort keys ULIDs, so newest first), and the key to continue after."""
    query: dict[str, Any] = {**in_partition(partition), "ScanIndexForward": False, "Limit": size}
    if start is not None:
        query["ExclusiveStartKey"] = start
    answer = table.query(**query)
    last = answer.get("LastEvaluatedKey")
    return answer.get("Items", []), ({"pk": last["pk"], "sk": last["sk"]} if last else None)
