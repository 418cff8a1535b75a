"""The messages a decision or a transaction sends to a person (docs/notifications.md): which
events ask for one, who receives it and the cause that makes it one message per decision. Pure
rules: the events are written by the use cases, in the transaction of the change they report,
and the outbox queues their message (mzpay.steps.notices).

- customer_transaction.processed: a payment-method transaction with `notify_customer: true`, to
  the customer (cause per transaction);
- business_account.approved / .rejected / .suspended: a reviewer's decision, to the business's
  person of contact (an approval happens once in a business's life: its cause is the business;
  a rejection or suspension is keyed by its review, so a suspension after a reactivation, or a
  second rejection after a resubmission, is a new decision);
- kyc.verified / kyc.rejected: a KYC outcome, to the customer (final: once per verification);
- bill_payment.succeeded: a bill payment's token or receipt, to the payer it names (once per
  payment; its resends are their own causes: mzpay.cases.bill_resends).

None of these events but bill_payment.succeeded is a webhook (mzpay.domain.webhooks.rules
.DELIVERABLE); that one is posted to the payment's callback_url as well."""

from __future__ import annotations

from typing import Any

QUEUE_KIND = "notice"  # the NotificationQueue message's kind of every one of them

TRANSACTION_PROCESSED = "customer_transaction.processed"
BUSINESS_DECISIONS = {
    "approve": "business_account.approved",
    "reject": "business_account.rejected",
    "suspend": "business_account.suspended",
}
KYC_OUTCOMES = {"verified": "kyc.verified", "rejected": "kyc.rejected"}
BILL_PAID = "bill_payment.succeeded"
NOTICES = frozenset({TRANSACTION_PROCESSED, *BUSINESS_DECISIONS.values(), *KYC_OUTCOMES.values(), BILL_PAID})
CHANNELS = (("email", "email"), ("sms", "phone_number"))  # the first a contact has is used


def recipient(*contacts: dict[str, Any] | None) -> tuple[str, str] | None:
    """(channel, address) of the first contact with an e-mail, else a phone number, in the order
    given (a customer's own contact before its wallet's number); None when none has either."""
    for channel, field in CHANNELS:
        for contact in contacts:
            address = (contact or {}).get(field)
            if isinstance(address, str) and address.strip():
                return channel, address.strip()
    return None


def cause(notice: str, data: dict[str, Any]) -> tuple[str, str]:
    """(cause, subject id) of a notice's message: one message per cause and recipient."""
    if notice == TRANSACTION_PROCESSED:
        return f"{notice}:{data['instruction_id']}", str(data["instruction_id"])
    if notice == BILL_PAID:
        return f"{notice}:{data['payment_id']}", str(data["payment_id"])
    if notice in KYC_OUTCOMES.values():
        return f"{notice}:{data['kyc_id']}", str(data["kyc_id"])
    if notice == BUSINESS_DECISIONS["approve"]:
        return f"{notice}:{data['account_id']}", str(data["account_id"])
    return f"{notice}:{data['account_id']}:{data['review_id']}", str(data["account_id"])
