"""Refunds in the payments table: REF#<provider_refund_id>/REFUND (status, version), and
REFID#<account>#<mode>/<refund_id> (the merchant's refund_id, unique per account and mode).
Creating a refund is ONE transaction: the refund, its refund_id claim, the payment's refunded
total raised on condition that it stays within what was captured (so concurrent partial
refunds can never pass it together), the money held in the ledger (on condition that the
available balance covers it) and the refund.created event."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.common.entity import Claimed
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.ledger import Entry
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import index_entry, index_page, is_conditional_failure
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_puts
from mzpay.store.ledger import BalanceTooLow, entry_items
from mzpay.store.list_keys import list_attributes
from mzpay.store.transitions import claimed, versioned_update, write_token


class RefundIdTaken(Exception):
    """Another request already created the refund with this refund_id."""


class RemainderGone(Exception):
    """The payment is not succeeded any more, or the amount is above what is left to refund."""


_key = keyed("REF", "REFUND")


def _by_payment(refund: Refund) -> dict[str, str]:
    """gsi1 keys listing a payment's refunds (operators read them beside the payment)."""
    return index_entry(f"REFUNDS#{refund.provider_payment_id}", refund.provider_refund_id)


class Refunds(PaymentsTableStore):
    def _events(self, events: list[Event]) -> list[dict[str, Any]]:
        return event_puts(self.events_name, events)

    def create(self, refund: Refund, payment: Payment, events: list[Event], held: Entry) -> None:
        """RefundIdTaken, RemainderGone or BalanceTooLow when a condition stops it."""
        amount = refund.value
        charged_back = payment.charged_back_amount
        room = Decimal(payment.captured_amount) - charged_back - amount
        items = [
            put_new(
                self.name,
                {**_key(refund.provider_refund_id), **refund.item(), **_by_payment(refund), **list_attributes(refund)},
            ),
            put_new(
                self.name,
                {
                    "pk": f"REFID#{refund.account_id}#{refund.mode}",
                    "sk": refund.refund_id,
                    "provider_refund_id": refund.provider_refund_id,
                    "fingerprint": refund.fingerprint,
                },
            ),
            {
                "Update": {
                    "TableName": self.name,
                    "Key": {"pk": f"PAY#{payment.provider_payment_id}", "sk": "PAYMENT"},
                    "UpdateExpression": "ADD #refunded :amount",
                    "ConditionExpression": (
                        "#status = :succeeded AND attribute_not_exists(#dispute) "
                        "AND (attribute_not_exists(#cb) OR #cb = :cb) "
                        "AND (attribute_not_exists(#refunded) OR #refunded <= :room)"
                    ),
                    "ExpressionAttributeNames": {
                        "#refunded": "refunded_amount",
                        "#status": "status",
                        "#dispute": "open_dispute",
                        "#cb": "charged_back_amount",
                    },
                    "ExpressionAttributeValues": {
                        ":amount": amount,
                        ":room": room,
                        ":succeeded": "succeeded",
                        ":cb": charged_back,
                    },
                }
            },
            *entry_items(self.name, held),  # [3] the balance update (conditional), [4] the entry
            *self._events(events),
        ]
        try:
            self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons") or []]
            failed = [i for i, code in enumerate(reasons) if code == "ConditionalCheckFailed"]
            if failed and failed[0] == 2:
                raise RemainderGone() from exc
            if failed and failed[0] == 3:
                raise BalanceTooLow() from exc
            raise RefundIdTaken() from exc

    def get(self, provider_refund_id: str) -> Refund | None:
        return self.read_item(Refund, _key(provider_refund_id))

    def of_payment(self, provider_payment_id: str, size: int = 100) -> list[Refund]:
        """The payment's refunds, oldest first (at most `size`: a payment is refunded a few times)."""
        items, _ = index_page(self.table, "gsi1", "gsi1pk", f"REFUNDS#{provider_payment_id}", size)
        return [Refund.model_validate(item) for item in items]

    def by_refund_id(self, account_id: str, mode: str, refund_id: str) -> Claimed[Refund] | None:
        return claimed(
            self.table, {"pk": f"REFID#{account_id}#{mode}", "sk": refund_id}, "provider_refund_id", self.get
        )

    def settle(
        self,
        refund: Refund,
        changes: dict[str, Any],
        events: list[Event],
        entry: Entry | None,
        give_back: Decimal,
    ) -> Refund:
        """The provider's answer: the refund moved on condition of its status and version, its
        event, its ledger entry, and (when it failed) the payment's refunded total given back."""
        token = write_token()
        items: list[dict[str, Any]] = [
            versioned_update(self.name, _key(refund.provider_refund_id), refund, changes, token),
            *entry_items(self.name, entry),
            *self._events(events),
        ]
        if give_back:
            items.append(
                {
                    "Update": {
                        "TableName": self.name,
                        "Key": {"pk": f"PAY#{refund.provider_payment_id}", "sk": "PAYMENT"},
                        "UpdateExpression": "ADD #refunded :back",
                        "ExpressionAttributeNames": {"#refunded": "refunded_amount"},
                        "ExpressionAttributeValues": {":back": -give_back},
                    }
                }
            )
        return self.transact_versioned(
            items,
            refund,
            changes,
            token,
            lambda: self.get(refund.provider_refund_id),
            lambda _fresh, _exc: ServiceError(409, "invalid_state", "The refund changed meanwhile."),
        )
