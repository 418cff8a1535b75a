"""The merchant's lists (payments, refunds, payouts) read from the payments table's two list
indexes, whose keys mzpay.store.list_keys writes: a page reads each of the SHARDS partitions of
the account's list below the previous page's position and merges them (docs/lists.md: the design
and its figures). A page never scans: every read is a Query of one shard, its key condition
bounded by the dates asked, other filters applied to what it reads, each shard read at most
BUDGET items a page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.listing import Filters
from mzpay.store.base import InPaymentsTable
from mzpay.store.list_keys import LISTED, SHARDS, partition

BUDGET = 400  # items one shard may read for one page (a selective filter may give a short page)


@dataclass(frozen=True)
class Scope:
    """Whose objects a page reads: the account and mode, and the customers a restricted key may
    see (empty: every one)."""

    account_id: str
    mode: str
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

    if filters.currency is not None:
        compare("currency", "=", filters.currency)
    if filters.amount_gte is not None:
        compare("lamt", ">=", filters.amount_gte)
    if filters.amount_lte is not None:
        compare("lamt", "<=", filters.amount_lte)
    if filters.method is not None:
        compare("lmethod", "=", filters.method)
    if filters.network is not None:
        compare("lnetwork", "=", filters.network)
    if filters.parent is not None:
        compare("lparent", "=", filters.parent)
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


class Listings(InPaymentsTable):
    """Pages of one kind's list in the payments table."""

    def page(
        self, entity: type[Entity], scope: Scope, filters: Filters, before: str | None, size: int
    ) -> tuple[list[Any], str | None]:
        """Up to `size` objects newest first, below the position `before` (None: from the
        newest), and the position the next page starts below (None: this is the last page)."""
        prefix = LISTED[entity].prefix
        upper = min(p for p in (before, filters.created_lt) if p) if (before or filters.created_lt) else None
        found: list[dict[str, Any]] = []
        frontiers: list[str] = []
        for shard in range(SHARDS):
            key = partition(prefix, scope.account_id, scope.mode, shard, filters.status)
            items, frontier = self._shard(key, filters, scope.customers, filters.created_gte, upper, size)
            found += items
            if frontier is not None:
                frontiers.append(frontier)
        safe = max(frontiers) if frontiers else None  # every match at or above it was read
        ranked = sorted((i for i in found if safe is None or i["lsk"] >= safe), key=lambda i: i["lsk"], reverse=True)
        chosen = ranked[:size]
        if len(ranked) > size:
            position: str | None = chosen[-1]["lsk"]
        else:
            position = safe
        return [entity.model_validate(item) for item in chosen], position

    def _shard(
        self,
        key: str,
        filters: Filters,
        customers: frozenset[str],
        lower: str | None,
        upper: str | None,
        size: int,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The matches of one shard, newest first, up to `size` or BUDGET items read, and the
        sort key down to which it was read (None: to its end)."""
        index, hash_key = ("by_status", "spk") if filters.status is not None else ("by_account", "lpk")
        expression, names, values = _condition(filters, customers)
        query: dict[str, Any] = {
            "IndexName": index,
            "ScanIndexForward": False,
            "ExpressionAttributeNames": {"#h": hash_key, **names},
            "ExpressionAttributeValues": {":h": key, **values},
        }
        sort = _sort_condition(lower, upper, query["ExpressionAttributeValues"])
        query["KeyConditionExpression"] = "#h = :h" + (f" AND {sort}" if sort else "")
        if sort:
            query["ExpressionAttributeNames"]["#s"] = "lsk"
        if expression:
            query["FilterExpression"] = expression
        matches: list[dict[str, Any]] = []
        read = 0
        while True:
            room = BUDGET - read
            query["Limit"] = min(room, size + 1) if not expression else room
            answer = self.table.query(**query)
            read += int(answer.get("ScannedCount", 0))
            matches += [item for item in answer.get("Items", []) if item["lsk"] != upper]
            last = answer.get("LastEvaluatedKey")
            if last is None:
                return matches, None
            if len(matches) >= size or read >= BUDGET:
                return matches, str(last["lsk"])
            query["ExclusiveStartKey"] = last


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
