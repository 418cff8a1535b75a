"""Event source mappings played locally: SQS -> function and DynamoDB stream -> function.

SQS: messages a batch reports as failed (ReportBatchItemFailures), or a whole batch whose
invocation failed, are left on the queue; SQS (moto) makes them visible again after the
visibility timeout and moves them to the dead-letter queue past maxReceiveCount. A mapping with
ScalingConfig.MaximumConcurrency runs up to that many invocations at once, like Lambda (a batch is
received only while an invocation slot is free, so no message waits received but unprocessed);
one without it runs one at a time (Lambda would scale it out: locally the others stay serial).
Streams: records are delivered in order per shard; a failed batch is retried from the first
failed record, or bisected (BisectBatchOnFunctionError), until MaximumRetryAttempts or
MaximumRecordAgeInSeconds, then described to the OnFailure destination and skipped, like Lambda.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import boto3

from devstack.changes import TableChanges, stream_table
from devstack.lambdas import FunctionRuntime, InvocationError
from devstack.threads import Loop

log = logging.getLogger("devstack.esm")


# ---------------------------------------------------------------- filter criteria
def _leaf_matches(rule: Any, value: Any, present: bool) -> bool:
    if isinstance(rule, dict):
        ((op, arg),) = rule.items()
        if op == "exists":
            return present is bool(arg)
        if not present:
            return False
        if op == "prefix":
            return isinstance(value, str) and value.startswith(arg)
        if op == "suffix":
            return isinstance(value, str) and value.endswith(arg)
        if op == "equals-ignore-case":
            return isinstance(value, str) and value.lower() == str(arg).lower()
        if op == "anything-but":
            excluded = arg if isinstance(arg, list) else [arg]
            return value not in excluded
        raise NotImplementedError(f"filter operator {op!r} is not emulated")
    return present and value == rule


def pattern_matches(pattern: Mapping[str, Any], data: Any) -> bool:
    """Lambda event filtering: every key of the pattern must match (AND); a list of rules
    matches when any rule does (OR)."""
    for key, rules in pattern.items():
        present = isinstance(data, Mapping) and key in data
        value = data.get(key) if isinstance(data, Mapping) else None
        if isinstance(rules, Mapping):
            if not present or not pattern_matches(rules, value):
                return False
            continue
        if not isinstance(rules, list):
            raise ValueError(f"filter rules for {key!r} must be a list or an object")
        values = value if isinstance(value, list) else [value]
        if not any(_leaf_matches(rule, v, present) for rule in rules for v in values):
            return False
    return True


def parse_filters(filter_criteria: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [json.loads(item["Pattern"]) for item in (filter_criteria or {}).get("Filters") or []]


def passes_filters(filters: Sequence[Mapping[str, Any]], record: Mapping[str, Any]) -> bool:
    return not filters or any(pattern_matches(f, record) for f in filters)


def failed_item_ids(result: Any, batch_ids: Sequence[str]) -> set[str] | None:
    """The ids a partial-batch response reports as failed; None means the whole batch failed
    (a malformed response, or an id that is not in the batch)."""
    if result is None or (isinstance(result, dict) and not result.get("batchItemFailures")):
        return set()
    if not isinstance(result, dict) or not isinstance(result["batchItemFailures"], list):
        return None
    failed: set[str] = set()
    for item in result["batchItemFailures"]:
        identifier = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not identifier or identifier not in batch_ids:
            return None
        failed.add(identifier)
    return failed


# An idle queue is asked once per long poll (moto answers as soon as a message is visible, a
# returned one included, so a longer wait costs no latency, only fewer requests).
SQS_LONG_POLL_SECONDS = 20
# An idle stream is read again after this rest; moto's table changes (devstack.changes) cut it short
# at the next write, so where they are told it is only a safety net.
STREAM_POLL_SECONDS = 0.2
FOLLOWED_STREAM_POLL_SECONDS = 5.0


class _Poller(Loop):
    failure_pause = 1.0

    def __init__(self, name: str, runtime: FunctionRuntime, session: boto3.session.Session, endpoint: str):
        super().__init__(name)
        self.runtime = runtime
        self.session = session
        self.endpoint = endpoint
        self.deliveries = 0

    def once(self) -> bool | None:
        return self.poll_once()

    def poll_once(self) -> bool | None:
        raise NotImplementedError


class SqsEventSource(_Poller):
    """SQS -> function."""

    def __init__(
        self,
        runtime: FunctionRuntime,
        session: boto3.session.Session,
        endpoint: str,
        *,
        queue_url: str,
        queue_arn: str,
        batch_size: int = 10,
        report_batch_item_failures: bool = False,
        filters: Sequence[Mapping[str, Any]] = (),
        maximum_concurrency: int | None = None,
    ):
        super().__init__(f"sqs:{queue_arn.rsplit(':', 1)[1]}->{runtime.spec.logical_id}", runtime, session, endpoint)
        self.sqs = session.client("sqs", endpoint_url=endpoint)
        self.queue_url = queue_url
        self.queue_arn = queue_arn
        self.batch_size = max(1, min(int(batch_size), 10))
        self.report_failures = report_batch_item_failures
        self.filters = list(filters)
        if maximum_concurrency is not None and not 2 <= int(maximum_concurrency) <= 1000:
            raise ValueError(f"MaximumConcurrency {maximum_concurrency}: Lambda accepts 2 to 1000")
        self.concurrency = int(maximum_concurrency or 1)
        self.slots = threading.BoundedSemaphore(self.concurrency)
        self._counter = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0  # the most invocations seen at once (the emulation's own test reads it)

    def record(self, message: dict[str, Any]) -> dict[str, Any]:
        attributes = message.get("MessageAttributes") or {}
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes") or {},
            "messageAttributes": {
                name: {
                    "stringValue": attr.get("StringValue"),
                    "stringListValues": [],
                    "binaryListValues": [],
                    "dataType": attr.get("DataType"),
                }
                for name, attr in attributes.items()
            },
            "md5OfBody": message.get("MD5OfBody"),
            "eventSource": "aws:sqs",
            "eventSourceARN": self.queue_arn,
            "awsRegion": self.runtime.spec.region,
        }

    def _filter_view(self, record: dict[str, Any]) -> dict[str, Any]:
        try:
            return {**record, "body": json.loads(record["body"])}
        except ValueError:
            return record

    def poll_once(self) -> None:
        if not self.slots.acquire(timeout=1):  # every invocation slot busy: receive nothing meanwhile
            return
        try:
            messages = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=self.batch_size,
                WaitTimeSeconds=SQS_LONG_POLL_SECONDS,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
        except BaseException:
            self.slots.release()
            raise
        if not messages:
            self.slots.release()
            return
        if self.concurrency == 1:
            self._process(messages)
        else:
            threading.Thread(target=self._process, args=(messages,), name=f"{self.name}:batch", daemon=True).start()

    def _process(self, messages: list[dict[str, Any]]) -> None:
        """One batch: invoke, then delete what is done; frees its slot at the end."""
        with self._counter:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            self._invoke_and_delete(messages)
        except Exception:
            if not self.stopping.is_set():
                log.exception("%s: batch failed", self.name)
        finally:
            with self._counter:
                self.in_flight -= 1
            self.slots.release()

    def _invoke_and_delete(self, messages: list[dict[str, Any]]) -> None:
        records = [self.record(m) for m in messages]
        selected = [r for r in records if passes_filters(self.filters, self._filter_view(r))]
        done = [r for r in records if r not in selected]  # filtered out: deleted, like Lambda
        if selected:
            with self._counter:
                self.deliveries += 1
            try:
                result = self.runtime.invoke({"Records": selected})
            except InvocationError as exc:
                log.warning("%s: batch failed (%s); messages return after the visibility timeout", self.name, exc)
                failed: set[str] | None = None
            else:
                failed = failed_item_ids(result, [r["messageId"] for r in selected]) if self.report_failures else set()
            if failed is not None:
                done += [r for r in selected if r["messageId"] not in failed]
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": r["receiptHandle"]} for i, r in enumerate(done)],
            )


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class DynamoDBStreamEventSource(_Poller):
    """DynamoDB stream -> function, with Lambda's error handling for streams: a batch whose
    invocation failed is split in two (BisectBatchOnFunctionError) and each half retried on its
    own; a partial batch response checkpoints before the first failed record; records past
    MaximumRetryAttempts retries, or older than MaximumRecordAgeInSeconds, are discarded and
    described to the OnFailure destination (an SQS message shaped like Lambda's)."""

    def __init__(
        self,
        runtime: FunctionRuntime,
        session: boto3.session.Session,
        endpoint: str,
        *,
        stream_arn: str,
        batch_size: int = 100,
        starting_position: str = "LATEST",
        report_batch_item_failures: bool = False,
        filters: Sequence[Mapping[str, Any]] = (),
        maximum_retry_attempts: int = -1,
        maximum_record_age_seconds: int = -1,
        bisect_on_error: bool = False,
        on_failure_queue_url: str | None = None,
        retry_delay: float = 0.5,
        changes: TableChanges | None = None,
    ):
        super().__init__(f"stream:{stream_arn.split('/')[1]}->{runtime.spec.logical_id}", runtime, session, endpoint)
        self.streams = session.client("dynamodbstreams", endpoint_url=endpoint)
        self.sqs = session.client("sqs", endpoint_url=endpoint)
        self.stream_arn = stream_arn
        self.batch_size = max(1, min(int(batch_size), 1000))
        self.report_failures = report_batch_item_failures
        self.filters = list(filters)
        self.maximum_retry_attempts = int(maximum_retry_attempts)
        self.maximum_record_age = int(maximum_record_age_seconds)
        self.bisect = bool(bisect_on_error)
        self.on_failure_queue_url = on_failure_queue_url
        self.retry_delay = retry_delay
        self.discarded = 0
        shards = self.streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
        self.iterators = {
            shard["ShardId"]: self.streams.get_shard_iterator(
                StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType=starting_position
            )["ShardIterator"]
            for shard in shards
        }
        self.pause = STREAM_POLL_SECONDS
        if changes is not None:
            changes.follow(*stream_table(stream_arn), self.wake)
            self.pause = FOLLOWED_STREAM_POLL_SECONDS

    def poll_once(self) -> bool:
        """Read each shard once and deliver what passes the filters; True when something did."""
        busy = False
        for shard_id, iterator in list(self.iterators.items()):
            if iterator is None:
                continue
            response = self.streams.get_records(ShardIterator=iterator, Limit=self.batch_size)
            self.iterators[shard_id] = response.get("NextShardIterator")
            records = [{**_jsonable(r), "eventSourceARN": self.stream_arn} for r in response.get("Records", [])]
            records = [r for r in records if passes_filters(self.filters, r)]
            if records:
                busy = True
                self.deliver(records, shard_id)
        return busy

    def deliver(self, records: list[dict[str, Any]], shard_id: str = "shardId-local") -> None:
        """Play `records` (in order) to the function until each is done or discarded."""
        batches = [records]
        while batches and not self.stopping.is_set():
            halves = self._deliver_batch(batches.pop(0), shard_id)
            batches[0:0] = halves  # a bisected batch: its halves, in order, before the rest

    def _expired(self, record: dict[str, Any]) -> bool:
        created = record.get("dynamodb", {}).get("ApproximateCreationDateTime")
        return self.maximum_record_age >= 0 and created is not None and time.time() - created > self.maximum_record_age

    def _deliver_batch(self, records: list[dict[str, Any]], shard_id: str) -> list[list[dict[str, Any]]]:
        """Invoke on `records` until done; the halves to play next when the batch is bisected."""
        attempts = 0
        while records and not self.stopping.is_set():
            old = [r for r in records if self._expired(r)]
            if old:  # Lambda discards records past their maximum age before invoking
                self.discard(old, shard_id, "RecordAgeExceeded", attempts, None)
                records = [r for r in records if r not in old]
                if not records:
                    return []
            self.deliveries += 1
            error: str | None = None
            try:
                result = self.runtime.invoke({"Records": records})
                failed = (
                    failed_item_ids(result, [r["dynamodb"]["SequenceNumber"] for r in records])
                    if self.report_failures
                    else set()
                )
            except InvocationError as exc:
                log.warning("%s: batch failed (%s)", self.name, exc)
                failed, error = None, "Unhandled"
            if failed == set():
                return []
            if failed is None and self.bisect and len(records) > 1:
                middle = len(records) // 2
                log.warning("%s: bisecting a failed batch of %d records", self.name, len(records))
                return [records[:middle], records[middle:]]
            if failed is not None:  # checkpoint before the first failed record, retry from it
                first = next(i for i, r in enumerate(records) if r["dynamodb"]["SequenceNumber"] in failed)
                records = records[first:]
            attempts += 1
            if 0 <= self.maximum_retry_attempts < attempts:
                log.error("%s: dropping %d records after %d retries", self.name, len(records), attempts - 1)
                self.discard(records, shard_id, "RetryAttemptsExhausted", attempts, error)
                return []
            self.stopping.wait(min(self.retry_delay * 2 ** (attempts - 1), 5.0))
        return []

    def discard(
        self, records: list[dict[str, Any]], shard_id: str, condition: str, invokes: int, error: str | None
    ) -> None:
        """Describe discarded records to the OnFailure destination, as Lambda does (no data, only
        where they are in the stream); without a destination they are just dropped."""
        self.discarded += len(records)
        if self.on_failure_queue_url is None:
            return
        arrivals = [r["dynamodb"].get("ApproximateCreationDateTime") or time.time() for r in records]
        message = {
            "requestContext": {
                "requestId": str(uuid.uuid4()),
                "functionArn": self.runtime.spec.arn,
                "condition": condition,
                "approximateInvokeCount": invokes,
            },
            "responseContext": {
                "statusCode": 200,
                "executedVersion": "$LATEST",
                **({"functionError": error} if error else {}),
            },
            "version": "1.0",
            "timestamp": _iso(time.time()),
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": records[0]["dynamodb"]["SequenceNumber"],
                "endSequenceNumber": records[-1]["dynamodb"]["SequenceNumber"],
                "approximateArrivalOfFirstRecord": _iso(arrivals[0]).replace(".000Z", "Z"),
                "approximateArrivalOfLastRecord": _iso(arrivals[-1]).replace(".000Z", "Z"),
                "batchSize": len(records),
                "streamArn": self.stream_arn,
            },
        }
        self.sqs.send_message(QueueUrl=self.on_failure_queue_url, MessageBody=json.dumps(message))


# ---------------------------------------------------------------- schedules
LOCAL_SCHEDULE_CAP_SECONDS = 5.0  # locally a schedule fires at least this often, so its effect shows quickly
LOCAL_CRON_SECONDS = 60.0  # a cron(...) schedule (a time of day: the daily due-date sweep) fires this often locally
_RATE_UNITS = {"minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400}


def rate_seconds(expression: str) -> float:
    """Seconds between runs of an EventBridge `rate(N unit)` expression (cron is not emulated)."""
    inner = expression.strip()
    if not (inner.startswith("rate(") and inner.endswith(")")):
        raise NotImplementedError(f"schedule {expression!r}: only rate(...) is emulated")
    value, unit = inner[5:-1].split()
    return int(value) * _RATE_UNITS[unit]


class ScheduleEventSource(_Poller):
    """EventBridge schedule -> function: a Scheduled Event at the rate (capped locally)."""

    def __init__(
        self,
        runtime: FunctionRuntime,
        session: boto3.session.Session,
        endpoint: str,
        *,
        schedule: str,
        ready: threading.Event | None = None,
    ) -> None:
        super().__init__(f"schedule:{schedule}->{runtime.spec.logical_id}", runtime, session, endpoint)
        cron = schedule.strip().startswith("cron(")  # a time of day is not emulated: it just recurs
        self.interval = LOCAL_CRON_SECONDS if cron else min(rate_seconds(schedule), LOCAL_SCHEDULE_CAP_SECONDS)
        self.ready = ready  # set once the stack is up: nothing scheduled runs during its warm-up

    def poll_once(self) -> None:
        if self.ready is not None and not self.ready.is_set():
            self.ready.wait(self.interval)  # the schedule's clock starts when the stack is ready
            return
        if self.stopping.wait(self.interval):
            return
        event = {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": "123456789012",
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self.runtime.spec.region,
            "resources": [],
            "detail": {},
        }
        try:
            self.runtime.invoke(event)
            self.deliveries += 1
        except InvocationError:
            log.warning("%s: scheduled invocation failed", self.name)
