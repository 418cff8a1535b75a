"""Name lookups in the payments table: LOOKUP#<lookup_id>/LOOKUP, created once and selected
at most once (a conditional write on status and version)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.name_lookups import NameLookup
from mzpay.store.aws import env, is_conditional_failure, table
from mzpay.store.transitions import applied, versioned_update


class SelectionLost(Exception):
    """The lookup changed (or was selected) since it was read."""


def _key(lookup_id: str) -> dict[str, str]:
    return {"pk": f"LOOKUP#{lookup_id}", "sk": "LOOKUP"}


class NameLookups:
    def __init__(self, table_name: str) -> None:
        self.table = table(table_name)
        self.name = table_name

    @classmethod
    def from_env(cls) -> NameLookups:
        return cls(env("PAYMENTS_TABLE"))

    def create(self, lookup: NameLookup) -> None:
        self.table.put_item(
            Item={**_key(lookup.lookup_id), **lookup.item()}, ConditionExpression="attribute_not_exists(pk)"
        )

    def get(self, lookup_id: str) -> NameLookup | None:
        item = self.table.get_item(Key=_key(lookup_id), ConsistentRead=True).get("Item")
        return None if item is None else NameLookup.model_validate(item)

    def transition(self, lookup: NameLookup, changes: dict[str, Any]) -> NameLookup:
        """Apply `changes` if the lookup is still in the status and version it was read with;
        SelectionLost otherwise."""
        update = versioned_update(self.name, _key(lookup.lookup_id), lookup, changes)["Update"]
        try:
            self.table.meta.client.update_item(**update)
        except Exception as exc:
            if is_conditional_failure(exc):
                raise SelectionLost() from exc
            raise
        return applied(lookup, changes)
