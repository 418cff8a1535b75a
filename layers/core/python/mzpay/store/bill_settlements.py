"""PayBillSettlementQueue: one message per settled charge or bill payment of a pay_bill, put by
the outbox (mzpay.steps.bill_settlements) and taken by CollectionTransactionsFunction, which pays
the bill or refunds the charge (mzpay.collection.bill_transactions.settle). A duplicate is
harmless: the transaction changes once (a versioned write), the bill payment and the refund are
named by the transaction's movement."""

from __future__ import annotations

import json

from mzpay.store.aws import SqsQueue, env


class BillSettlementQueue(SqsQueue):
    @classmethod
    def from_env(cls) -> BillSettlementQueue:
        return cls(env("PAY_BILL_SETTLEMENT_QUEUE_URL"))

    def send(self, event_type: str, bill_payment_id: str) -> None:
        """The pay_bill whose bill payment is `bill_payment_id` has news: `event_type`, the
        charge's terminal payment.* event or the bill payment's bill_payment.* one."""
        self.post(json.dumps({"event_type": event_type, "bill_payment_id": bill_payment_id}))
