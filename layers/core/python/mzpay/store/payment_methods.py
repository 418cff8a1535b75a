"""Customers' payment methods and their transactions in CollectionTable: PM#<pm_id>/PM, listed
per customer through gsi1 (PMCUST#<customer_id>/<pm_id>, creation order), and TXN#<ins_id>/TXN
(gsi1: TXNCUST#<customer_id>/<ins_id>; a pay_bill's also gsi2: TXNBILL#<its bill payment's id>,
found from its charge's or bill payment's event). A status change is a conditional write on the status and
version read; a transaction is written once, when it was processed (a pay_bill whose charge
waited for the payer, or whose bill payment waited for the biller, changes once more, when it
settles)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction, bill_payment_id
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import in_index, index_entry, query_up_to
from mzpay.store.base import InCollectionTable, keyed, put_new
from mzpay.store.events import EventWrites
from mzpay.store.transitions import applied, versioned_update


class MethodChanged(Exception):
    """The payment method moved since it was read."""


class TransactionRecorded(Exception):
    """The transaction was written already."""


class TransactionChanged(Exception):
    """The transaction moved since it was read."""


_key = keyed("PM", "PM")
_txn_key = keyed("TXN", "TXN")


class PaymentMethods(InCollectionTable):
    def add(self, method: PaymentMethod) -> None:
        item = {**_key(method.pm_id), **index_entry(f"PMCUST#{method.customer_id}", method.pm_id), **method.item()}
        self.put_new_item(item)

    def get(self, pm_id: str) -> PaymentMethod | None:
        return self.read_item(PaymentMethod, _key(pm_id))

    def of_customer(self, customer_id: str, limit: int) -> list[PaymentMethod]:
        answer = self.table.query(**in_index(f"PMCUST#{customer_id}"), Limit=limit)
        return [PaymentMethod.model_validate(item) for item in answer.get("Items", [])]

    def change(self, method: PaymentMethod, changes: dict[str, Any]) -> PaymentMethod:
        return self.change_versioned(_key(method.pm_id), method, changes, MethodChanged)

    def record(self, transaction: CustomerTransaction, events: tuple[EventWrites, list[Event]] | None = None) -> None:
        """Write the transaction once, with `events` (its message to the customer, written by the
        EventsTable's store) in the same transaction."""
        listed = index_entry(f"TXNCUST#{transaction.customer_id}", transaction.instruction_id)
        if transaction.movement_id is not None:  # a pay_bill: found by its bill payment's id too
            listed |= index_entry(
                f"TXNBILL#{bill_payment_id(transaction.movement_id)}", transaction.instruction_id, "gsi2"
            )
        item = {**_txn_key(transaction.instruction_id), **listed, **transaction.item()}
        if not events or not events[1]:
            self.put_new_item(item)
            return
        events[0].together([put_new(self.name, item)], events[1], TransactionRecorded)

    def change_transaction(
        self,
        transaction: CustomerTransaction,
        changes: dict[str, Any],
        events: tuple[EventWrites, list[Event]] | None = None,
    ) -> CustomerTransaction:
        """A pending pay_bill settled once its charge or its bill payment did (a conditional write
        on the status and version read), with `events` (its message to the customer) in the same
        transaction."""
        key = _txn_key(transaction.instruction_id)
        if not events or not events[1]:
            return self.change_versioned(key, transaction, changes, TransactionChanged)
        events[0].together([versioned_update(self.name, key, transaction, changes)], events[1], TransactionChanged)
        return applied(transaction, changes)

    def of_bill_payment(self, payment_id: str) -> CustomerTransaction | None:
        """The pay_bill whose bill payment is `payment_id` (or would be, its charge settling)."""
        answer = self.table.query(**in_index(f"TXNBILL#{payment_id}", "gsi2"), Limit=1)
        found = answer.get("Items", [])
        return self.transaction(str(found[0]["instruction_id"])) if found else None

    def transaction(self, instruction_id: str) -> CustomerTransaction | None:
        return self.read_item(CustomerTransaction, _txn_key(instruction_id))

    def transactions_of(self, customer_id: str, limit: int) -> list[CustomerTransaction]:
        """The customer's newest `limit` transactions, newest first."""
        items = query_up_to(self.table, limit, **in_index(f"TXNCUST#{customer_id}"), ScanIndexForward=False)
        return [CustomerTransaction.model_validate(item) for item in items]
