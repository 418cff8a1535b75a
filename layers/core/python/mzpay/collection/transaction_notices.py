"""The customer's message about a transaction on its payment method that moved money
(docs/notifications.md): the event a transaction's write carries, when the body asked for it."""

from __future__ import annotations

from mzpay.domain.messages.notices import TRANSACTION_PROCESSED
from mzpay.domain.partners import transactions as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.steps.customers import customer_of
from mzpay.steps.notices import business_name


def notice(transaction: CustomerTransaction, method: PaymentMethod) -> list[Event]:
    """The event of the customer's message about a transaction that moved money, when the body
    asked for it (`notify_customer: true`): to the customer's e-mail, else its phone, else its
    wallet's number (docs/notifications.md); none otherwise."""
    if not transaction.notify_customer or transaction.amount is None:
        return []
    customer = customer_of(transaction.business_account_id, transaction.customer_id)
    paid = transaction.bill["total"] if transaction.bill else transaction.amount  # a pay_bill charged the total
    data = {
        "instruction_id": transaction.instruction_id,
        "customer_id": customer.customer_id,
        "name": customer.name,
        "business_name": business_name(transaction.business_account_id),
        "transaction_type": transaction.transaction_type,
        "direction": "in" if transaction.transaction_type in (*rules.INCOMING, rules.BILL) else "out",
        "amount": f"{paid:f}",
        "currency": transaction.currency,
        "status": transaction.status,
        "reference": transaction.reference or transaction.instruction_id,
        "contact": customer.contact(),
        "wallet": {"phone_number": method.details.get("phone_number")} if method.type == "mobile_wallet" else {},
        "language": customer.language,
    }
    event = new_event(
        TRANSACTION_PROCESSED,
        transaction.business_account_id,
        transaction.mode,
        "customer_transaction",
        transaction.instruction_id,
        {"object": data},
        transaction.processed_at,
    )
    return [event]
