"""Customers and their KYC verifications in CollectionTable: CUST#<customer_id>/CUSTOMER and
KYC#<kyc_id>/KYC (the verification with its log's messages). A customer and its first
verification are created in one transaction; a verification changes by a conditional write on
its status and version (of two racing reviews exactly one lands)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.kyc import Customer, KycVerification
from mzpay.domain.webhooks.events import Event
from mzpay.store.base import InCollectionTable, keyed, put_new
from mzpay.store.events import EventWrites
from mzpay.store.transitions import applied, versioned_update


class VerificationChanged(Exception):
    """The verification moved since it was read."""


_customer_key = keyed("CUST", "CUSTOMER")


_kyc_key = keyed("KYC", "KYC")


class KycStore(InCollectionTable):
    def register(self, customer: Customer, verification: KycVerification) -> None:
        puts = [
            put_new(self.name, {**key, **item})
            for key, item in (
                (_customer_key(customer.customer_id), customer.item()),
                (_kyc_key(verification.kyc_id), verification.item()),
            )
        ]
        self.client.transact_write_items(TransactItems=puts)

    def customer(self, customer_id: str) -> Customer | None:
        return self.read_item(Customer, _customer_key(customer_id))

    def verification(self, kyc_id: str) -> KycVerification | None:
        return self.read_item(KycVerification, _kyc_key(kyc_id))

    def transition(
        self,
        verification: KycVerification,
        changes: dict[str, Any],
        events: tuple[EventWrites, list[Event]] | None = None,
    ) -> KycVerification:
        """Apply `changes` on the status and version read, with `events` (an outcome's message,
        written by the EventsTable's store) in the same transaction; VerificationChanged otherwise."""
        if not events or not events[1]:
            return self.change_versioned(_kyc_key(verification.kyc_id), verification, changes, VerificationChanged)
        update = versioned_update(self.name, _kyc_key(verification.kyc_id), verification, changes)
        events[0].together([update], events[1], VerificationChanged)
        return applied(verification, changes)
