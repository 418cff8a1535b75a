"""The ledger in the payments table (same table, same transactions as the state changes):
BAL#<account>#<mode>/CUR#<currency> holds the running `available`, `held` and `fees` sums, and
LEDGER#<account>#<mode>#<currency>/ENT#<ulid> each immutable entry with its legs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.common.ids import new_id
from mzpay.domain.money.ledger import Entry
from mzpay.store.aws import in_partition, query_all
from mzpay.store.base import InPaymentsTable, put_new


class BalanceTooLow(Exception):
    """The available balance does not cover what a movement needs (its condition failed)."""


def entry_items(table_name: str, entry: Entry | None) -> list[dict[str, Any]]:
    """TransactItems for one entry: the balance raised or lowered (on condition that available
    covers what the movement needs, the first item) and the entry itself. None: no items."""
    if entry is None:
        return []
    account_id, mode, currency, movement = entry.account_id, entry.mode, entry.currency, entry.movement
    update: dict[str, Any] = {
        "TableName": table_name,
        "Key": {"pk": f"BAL#{account_id}#{mode}", "sk": f"CUR#{currency}"},
        "UpdateExpression": "ADD #available :available, #held :held, #fees :fees SET #currency = :currency",
        "ExpressionAttributeNames": {
            "#available": "available",
            "#held": "held",
            "#fees": "fees",
            "#currency": "currency",
        },
        "ExpressionAttributeValues": {
            ":available": movement.available,
            ":held": movement.held,
            ":fees": movement.fees,
            ":currency": currency,
        },
    }
    if movement.needs_available is not None:
        update["ConditionExpression"] = "#available >= :needed"
        update["ExpressionAttributeValues"][":needed"] = movement.needs_available
    kept = {
        "pk": f"LEDGER#{account_id}#{mode}#{currency}",
        "sk": f"ENT#{new_id()}",
        "kind": movement.kind,
        "event_id": entry.event_id,
        "resource_id": entry.resource_id,
        "legs": {name: amount for name, amount in movement.legs().items() if amount},
        "created_at": entry.at,
    }
    return [
        {"Update": update},
        put_new(table_name, kept),
    ]


class Ledger(InPaymentsTable):
    def balances(self, account_id: str, mode: str) -> list[dict[str, Any]]:
        response = self.table.query(**in_partition(f"BAL#{account_id}#{mode}"), ConsistentRead=True)
        return [dict(item) for item in response.get("Items", [])]

    def entries(self, account_id: str, mode: str, currency: str) -> list[dict[str, Any]]:
        """Every entry of one balance, oldest first (operators, reconciliation, tests)."""
        items = query_all(self.table, **in_partition(f"LEDGER#{account_id}#{mode}#{currency}"), ConsistentRead=True)
        return [dict(item) for item in items]


def available(balance: dict[str, Any] | None) -> Decimal:
    return Decimal(balance["available"]) if balance else Decimal(0)
