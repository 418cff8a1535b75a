"""Name lookups in the payments table: LOOKUP#<lookup_id>/LOOKUP, created once and selected
at most once (a conditional write on status and version)."""

from __future__ import annotations

from typing import Any

from mzpay.store.aws import env, is_conditional_failure, table


class SelectionLost(Exception):
    """The lookup changed (or was selected) since it was read."""


def _key(lookup_id: str) -> dict[str, str]:
    return {"pk": f"LOOKUP#{lookup_id}", "sk": "LOOKUP"}


class NameLookups:
    def __init__(self, table_name: str) -> None:
        self.table = table(table_name)

    @classmethod
    def from_env(cls) -> NameLookups:
        return cls(env("PAYMENTS_TABLE"))

    def create(self, lookup: dict[str, Any]) -> None:
        item = {**_key(lookup["lookup_id"]), **{k: v for k, v in lookup.items() if v is not None}}
        self.table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)")

    def get(self, lookup_id: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key=_key(lookup_id), ConsistentRead=True).get("Item")
        return None if item is None else {k: v for k, v in item.items() if k not in ("pk", "sk")}

    def select(self, lookup: dict[str, Any], expected_status: str, status: str, name: str, now: str) -> None:
        """Move `lookup` from `expected_status` to `status` naming `name`; SelectionLost if it
        is no longer the version that was read."""
        try:
            self.table.update_item(
                Key=_key(lookup["lookup_id"]),
                UpdateExpression="SET #status = :selected, #name = :name, #updated = :now, #version = #version + :one",
                ConditionExpression="#status = :expected AND #version = :version",
                ExpressionAttributeNames={
                    "#status": "status",
                    "#name": "name",
                    "#updated": "updated_at",
                    "#version": "version",
                },
                ExpressionAttributeValues={
                    ":selected": status,
                    ":expected": expected_status,
                    ":name": name,
                    ":now": now,
                    ":one": 1,
                    ":version": lookup["version"],
                },
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise SelectionLost() from exc
            raise
