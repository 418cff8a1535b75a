"""Name lookups in the payments table: LOOKUP#<lookup_id>/LOOKUP, created once and selected
at most once (a conditional write on status and version)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.payouts.name_lookups import NameLookup
from mzpay.store.base import InPaymentsTable, keyed


class SelectionLost(Exception):
    """The lookup changed (or was selected) since it was read."""


_key = keyed("LOOKUP", "LOOKUP")


class NameLookups(InPaymentsTable):
    def create(self, lookup: NameLookup) -> None:
        self.put_new_item({**_key(lookup.lookup_id), **lookup.item()})

    def get(self, lookup_id: str) -> NameLookup | None:
        return self.read_item(NameLookup, _key(lookup_id))

    def transition(self, lookup: NameLookup, changes: dict[str, Any]) -> NameLookup:
        """Apply `changes` if the lookup is still in the status and version it was read with;
        SelectionLost otherwise."""
        return self.change_versioned(_key(lookup.lookup_id), lookup, changes, SelectionLost)
