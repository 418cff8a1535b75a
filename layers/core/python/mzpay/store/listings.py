"""The merchant's lists (payments, refunds, payouts) read from the payments table's two list
indexes, whose keys mzpay.store.list_keys writes: a page reads each of the SHARDS partitions of
the account's list below the previous page's position and merges them (docs/lists.md: the design
and its figures). A page never scans: every read is a Query of one shard, its key condition
bounded by the dates asked, other filters applied to what it reads, each shard read at most
BUDGET items a page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.listing import Filters
from mzpay.store.base import InPaymentsTable
from mzpay.store.list_keys import LISTED, SHARDS, Listed, partition

BUDGET = 400  # items one shard may read for one page (a selective filter may give a short page)
FILTERED_CHUNK = 100  # items a filtered shard reads at a time once its first quarter-page fell short


@dataclass(frozen=True)
class Scope:
    """Whose objects a page reads: the account, its modes (a merchant's key reads its one mode; a
    collection business both, merged), and the customers a restricted key may see (empty: every one)."""

    account_id: str
    modes: tuple[str, ...]
    customers: frozenset[str] = frozenset()


def _condition(filters: Filters, customers: frozenset[str]) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The FilterExpression of `filters` (beyond status and dates, which the key condition and
    the index answer) and its names and values."""
    parts: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = {}

    def compare(attribute: str, operator: str, value: Any) -> None:
        at = len(values)
        names[f"#c{at}"] = attribute
        values[f":c{at}"] = value
        parts.append(f"#c{at} {operator} :c{at}")

    for attribute, operator, value in (
        ("currency", "=", filters.currency),
        ("lamt", ">=", filters.amount_gte),
        ("lamt", "<=", filters.amount_lte),
        ("lmethod", "=", filters.method),
        ("lnetwork", "=", filters.network),
        ("lparent", "=", filters.parent),
        ("lprov", "=", filters.provider),
    ):
        if value is not None:
            compare(attribute, operator, value)
    if customers:
        names["#cust"] = "lcust"
        held = {f":cust{i}": customer for i, customer in enumerate(sorted(customers))}
        values.update(held)
        parts.append(f"#cust IN ({', '.join(held)})")
    if filters.metadata is not None:
        key, value = filters.metadata
        names |= {"#md": "metadata", "#mdk": key}
        values[":mdv"] = value
        parts.append("#md.#mdk = :mdv")
    return " AND ".join(parts), names, values


@dataclass
class _Shard:
    """One shard's Query, read a chunk at a time, newest first: its matches so far, and the sort
    key down to which it was read (`frontier`; None once read to its end)."""

    query: dict[str, Any]
    upper: str | None
    matches: list[dict[str, Any]] = field(default_factory=list)
    frontier: str | None = None
    read: int = 0

    def ask(self, limit: int) -> dict[str, Any]:
        """The Query of its next chunk: at most `limit` items (and what is left of its BUDGET)."""
        return {**self.query, "Limit": max(1, min(limit, BUDGET - self.read))}

    def take(self, answer: dict[str, Any]) -> None:
        """Keep what the Query of `ask` answered."""
        self.read += int(answer.get("ScannedCount", 0))
        self.matches += [item for item in answer.get("Items", []) if item["lsk"] != self.upper]
        last = answer.get("LastEvaluatedKey")
        self.frontier = str(last["lsk"]) if last else None
        if last:
            self.query["ExclusiveStartKey"] = last

    @property
    def open(self) -> bool:
        return self.frontier is not None and self.read < BUDGET


class Listings(InPaymentsTable):
    """Pages of one kind's list in the payments table."""

    def page(
        self,
        entity: type[Entity],
        scope: Scope,
        filters: Filters,
        before: str | None,
        size: int,
        listed: Listed | None = None,
    ) -> tuple[list[Any], str | None]:
        """Up to `size` objects newest first, below the position `before` (None: from the
        newest), and the position the next page starts below (None: this is the last page).

        Each shard is read a quarter of the page first (ids spread evenly over the shards); then,
        while fewer than `size` matches are known above the highest point any shard was read
        down to (below it a shard may still hold newer matches than another's), that shard is read
        further, until the page is full, every shard is read to its end or one spent its BUDGET.
        `listed`: the list, where `entity` is listed in more than one (a cash deposit's payout)."""
        prefix = (listed or LISTED[entity]).prefix
        upper = min(p for p in (before, filters.created_lt) if p) if (before or filters.created_lt) else None
        shards = [
            _Shard(
                self._query(
                    partition(prefix, scope.account_id, mode, shard, filters.status),
                    filters,
                    scope.customers,
                    upper,
                ),
                upper,
            )
            for mode in scope.modes
            for shard in range(SHARDS)
        ]
        for shard in shards:
            shard.take(self.table.query(**shard.ask(-(-size // len(shards)) + 2)))
        while True:
            reading = [shard for shard in shards if shard.frontier is not None]
            safe = max(shard.frontier for shard in reading if shard.frontier) if reading else None
            ranked = sorted(
                (item for shard in shards for item in shard.matches if safe is None or item["lsk"] >= safe),
                key=lambda item: item["lsk"],
                reverse=True,
            )
            lowest = max(reading, key=lambda shard: shard.frontier or "") if reading else None
            if len(ranked) >= size or lowest is None or not lowest.open:
                break
            need = size - len(ranked) + 2
            chunk = max(need, FILTERED_CHUNK) if "FilterExpression" in lowest.query else need
            lowest.take(self.table.query(**lowest.ask(chunk)))
        chosen = ranked[:size]
        position = chosen[-1]["lsk"] if len(ranked) > size else safe
        return [entity.model_validate(item) for item in chosen], position

    def _query(self, key: str, filters: Filters, customers: frozenset[str], upper: str | None) -> dict[str, Any]:
        """The Query of one shard's partition `key`: the dates asked (and the previous page's
        position) as its sort-key range, the other filters as its FilterExpression."""
        index, hash_key = ("by_status", "spk") if filters.status is not None else ("by_account", "lpk")
        expression, names, values = _condition(filters, customers)
        query: dict[str, Any] = {
            "IndexName": index,
            "ScanIndexForward": False,
            "ExpressionAttributeNames": {"#h": hash_key, **names},
            "ExpressionAttributeValues": {":h": key, **values},
        }
        sort = _sort_condition(filters.created_gte, upper, query["ExpressionAttributeValues"])
        query["KeyConditionExpression"] = "#h = :h" + (f" AND {sort}" if sort else "")
        if sort:
            query["ExpressionAttributeNames"]["#s"] = "lsk"
        if expression:
            query["FilterExpression"] = expression
        return query


def _sort_condition(lower: str | None, upper: str | None, values: dict[str, Any]) -> str:
    if lower and upper:
        values |= {":lo": lower, ":hi": upper}
        return "#s BETWEEN :lo AND :hi"
    if upper:
        values[":hi"] = upper
        return "#s < :hi"
    if lower:
        values[":lo"] = lower
        return "#s >= :lo"
    return ""
