"""PSP transactions in the payments table:

  PSPTX#<account>#<mode>, <transaction_id>      the transaction (listed by mzpay.store.list_keys)
  PSPREF#<account>#<mode>, <originator_reference>   its claim of the PSP's reference

Recording one is ONE transaction: the transaction, the claim (on condition that the reference is
new), the ceilings' totals it raises, its event and, for a refund, the original payment's
`refunded` raised on condition that it stays within the payment's amount."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.psp.transactions import PspTransaction
from mzpay.domain.webhooks.events import Event
from mzpay.store.base import PaymentsTableStore, put_new
from mzpay.store.events import event_puts
from mzpay.store.list_keys import list_attributes
from mzpay.store.payments import CeilingReached, Reservation, counter_raises


class ReferenceTaken(Exception):
    """Another transaction of the account and mode already has this originator_reference."""


class RemainderTaken(Exception):
    """The original payment's refunds changed meanwhile and no longer leave room for this one."""


def _key(account_id: str, mode: str, transaction_id: str) -> dict[str, str]:
    return {"pk": f"PSPTX#{account_id}#{mode}", "sk": transaction_id}


def _claim_key(account_id: str, mode: str, reference: str) -> dict[str, str]:
    return {"pk": f"PSPREF#{account_id}#{mode}", "sk": reference}


class PspTransactions(PaymentsTableStore):
    def record(
        self,
        transaction: PspTransaction,
        events: list[Event],
        reservations: tuple[Reservation, ...],
        ttl: int,
        refunding: tuple[PspTransaction, Decimal] | None = None,
    ) -> None:
        """Write `transaction` with its claim, totals and events; `refunding`: the original
        payment and the most its `refunded` may be before this refund. ReferenceTaken,
        CeilingReached or RemainderTaken when a condition stops it."""
        account, mode = transaction.account_id, transaction.mode
        claim = {
            **_claim_key(account, mode, transaction.originator_reference),
            "transaction_id": transaction.transaction_id,
        }
        items: list[dict[str, Any]] = [
            put_new(self.name, claim),
            put_new(
                self.name,
                {
                    **_key(account, mode, transaction.transaction_id),
                    **transaction.item(),
                    **list_attributes(transaction),
                },
            ),
            *counter_raises(self.name, reservations, ttl),
        ]
        if refunding is not None:
            original, most = refunding
            items.append(
                {
                    "Update": {
                        "TableName": self.name,
                        "Key": _key(account, mode, original.transaction_id),
                        "UpdateExpression": "SET refunded = if_not_exists(refunded, :zero) + :amount, "
                        "version = version + :one, updated_at = :now",
                        "ConditionExpression": "attribute_exists(pk) AND (attribute_not_exists(refunded) "
                        "OR refunded <= :most)",
                        "ExpressionAttributeValues": {
                            ":zero": Decimal(0),
                            ":amount": transaction.value,
                            ":one": 1,
                            ":most": most,
                            ":now": transaction.created_at,
                        },
                    }
                }
            )
        items += event_puts(self.events_name, events)

        def refused(item: int) -> Exception:
            if refunding is not None and item == 2 + len(reservations):
                return RemainderTaken()
            return CeilingReached.of(reservations, 2, item) or ReferenceTaken()

        self.transact_new(items, refused)

    def get(self, account_id: str, mode: str, transaction_id: str) -> PspTransaction | None:
        return self.read_item(PspTransaction, _key(account_id, mode, transaction_id))

    def by_reference(self, account_id: str, mode: str, reference: str) -> PspTransaction | None:
        """The account's transaction with this originator_reference, if any."""
        claim = self.table.get_item(Key=_claim_key(account_id, mode, reference), ConsistentRead=True).get("Item")
        return None if claim is None else self.get(account_id, mode, claim["transaction_id"])
