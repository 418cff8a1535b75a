"""Payouts in the payments table: PO#<provider_payout_id>/PAYOUT (status, version, submitted)
and POID#<account>#<mode>/<payout_id> (the merchant's payout_id, unique per account and mode).
Creating a payout is ONE transaction: the payout, its claim, the money held in the ledger (on
condition that the available balance covers it), the daily totals it raises and its event.
A payout waiting for approval is also in gsi1 under PAYOUTS#AWAITING_APPROVAL/<created_at>#<id>
until it leaves that status (the operators' queue)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from mzpay.domain.common.entity import Claimed
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.ledger import Entry
from mzpay.domain.payouts.rules import Payout, Status
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import SqsQueue, env
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_puts
from mzpay.store.ledger import BalanceTooLow, entry_items
from mzpay.store.list_keys import list_attributes
from mzpay.store.payments import CeilingReached, Reservation, counter_raises, counter_releases
from mzpay.store.transitions import (
    Queue,
    claimed,
    queued,
    versioned_update,
    write_token,
)


class PayoutIdTaken(Exception):
    """Another request already created the payout with this payout_id."""


_key = keyed("PO", "PAYOUT")


# A payout waiting for an operator's approval is also in gsi1 under this partition (sparse: its
# keys are written with it and removed by the transition that takes it out of waiting), so
# operators list what waits across accounts without a scan.
AWAITING_APPROVAL = Queue("PAYOUTS#AWAITING_APPROVAL", Status.WAITING_FOR_APPROVAL)


class Payouts(PaymentsTableStore):
    def create(
        self,
        payout: Payout,
        events: list[Event],
        held: Entry,
        reservations: tuple[Reservation, ...],
        ttl: int,
    ) -> None:
        """PayoutIdTaken, BalanceTooLow or CeilingReached when a condition stops it."""
        claim = {
            "pk": f"POID#{payout.account_id}#{payout.mode}",
            "sk": payout.payout_id,
            "provider_payout_id": payout.provider_payout_id,
            "fingerprint": payout.fingerprint,
        }
        items = [
            put_new(
                self.name,
                {
                    **_key(payout.provider_payout_id),
                    **payout.item(),
                    **list_attributes(payout),
                    **AWAITING_APPROVAL.keys(payout, payout.provider_payout_id),
                },
            ),
            put_new(self.name, claim),
            *entry_items(self.name, held),  # [2] the balance update (conditional), [3] the entry
            *counter_raises(self.name, reservations, ttl),
            *event_puts(self.events_name, events),
        ]
        self.transact_new(
            items,
            lambda item: BalanceTooLow() if item == 2 else CeilingReached.of(reservations, 4, item) or PayoutIdTaken(),
        )

    def get(self, provider_payout_id: str) -> Payout | None:
        return self.read_item(Payout, _key(provider_payout_id))

    def by_payout_id(self, account_id: str, mode: str, payout_id: str) -> Claimed[Payout] | None:
        return claimed(self.table, {"pk": f"POID#{account_id}#{mode}", "sk": payout_id}, "provider_payout_id", self.get)

    def awaiting_approval(self, size: int, start: dict[str, str] | None) -> tuple[list[Payout], dict[str, str] | None]:
        """A page of the payouts waiting for an operator's approval, oldest first (every account
        and mode of this region), and the key to continue after."""
        items, last = AWAITING_APPROVAL.page(self.table, size, start)
        return [Payout.model_validate(item) for item in items], last

    def transition(
        self,
        payout: Payout,
        changes: dict[str, Any],
        events: list[Event],
        entry: Entry | None = None,
        release: bool = False,
    ) -> Payout:
        """Apply `changes` if the payout is still in the status and version it was read with
        (else 409 invalid_state), with its events, ledger entry and, when it ends without
        paying (`release`), its daily totals given back."""
        releases = counter_releases(self.name, payout.reservations, Decimal(0)) if release else []
        token = write_token()
        items = [
            queued(
                versioned_update(self.name, _key(payout.provider_payout_id), payout, changes, token),
                payout,
                payout.with_changes(changes),
                AWAITING_APPROVAL,
                payout.provider_payout_id,
            ),
            *event_puts(self.events_name, events),
            *entry_items(self.name, entry),
            *releases,
        ]
        return self.transact_versioned(
            items,
            payout,
            changes,
            token,
            lambda: self.get(payout.provider_payout_id),
            lambda _fresh, _exc: ServiceError(
                409, "invalid_state", "The payout changed meanwhile (another request moved it first)."
            ),
        )


class SettlementQueue(SqsQueue):
    """PayoutSettlementQueue: one message per payout to settle, or per payout batch to send (a
    duplicate is harmless)."""

    @classmethod
    def from_env(cls) -> SettlementQueue:
        return cls(env("PAYOUT_SETTLEMENT_QUEUE_URL"))

    def send(self, provider_payout_id: str) -> None:
        self.post(json.dumps({"provider_payout_id": provider_payout_id}))

    def send_batch(self, batch_id: str) -> None:
        """A released payout batch to send (its payouts made; a duplicate is harmless)."""
        self.post(json.dumps({"payout_batch_id": batch_id}))
