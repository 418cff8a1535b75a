"""The outbox's share of pay_bills (docs/partners.md, "pay_bill: a customer's bill"): a pay_bill
whose charge waited for the payer, or whose bill payment waited for the biller, is settled when
that charge or bill payment is, without anyone reading the transaction. The outbox only hands the
work over: one PayBillSettlementQueue message, which CollectionTransactionsFunction (the function
that pays bills, with the bill suppliers' and the ledger's rights the dispatcher has not) takes.

Handed over: a charge's terminal event (payment.succeeded, .failed, .expired, .canceled) whose
metadata names a customer's payment method (the charges of transactions on payment methods; the
event's `routing`, kept beside its envelope, says so: the payment's view has no metadata), named
by the bill payment its movement (the charge's payment_id) derives; and a bill payment's outcome
(bill_payment.succeeded, .failed) whose metadata names one. A pay_in's charge is handed
over too (its metadata is the same) and finds no pay_bill: nothing is done for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mzpay import deps
from mzpay.domain.partners.transactions import bill_payment_id

CHARGE_SETTLED = frozenset({"payment.succeeded", "payment.failed", "payment.expired", "payment.canceled"})
BILL_SETTLED = frozenset({"bill_payment.succeeded", "bill_payment.failed"})


def _named(value: Any) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 64 else None


def bill_settlement_of(image: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the event's type, the pay_bill's bill payment id) when `image` may settle a pay_bill,
    else None."""
    kind = image.get("type")
    found = (image.get("data") or {}).get("object")
    if kind not in CHARGE_SETTLED | BILL_SETTLED or not isinstance(found, Mapping):
        return None
    metadata = (image.get("routing") if kind in CHARGE_SETTLED else found.get("metadata")) or {}
    if not isinstance(metadata, Mapping) or _named(metadata.get("payment_method_id")) is None:
        return None
    if kind in CHARGE_SETTLED:
        movement_id = _named(found.get("payment_id"))
        return (str(kind), bill_payment_id(movement_id)) if movement_id else None
    payment_id = _named(found.get("payment_id"))
    return (str(kind), payment_id) if payment_id else None


def dispatch_bill_settlement(image: Mapping[str, Any]) -> bool:
    """One PayBillSettlementQueue message for an event that may settle a pay_bill (a duplicate
    is harmless); False when the event settles none."""
    found = bill_settlement_of(image)
    if found is None:
        return False
    deps.bill_settlement_queue().send(*found)
    return True
