"""Cash-deposit intents in the payments table: CDI#<intent_id>/INTENT. Opening one is ONE
transaction: the intent, its lookup marked as having started a deposit (on condition that the
lookup is still in the status and version it was read with, so two intents, or an intent and a
new selection, cannot both land) and the pilot's windows it counts in. The deposit itself is a
payout (mzpay.store.payouts)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.payouts.cash_deposits import CashDepositIntent
from mzpay.domain.payouts.name_lookups import NameLookup
from mzpay.store.base import InPaymentsTable, keyed, put_new
from mzpay.store.payments import CeilingReached, Reservation, counter_raises
from mzpay.store.transitions import versioned_update


class LookupChanged(Exception):
    """The lookup moved (another intent started from it, or another holder was selected)."""


class IntentChanged(Exception):
    """The intent moved since it was read (another confirmation used it)."""


_key = keyed("CDI", "INTENT")


_lookup_key = keyed("LOOKUP", "LOOKUP")


class CashDepositIntents(InPaymentsTable):
    def open(
        self, intent: CashDepositIntent, lookup: NameLookup, reservations: tuple[Reservation, ...], ttl: int
    ) -> None:
        """LookupChanged or CeilingReached when a condition stops it."""
        deposit = {"intent_id": intent.intent_id, "amount": intent.amount, "currency": intent.currency}
        changes = {"deposit": deposit, "updated_at": intent.created_at}
        items: list[dict[str, Any]] = [
            versioned_update(self.name, _lookup_key(lookup.lookup_id), lookup, changes),
            put_new(self.name, {**_key(intent.intent_id), **intent.item()}),
            *counter_raises(self.name, reservations, ttl),
        ]
        self.transact_new(items, lambda item: CeilingReached.of(reservations, 2, item) or LookupChanged())

    def get(self, intent_id: str) -> CashDepositIntent | None:
        return self.read_item(CashDepositIntent, _key(intent_id))

    def transition(self, intent: CashDepositIntent, changes: dict[str, Any]) -> CashDepositIntent:
        """Apply `changes` if the intent still has the status and version it was read with."""
        return self.change_versioned(_key(intent.intent_id), intent, changes, IntentChanged)
