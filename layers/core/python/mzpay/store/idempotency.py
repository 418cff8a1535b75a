"""Idempotency records: one conditional write decides which request runs.

pk = <account>#<mode>#<Idempotency-Key>. A record is `in_progress` (owned by one request, with
a lock that expires when that request's Lambda would have timed out) or `completed` (holding
the original status, headers and body). Records expire after 24 h through DynamoDB TTL.

A request whose last write is one transaction (a charge's or a capture's outcome) completes its
record inside that transaction (`Completion`, `completion_item`): one round trip fewer, and a
function that dies after the write still leaves the answer for the retry.
"""

from __future__ import annotations

import contextvars
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mzpay.store.aws import env, is_conditional_failure
from mzpay.store.base import TableStore

RECORD_TTL_SECONDS = 24 * 3600
IN_PROGRESS = "in_progress"
COMPLETED = "completed"


class IdempotencyUnavailable(Exception):
    """The store could not be reached: the request must not run."""


@dataclass(frozen=True)
class Record:
    status: str
    fingerprint: str
    lock_expires_at: float
    response_status: int | None = None
    response_headers: dict[str, str] | None = None
    response_body: str | None = None


@dataclass(frozen=True)
class Claim:
    """The outcome of trying to start: `token` when this request owns the key, else the record
    that another request left."""

    token: str | None
    existing: Record | None


Answer = tuple[int, dict[str, str], str]  # status, headers, body: what a replay sends


@dataclass
class Completion:
    """The record the current request owns, to be completed in the transaction of its last
    write: `render` turns the use case's answer into what the HTTP layer would send; `written`
    is what such a transaction stored (None until one landed)."""

    table_name: str
    pk: str
    token: str
    render: Callable[[Any], Answer]
    written: Answer | None = field(default=None)


_pending: contextvars.ContextVar[Completion | None] = contextvars.ContextVar("idempotency_completion", default=None)


@contextmanager
def completing(completion: Completion) -> Iterator[Completion]:
    """Within this block, a store's final write may complete `completion` (see `completion_item`)."""
    reset = _pending.set(completion)
    try:
        yield completion
    finally:
        _pending.reset(reset)


def pending() -> Completion | None:
    """The completion of the current request, while it still waits to be written."""
    completion = _pending.get()
    return completion if completion is not None and completion.written is None else None


def completion_item(completion: Completion, answer: Answer) -> dict[str, Any]:
    """A TransactItem completing `completion` with `answer` (only while its owner holds it)."""
    status, headers, body = answer
    return {
        "Update": {
            "TableName": completion.table_name,
            "Key": {"pk": completion.pk},
            "UpdateExpression": "SET #s = :completed, response_status = :status, response_headers = :headers, "
            "response_body = :body REMOVE lock_expires_at",
            "ConditionExpression": "#s = :in_progress AND #o = :token",
            "ExpressionAttributeNames": {"#s": "status", "#o": "owner"},
            "ExpressionAttributeValues": {
                ":completed": COMPLETED,
                ":status": status,
                ":headers": headers,
                ":body": body,
                ":in_progress": IN_PROGRESS,
                ":token": completion.token,
            },
        }
    }


class IdempotencyStore(TableStore):
    @classmethod
    def from_env(cls) -> IdempotencyStore:
        return cls(env("IDEMPOTENCY_TABLE"))

    def claim(self, pk: str, fingerprint: str, lock_seconds: float) -> Claim:
        """Own `pk` unless a completed record or a live in-progress lock holds it."""
        now = time.time()
        token = secrets.token_hex(16)
        try:
            self.table.put_item(
                Item={
                    "pk": pk,
                    "status": IN_PROGRESS,
                    "fingerprint": fingerprint,
                    "owner": token,
                    "lock_expires_at": int((now + lock_seconds) * 1000),
                    "ttl": int(now) + RECORD_TTL_SECONDS,
                },
                ConditionExpression="attribute_not_exists(pk) OR (#s = :in_progress AND lock_expires_at < :now)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":in_progress": IN_PROGRESS, ":now": int(now * 1000)},
            )
            return Claim(token, None)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise IdempotencyUnavailable(str(exc)) from exc
        existing = self.read(pk)
        if existing is None:  # expired between the write and the read: try once more
            return self.claim(pk, fingerprint, lock_seconds)
        return Claim(None, existing)

    def read(self, pk: str) -> Record | None:
        try:
            item = self.table.get_item(Key={"pk": pk}, ConsistentRead=True).get("Item")
        except Exception as exc:
            raise IdempotencyUnavailable(str(exc)) from exc
        if item is None:
            return None
        return Record(
            status=item["status"],
            fingerprint=item["fingerprint"],
            lock_expires_at=int(item.get("lock_expires_at", 0)) / 1000,
            response_status=int(item["response_status"]) if "response_status" in item else None,
            response_headers=dict(item.get("response_headers") or {}),
            response_body=item.get("response_body"),
        )

    def complete(
        self, pk: str, token: str, status: int, headers: dict[str, str], body: str, replace: bool = False
    ) -> None:
        """Keep the answer for replays (only the owner may; a lost lock is not overwritten).
        `replace`: also over an answer this owner already completed the record with."""
        try:
            self.table.update_item(
                Key={"pk": pk},
                UpdateExpression="SET #s = :completed, response_status = :status, response_headers = :headers, "
                "response_body = :body REMOVE lock_expires_at",
                ConditionExpression=(
                    "#o = :token AND (#s = :in_progress OR #s = :completed)"
                    if replace
                    else "#s = :in_progress AND #o = :token"
                ),
                ExpressionAttributeNames={"#s": "status", "#o": "owner"},
                ExpressionAttributeValues={
                    ":completed": COMPLETED,
                    ":status": status,
                    ":headers": headers,
                    ":body": body,
                    ":in_progress": IN_PROGRESS,
                    ":token": token,
                },
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise IdempotencyUnavailable(str(exc)) from exc

    def release(self, pk: str, token: str) -> None:
        """Forget an in-progress record this request owns (its answer was a 5xx)."""
        try:
            self.table.delete_item(
                Key={"pk": pk},
                ConditionExpression="#o = :token",
                ExpressionAttributeNames={"#o": "owner"},
                ExpressionAttributeValues={":token": token},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise IdempotencyUnavailable(str(exc)) from exc
