"""Payer subscriptions in the payments table: PAYER#<account>#<mode>#<payer_id>/SUB#<product_id>#<reference>
(one per payer, product and reference: a second is refused by the write's condition)."""

from __future__ import annotations

from mzpay.domain.bills.subscriptions import BillSubscription
from mzpay.store.aws import is_conditional_failure
from mzpay.store.base import InPaymentsTable


class AlreadySubscribed(Exception):
    """The payer has a subscription to this product for this reference already."""


def _partition(account_id: str, mode: str, payer_id: str) -> str:
    return f"PAYER#{account_id}#{mode}#{payer_id}"


class BillSubscriptions(InPaymentsTable):
    def create(self, subscription: BillSubscription) -> None:
        key = {
            "pk": _partition(subscription.account_id, subscription.mode, subscription.payer_id),
            "sk": f"SUB#{subscription.product_id}#{subscription.reference}",
        }
        try:
            self.put_new_item({**key, **subscription.item()})
        except Exception as exc:
            if is_conditional_failure(exc):
                raise AlreadySubscribed() from exc
            raise

    def of_payer(self, account_id: str, mode: str, payer_id: str) -> list[BillSubscription]:
        response = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :sub)",
            ExpressionAttributeValues={":pk": _partition(account_id, mode, payer_id), ":sub": "SUB#"},
            ConsistentRead=True,
        )
        return [BillSubscription.model_validate(item) for item in response.get("Items", [])]
