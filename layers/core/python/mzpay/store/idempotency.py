"""Idempotency records: one conditional write decides which request runs.

pk = <account>#<mode>#<Idempotency-Key>. A record is `in_progress` (owned by one request, with
a lock that expires when that request's Lambda would have timed out) or `completed` (holding
the original status, headers and body). Records expire after 24 h through DynamoDB TTL.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from mzpay.store.aws import env, is_conditional_failure, table

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


class IdempotencyStore:
    def __init__(self, table_name: str) -> None:
        self.table = table(table_name)

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

    def complete(self, pk: str, token: str, status: int, headers: dict[str, str], body: str) -> None:
        """Keep the answer for replays (only the owner may; a lost lock is not overwritten)."""
        try:
            self.table.update_item(
                Key={"pk": pk},
                UpdateExpression="SET #s = :completed, response_status = :status, response_headers = :headers, "
                "response_body = :body REMOVE lock_expires_at",
                ConditionExpression="#s = :in_progress AND #o = :token",
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
