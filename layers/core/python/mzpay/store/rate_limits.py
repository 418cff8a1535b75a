"""Rate-limit counters and per-account overrides; upload counters (UploadCounters, below).

Counters (payments table): pk RATE#<account>#<window second>, sk RATE, attributes `total` (the
account's requests in that second) and `k_<key_id>` (each key's), raised by ONE conditional
UpdateItem for both limits, so a request is counted against both or neither. An account allowed
more than 500 requests a second has its window split over shards (RATE#<account>#<second>#<n>
for shard n > 0, each admitting its share of both limits: domain.access.rate_limits.shards); a
request goes to a shard at random and to the next while the one it tried is full, so it is refused
only when every shard is: exact. Items expire by TTL a minute later. Overrides (accounts table):
pk ACCOUNT#<id>, sk RATELIMITS.
"""

from __future__ import annotations

import random
from typing import Any

from mzpay.domain.access.rate_limits import RateLimits, UploadLimits, shards, share, upload_day
from mzpay.store.aws import env, is_conditional_failure, table
from mzpay.store.base import TableStore

COUNTER_TTL_SECONDS = 60


class RateCounters:
    def __init__(self, payments_table: str, accounts_table: str) -> None:
        self.counters = table(payments_table)
        self.overrides = table(accounts_table)

    @classmethod
    def from_env(cls) -> RateCounters:
        return cls(env("PAYMENTS_TABLE"), env("ACCOUNTS_TABLE"))

    def take(self, account_id: str, key_id: str, second: int, limits: RateLimits) -> str | None:
        """Count one request of `key_id` in `second`; the limit it would pass ("key" or
        "account", and then nothing is counted), or None."""
        granted, over = self.lease(account_id, key_id, second, limits, 1)
        return over if granted == 0 else None

    def lease(
        self, account_id: str, key_id: str, second: int, limits: RateLimits, wanted: int
    ) -> tuple[int, str | None]:
        """Count `wanted` requests of `key_id` in `second` at once (a lease its execution
        environment spends locally), or as many as both limits still leave: (how many were
        counted, None), or (0, the limit passed: "key" or "account"). One conditional UpdateItem;
        another for each time the shard tried had less room than asked (near the limit)."""
        count = shards(limits)
        start = random.randrange(count) if count > 1 else 0
        seen = 0  # the account's requests counted in the shards found full
        for step in range(count):
            index = (start + step) % count
            rooms = share(limits.per_account, count, index), share(limits.per_key, count, index)
            granted, total = self._lease_in(account_id, key_id, second, index, rooms, min(wanted, *rooms))
            if granted:
                return granted, None
            seen += total
        return 0, "account" if seen >= limits.per_account else "key"

    def _lease_in(
        self, account_id: str, key_id: str, second: int, index: int, rooms: tuple[int, int], wanted: int
    ) -> tuple[int, int]:
        """Count up to `wanted` in shard `index`, whose shares of the limits are `rooms` (account,
        key): (how many were counted, 0), or (0, the account's count found there)."""
        pk = f"RATE#{account_id}#{second}" + (f"#{index}" if index else "")
        while wanted > 0:
            try:
                self.counters.update_item(
                    Key={"pk": pk, "sk": "RATE"},
                    UpdateExpression="ADD #total :n, #key :n SET #ttl = :ttl",
                    ConditionExpression="(attribute_not_exists(#total) OR #total <= :account_room) AND "
                    "(attribute_not_exists(#key) OR #key <= :key_room)",
                    ExpressionAttributeNames={"#total": "total", "#key": f"k_{key_id}", "#ttl": "ttl"},
                    ExpressionAttributeValues={
                        ":n": wanted,
                        ":account_room": rooms[0] - wanted,
                        ":key_room": rooms[1] - wanted,
                        ":ttl": second + COUNTER_TTL_SECONDS,
                    },
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
                return wanted, 0
            except Exception as exc:
                if not is_conditional_failure(exc):
                    raise
                old: dict[str, Any] = (getattr(exc, "response", None) or {}).get("Item") or {}
                total, used = _number(old.get("total")), _number(old.get(f"k_{key_id}"))
                room = min(rooms[0] - total, rooms[1] - used)
                if room <= 0:
                    return 0, total
                wanted = min(wanted, room)
        return 0, 0  # the key has no share in this shard

    def read_override(self, account_id: str) -> RateLimits | None:
        item = self.overrides.get_item(Key={"pk": f"ACCOUNT#{account_id}", "sk": "RATELIMITS"}).get("Item")
        return RateLimits(int(item["per_key"]), int(item["per_account"])) if item else None

    def write_override(self, account_id: str, limits: RateLimits, now: str) -> None:
        self.overrides.put_item(
            Item={"pk": f"ACCOUNT#{account_id}", "sk": "RATELIMITS", **limits.public(), "updated_at": now}
        )


class UploadCounters(TableStore):
    """Uploads counted per owner and UTC day (the table of UPLOAD_COUNTERS_TABLE: the payments
    table on the gateway and management APIs, the collection table on the collection surface):
    pk UPLOADS#<owner>#<mode>#<day>, sk UPLOADS, attributes `files`, `bytes` and `m_<minute of the
    day>`, raised by ONE conditional UpdateItem, so an upload counts against every limit or
    none. Items expire by TTL a day after theirs."""

    @classmethod
    def from_env(cls) -> UploadCounters:
        return cls(env("UPLOAD_COUNTERS_TABLE"))

    def take(self, owner: str, mode: str, size: int, now: float, limits: UploadLimits) -> str | None:
        """Count one upload of `size` bytes by `owner` in `mode` (test uploads never use up the
        live allowance) at `now`; the limit it would pass (and then nothing is counted), or None."""
        if size > limits.bytes_per_day:
            return "upload_bytes_per_day"
        day, minute, day_left = upload_day(now)
        try:
            self.table.update_item(
                Key={"pk": f"UPLOADS#{owner}#{mode}#{day}", "sk": "UPLOADS"},
                UpdateExpression="ADD #files :one, #bytes :size, #minute :one SET #ttl = :ttl",
                ConditionExpression="(attribute_not_exists(#files) OR #files < :per_day) AND "
                "(attribute_not_exists(#bytes) OR #bytes <= :room) AND "
                "(attribute_not_exists(#minute) OR #minute < :per_minute)",
                ExpressionAttributeNames={
                    "#files": "files",
                    "#bytes": "bytes",
                    "#minute": f"m_{minute}",
                    "#ttl": "ttl",
                },
                ExpressionAttributeValues={
                    ":one": 1,
                    ":size": size,
                    ":per_day": limits.per_day,
                    ":room": limits.bytes_per_day - size,
                    ":per_minute": limits.per_minute,
                    ":ttl": int(now) + day_left + 86_400,
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            old: dict[str, Any] = (getattr(exc, "response", None) or {}).get("Item") or {}
            if _number(old.get(f"m_{minute}")) >= limits.per_minute:
                return "uploads_per_minute"
            if _number(old.get("files")) >= limits.per_day:
                return "uploads_per_day"
            return "upload_bytes_per_day"
        return None


def _number(value: Any) -> int:
    """A number of the error's item (raw DynamoDB JSON: {"N": "3"})."""
    return int(value["N"] if isinstance(value, dict) else value or 0)
