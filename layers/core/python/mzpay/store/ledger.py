"""The ledger in the payments table (same table, same transactions as the state changes):
BAL#<account>#<mode>/CUR#<currency> holds the running `available`, `held` and `fees` sums (and
`service_fees`, from the first service fee charged), and LEDGER#<account>#<mode>#<currency>/ENT#<ulid>
each immutable entry with its legs. The balance item also counts its entries (`entries`), so a
reader can tell that no entry landed between two reads of it (the sums alone may come back to the
same figures)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

from mzpay.domain.common.ids import new_id
from mzpay.domain.money.ledger import Entry, Movement, total
from mzpay.domain.money.transactions import ENTRY_PREFIX, instant, made_within, ulid_floor
from mzpay.store.aws import in_partition, query_all, query_pages
from mzpay.store.base import InPaymentsTable, put_new

CHUNK = 200  # entries per read of a walk (about 60 KB)
SLACK = timedelta(minutes=5)  # how much later than its created_at an entry's ULID may be minted


class BalanceTooLow(Exception):
    """The available balance does not cover what a movement needs (its condition failed)."""


def entry_items(table_name: str, entry: Entry | None) -> list[dict[str, Any]]:
    """TransactItems for one entry: the balance raised or lowered by its movements' total (on
    condition that available covers what they need, the first item), then each movement as its
    own entry (DynamoDB allows one operation per item in a transaction). None: no items."""
    if entry is None:
        return []
    movement = total(entry.movements)
    update: dict[str, Any] = {
        "TableName": table_name,
        "Key": {"pk": f"BAL#{entry.account_id}#{entry.mode}", "sk": f"CUR#{entry.currency}"},
        "UpdateExpression": (
            "ADD #available :available, #held :held, #fees :fees, #entries :count SET #currency = :currency"
        ),
        "ExpressionAttributeNames": {
            "#available": "available",
            "#held": "held",
            "#fees": "fees",
            "#entries": "entries",
            "#currency": "currency",
        },
        "ExpressionAttributeValues": {
            ":available": movement.available,
            ":held": movement.held,
            ":fees": movement.fees,
            ":count": len(entry.movements),
            ":currency": entry.currency,
        },
    }
    if movement.service_fees:  # a balance that was never charged a service fee keeps its shape
        update["UpdateExpression"] = update["UpdateExpression"].replace(" SET", ", #service_fees :service_fees SET")
        update["ExpressionAttributeNames"]["#service_fees"] = "service_fees"
        update["ExpressionAttributeValues"][":service_fees"] = movement.service_fees
    if movement.needs_available is not None:
        update["ConditionExpression"] = "#available >= :needed"
        update["ExpressionAttributeValues"][":needed"] = movement.needs_available
    ids = sorted(new_id() for _ in entry.movements)  # the entries read back in their movements' order
    return [
        {"Update": update},
        *(put_new(table_name, _kept(entry, m, i)) for m, i in zip(entry.movements, ids, strict=True)),
    ]


def _kept(entry: Entry, movement: Movement, entry_id: str) -> dict[str, Any]:
    """One movement of `entry` as its stored, immutable entry."""
    return {
        "pk": f"LEDGER#{entry.account_id}#{entry.mode}#{entry.currency}",
        "sk": f"ENT#{entry_id}",
        "kind": movement.kind,
        "event_id": entry.event_id,
        "resource_id": entry.resource_id,
        "legs": {name: amount for name, amount in movement.legs().items() if amount},
        "created_at": entry.at,
    }


class Ledger(InPaymentsTable):
    def balances(self, account_id: str, mode: str) -> list[dict[str, Any]]:
        response = self.table.query(**in_partition(f"BAL#{account_id}#{mode}"), ConsistentRead=True)
        return [dict(item) for item in response.get("Items", [])]

    def entries(self, account_id: str, mode: str, currency: str) -> list[dict[str, Any]]:
        """Every entry of one balance, oldest first (operators, reconciliation, tests)."""
        items = query_all(self.table, **in_partition(f"LEDGER#{account_id}#{mode}#{currency}"), ConsistentRead=True)
        return [dict(item) for item in items]

    def balance(self, account_id: str, mode: str, currency: str) -> dict[str, Any] | None:
        """The balance item of one currency, read consistently; None before its first entry."""
        key = {"pk": f"BAL#{account_id}#{mode}", "sk": f"CUR#{currency}"}
        item = self.table.get_item(Key=key, ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def entry(self, account_id: str, mode: str, currency: str, ulid: str) -> dict[str, Any] | None:
        """One entry by its ULID, or None."""
        key = {"pk": f"LEDGER#{account_id}#{mode}#{currency}", "sk": f"{ENTRY_PREFIX}{ulid}"}
        item = self.table.get_item(Key=key, ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def entries_newest_first(
        self,
        account_id: str,
        mode: str,
        currency: str,
        below: str | None = None,
        down_to: str | None = None,
        first: int = CHUNK,
    ) -> Iterator[dict[str, Any]]:
        """The entries of one balance whose ULID is under `below` (all: None) and at or above
        `down_to` (all: None), newest first, streamed: read `first` items at first, then pages
        of CHUNK as the caller goes on (the page reader of the balance transactions)."""
        high = f"{ENTRY_PREFIX}{below}" if below else f"{ENTRY_PREFIX}~"  # '~' sorts after every ULID
        query = {
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": {
                ":pk": f"LEDGER#{account_id}#{mode}#{currency}",
                ":low": f"{ENTRY_PREFIX}{down_to or ''}",
                ":high": high,
            },
            "ScanIndexForward": False,
            "ConsistentRead": True,
            "Limit": first,
        }
        for answer in query_pages(self.table, query):
            for item in answer.get("Items", []):
                if item["sk"] != high:  # `below` itself is not under it
                    yield dict(item)
            query["Limit"] = CHUNK

    def entries_between(
        self, account_id: str, mode: str, currency: str, start_iso: str, end_iso: str
    ) -> Iterator[dict[str, Any]]:
        """The entries of one balance made (`created_at`) from `start_iso` (included) to `end_iso`
        (excluded), oldest first, streamed page by page (reports, reconciliation). The ULIDs bound
        the query, widened by SLACK: an entry's ULID is minted a little after its `created_at`."""
        start, end = instant(start_iso), instant(end_iso)
        query = {
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": {
                ":pk": f"LEDGER#{account_id}#{mode}#{currency}",
                ":low": f"{ENTRY_PREFIX}{ulid_floor(start, -SLACK)}",
                ":high": f"{ENTRY_PREFIX}{ulid_floor(end, SLACK)}",
            },
            "ConsistentRead": True,
            "Limit": CHUNK,
        }
        for answer in query_pages(self.table, query):
            for item in answer.get("Items", []):
                if made_within(str(item["created_at"]), start, end):
                    yield dict(item)


def available(balance: dict[str, Any] | None) -> Decimal:
    return Decimal(balance["available"]) if balance else Decimal(0)
