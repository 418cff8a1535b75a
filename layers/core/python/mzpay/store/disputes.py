"""Disputes in the payments table:

  DSP#<dispute_id>, DISPUTE           the dispute (status, version, evidence, decision; listed
                                      by mzpay.store.list_keys)

and the disputed payment's own item: `open_dispute` (the dispute's id while it is open) and
`charged_back_amount` (what lost disputes took). Opening is ONE transaction: the dispute, the
payment marked on condition that it succeeded, has no open dispute and keeps room for the amount
beside its refunds and earlier chargebacks, the money held in the ledger and the event. Deciding is
ONE transaction too: the versioned update, the payment's mark removed (and its chargebacks raised
when lost), the ledger entry and the event. Evidence files are mzpay.store.evidence's, written
before the transition that records them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.money.ledger import Entry
from mzpay.domain.payments.disputes import Dispute
from mzpay.domain.payments.rules import Payment
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import first_failed_item, is_conditional_failure
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_puts
from mzpay.store.ledger import entry_items
from mzpay.store.list_keys import list_attributes
from mzpay.store.transitions import versioned_update, write_token


class PaymentMoved(Exception):
    """The payment no longer allows this dispute (not succeeded, already disputed, or its refunds
    and chargebacks left no room): read it again and judge."""


class DisputeMoved(Exception):
    """The dispute changed meanwhile (another request moved it first)."""


_key = keyed("DSP", "DISPUTE")


_payment_key = keyed("PAY", "PAYMENT")


class Disputes(PaymentsTableStore):
    def open(self, dispute: Dispute, payment: Payment, events: list[Event], held: Entry) -> None:
        """PaymentMoved when the payment's condition stops it."""
        charged_back = payment.charged_back_amount
        room = Decimal(payment.captured_amount) - charged_back - dispute.value
        items: list[dict[str, Any]] = [
            put_new(self.name, {**_key(dispute.dispute_id), **dispute.item(), **list_attributes(dispute)}),
            {
                "Update": {
                    "TableName": self.name,
                    "Key": _payment_key(payment.provider_payment_id),
                    "UpdateExpression": "SET #open = :dispute",
                    "ConditionExpression": "#status = :succeeded AND attribute_not_exists(#open) "
                    "AND (attribute_not_exists(#cb) OR #cb = :cb) "
                    "AND (attribute_not_exists(#refunded) OR #refunded <= :room)",
                    "ExpressionAttributeNames": {
                        "#open": "open_dispute",
                        "#status": "status",
                        "#cb": "charged_back_amount",
                        "#refunded": "refunded_amount",
                    },
                    "ExpressionAttributeValues": {
                        ":dispute": dispute.dispute_id,
                        ":succeeded": "succeeded",
                        ":cb": charged_back,
                        ":room": room,
                    },
                }
            },
            *entry_items(self.name, held),
            *event_puts(self.events_name, events),
        ]
        try:
            self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            if first_failed_item(exc) == 1:
                raise PaymentMoved() from exc
            raise  # a dispute id is a fresh ULID: its put never meets an existing one

    def get(self, dispute_id: str) -> Dispute | None:
        return self.read_item(Dispute, _key(dispute_id))

    def transition(
        self,
        dispute: Dispute,
        changes: dict[str, Any],
        events: list[Event],
        entry: Entry | None = None,
        charged_back: Decimal | None = None,
    ) -> Dispute:
        """Apply `changes` if the dispute still has the status and version it was read with (else
        DisputeMoved), with its events and ledger entry; a dispute that ends frees its payment
        (and a lost one adds `charged_back` to the payment's chargebacks)."""
        token = write_token()
        items = [versioned_update(self.name, _key(dispute.dispute_id), dispute, changes, token)]
        if entry is not None:  # the dispute ends: its payment takes refunds again
            update: dict[str, Any] = {
                "TableName": self.name,
                "Key": _payment_key(dispute.provider_payment_id),
                "UpdateExpression": "REMOVE #open",
                "ConditionExpression": "#open = :dispute",
                "ExpressionAttributeNames": {"#open": "open_dispute"},
                "ExpressionAttributeValues": {":dispute": dispute.dispute_id},
            }
            if charged_back:
                update["UpdateExpression"] = "ADD #cb :amount REMOVE #open"
                update["ExpressionAttributeNames"]["#cb"] = "charged_back_amount"
                update["ExpressionAttributeValues"][":amount"] = charged_back
            items += [{"Update": update}, *entry_items(self.name, entry)]
        items += event_puts(self.events_name, events)
        return self.transact_versioned(
            items, dispute, changes, token, lambda: self.get(dispute.dispute_id), lambda _fresh, _exc: DisputeMoved()
        )
