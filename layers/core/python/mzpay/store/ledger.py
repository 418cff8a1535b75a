"""The ledger in the payments table (same table, same transactions as the state changes):
BAL#<account>#<mode>/CUR#<currency> holds the running `available`, `held` and `fees` sums (and
`service_fees`, from the first service fee charged), and LEDGER#<account>#<mode>#<currency>/ENT#<ulid>
each immutable entry with its legs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.common.ids import new_id
from mzpay.domain.money.ledger import Entry, Movement, total
from mzpay.store.aws import in_partition, query_all
from mzpay.store.base import InPaymentsTable, put_new


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


def available(balance: dict[str, Any] | None) -> Decimal:
    return Decimal(balance["available"]) if balance else Decimal(0)
