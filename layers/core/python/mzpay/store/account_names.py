"""Finding accounts by name (operators): the directory table keeps, beside each account created
since this index exists, an item naming it under its home region, written in the account's
creation transaction:

  pk ACCOUNT_NAMES#<region>, sk <folded name>#<account_id>    (name, account_id)

A search reads the region's partition from the folded prefix (one query, at most `limit`)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.accounts.tenants import folded
from mzpay.store.base import InDirectoryTable


def name_item(account_id: str, name: str, region: str) -> dict[str, Any]:
    """The index item of a new account (put in its creation transaction)."""
    return {
        "pk": f"ACCOUNT_NAMES#{region}",
        "sk": f"{folded(name)}#{account_id}",
        "name": name,
        "account_id": account_id,
    }


class AccountNames(InDirectoryTable):
    def starting_with(self, region: str, prefix: str, limit: int) -> list[tuple[str, str]]:
        """(account_id, name) of the region's accounts whose folded name starts with `prefix`'s."""
        answer = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": f"ACCOUNT_NAMES#{region}", ":prefix": folded(prefix)},
            Limit=limit,
        )
        return [(item["account_id"], item["name"]) for item in answer.get("Items", [])]
