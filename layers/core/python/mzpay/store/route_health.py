"""Routing by health in the accounts table (docs/connectors.md#routing-by-health), with no hot item:

- outcome counters, time-bucketed and sharded: pk ROUTE_HEALTH#<route>#<method>#<shard>,
  sk BUCKET#<bucket start, epoch seconds>; one UpdateItem (ADD) per outcome on a random shard,
  gone by TTL after a day; a read sums the window's buckets of every shard (one BatchGetItem);
- a route's circuit: pk ROUTE#<route>#<method>, sk CIRCUIT (state, since, probes, forced,
  version), written only when the circuit moves (conditional on its version) or an operator
  forces it, and while half-open once per probe let through."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from mzpay.domain.payments.circuit import OUTCOMES, Circuit, Counts
from mzpay.store.aws import env, is_conditional_failure, read_keys
from mzpay.store.base import TableStore

DAY = 86_400


def _circuit_key(route: str, method: str) -> dict[str, str]:
    return {"pk": f"ROUTE#{route}#{method}", "sk": "CIRCUIT"}


def counter_key(route: str, method: str, shard: int, bucket: int) -> dict[str, str]:
    return {"pk": f"ROUTE_HEALTH#{route}#{method}#{shard}", "sk": f"BUCKET#{bucket:012d}"}


def buckets(since: float, now: float, bucket_seconds: int) -> list[int]:
    """The starts of the buckets from the one holding `since` to the one holding `now`."""
    first, last = int(since) // bucket_seconds, int(now) // bucket_seconds
    return [index * bucket_seconds for index in range(first, last + 1)]


class RouteHealth(TableStore):
    def __init__(self, table_name: str, shards: int = 8, bucket_seconds: int = 10) -> None:
        super().__init__(table_name)
        self.shards = shards
        self.bucket_seconds = bucket_seconds

    @classmethod
    def from_env(cls) -> RouteHealth:
        from mzpay.config import settings

        return cls(env("ACCOUNTS_TABLE"), settings().route_shards, settings().route_bucket_seconds)

    def record(self, route: str, method: str, outcome: str, now: float, shard: int | None = None) -> None:
        """Count one outcome (one of circuit.OUTCOMES) in the bucket of `now`, on a random shard."""
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        bucket = int(now) // self.bucket_seconds * self.bucket_seconds
        self.table.update_item(
            Key=counter_key(route, method, random.randrange(self.shards) if shard is None else shard, bucket),
            UpdateExpression="ADD #outcome :one SET #ttl = if_not_exists(#ttl, :ttl)",
            ExpressionAttributeNames={"#outcome": outcome, "#ttl": "ttl"},
            ExpressionAttributeValues={":one": 1, ":ttl": bucket + DAY},
        )

    def counts(self, route: str, method: str, since: float, now: float) -> Counts:
        """The outcomes counted from the bucket of `since` to the bucket of `now`, every shard summed."""
        keys = [
            counter_key(route, method, shard, bucket)
            for bucket in buckets(since, now, self.bucket_seconds)
            for shard in range(self.shards)
        ]
        totals = dict.fromkeys(OUTCOMES, 0)
        for start in range(0, len(keys), 100):  # BatchGetItem takes 100 keys
            for item in read_keys(self.client, self.name, keys[start : start + 100]):
                for outcome in OUTCOMES:
                    totals[outcome] += int(item.get(outcome, 0))
        return Counts(**totals)

    def circuit(self, route: str, method: str) -> tuple[Circuit, int]:
        """The route's circuit and its version (0: never written: closed)."""
        item = self.table.get_item(Key=_circuit_key(route, method), ConsistentRead=True).get("Item")
        if item is None:
            return Circuit(), 0
        forced = item.get("forced") or None
        circuit = Circuit(str(item["state"]), float(item["since"]), int(item.get("probes", 0)), forced)  # type: ignore[arg-type]
        return circuit, int(item["version"])

    def save(self, route: str, method: str, circuit: Circuit, version: int, now: str) -> bool:
        """Write the circuit over `version` (False: someone else moved it first)."""
        item: dict[str, Any] = {
            **_circuit_key(route, method),
            "route": route,
            "method": method,
            "state": circuit.state,
            "since": Decimal(str(circuit.since)),
            "probes": circuit.probes,
            "forced": circuit.forced or "",
            "version": version + 1,
            "updated_at": now,
        }
        condition = "attribute_not_exists(pk)" if version == 0 else "version = :version"
        try:
            if version == 0:
                self.table.put_item(Item=item, ConditionExpression=condition)
            else:
                self.table.put_item(
                    Item=item, ConditionExpression=condition, ExpressionAttributeValues={":version": version}
                )
        except Exception as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def take_probe(self, route: str, method: str, limit: int) -> bool:
        """Let one probe through a half-open circuit, while fewer than `limit` were (atomic)."""
        try:
            self.table.update_item(
                Key=_circuit_key(route, method),
                UpdateExpression="ADD probes :one",
                ConditionExpression="#state = :half AND probes < :limit",
                ExpressionAttributeNames={"#state": "state"},
                ExpressionAttributeValues={":one": 1, ":half": "half_open", ":limit": limit},
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True
