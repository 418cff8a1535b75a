"""pay_bill on a customer's payment method (docs/partners.md, "pay_bill: a customer's bill"): the
gateway's quote, its charge of the customer's wallet or card for the quote's total, then its bill
payment from the business's float, named by the movement (a retry finds it). A charge that waits
for the payer settles the bill once it succeeded; a bill that fails refunds the charge."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from mzpay import deps
from mzpay.collection.method_charges import PAYMENT_STATUS, _metadata, _pay_in, _principal, _source
from mzpay.collection.transaction_notices import notice
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.partners import transactions as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.domain.webhooks.events import Event
from mzpay.ports.gateway import gateway
from mzpay.steps.customers import customer_of, method_of
from mzpay.store.payment_methods import TransactionChanged

LANDING_SECONDS = 5  # how long a try waits for another try of its movement paying the bill


def _bill_target(body: dict[str, Any]) -> None:
    """A pay_bill's product (and biller, when named) in the catalogue, else 400 naming the field."""
    product_id, biller_id = body["product_id"], body.get("biller_id")
    product = deps.billers().product(product_id) if is_ulid(product_id) else None
    if biller_id is not None and (not is_ulid(biller_id) or deps.billers().get(biller_id) is None):
        raise rules.unknown_bill("biller_id", "No such biller.")
    if product is None:
        raise rules.unknown_bill("product_id", "No such bill product.")
    if biller_id is not None and product.biller_id != biller_id:
        raise rules.unknown_bill("product_id", "The product is another biller's.")


def _bill_payer(method: PaymentMethod, notify: bool) -> dict[str, str] | None:
    """Where the gateway sends the bill's token or receipt (notify_customer): the customer's contact."""
    from mzpay.domain.bills.payments import Payer

    contact = {k: v for k, v in customer_of(method.business_account_id, method.customer_id).contact().items() if v}
    try:
        return Payer.model_validate(contact).model_dump(exclude_none=True) if contact and notify else None
    except ValidationError:  # a contact the bills' payer does not take: the transaction's own message remains
        return None


def _refund(principal: Principal, charge: str, movement_id: str, why: str) -> str | None:
    """The charge given back when the bill was not paid (the gateway's refund, named by the
    movement: a retry refunds once); None when the gateway cannot refund it."""
    try:
        refund = gateway().refund_payment(principal, charge, f"{movement_id}-bill", f"The bill was not paid: {why}")
    except ServiceError as refusal:
        if refusal.status >= 500:
            raise
        return None
    return str(refund.provider_refund_id)


def _pay_bill(method: PaymentMethod, movement_id: str, amount: Decimal, body: dict[str, Any]) -> dict[str, Any]:
    """A pay_bill: the gateway's quote, its charge of the customer's wallet or card for the quote's
    `total` and its bill payment from the business's float (named by the movement: a retry finds
    it). A charge waiting for the payer pays the bill once it succeeded (_bill_after_charge)."""
    _source(method, "pay_bill")
    principal = _principal(method)
    earlier = deps.bill_payments().get(rules.bill_payment_id(movement_id))  # a retry after a fault
    if earlier is not None and earlier.account_id == principal.acting_account_id:
        quote_id, bill = earlier.quote_id, earlier.view()
    else:
        quote_id, bill = _quoted(principal, body["product_id"], body["destination"], amount)
    charge = _pay_in(method, movement_id, Decimal(bill["total"]), "MZN")
    if charge["status"] != "succeeded":  # declined, or waiting for the payer: no bill paid yet
        return {**charge, "bill": rules.bill_view({**bill, "payment_id": None, "status": None})}
    payer = _bill_payer(method, bool(body.get("notify_customer")))
    return _bill_paid(method, quote_id, bill, (charge["reference"], movement_id), payer)


def _quoted(principal: Principal, product_id: str, reference: str, amount: Decimal) -> tuple[str, dict[str, Any]]:
    from mzpay.domain.bills.quotes import QuoteRequest

    wanted = {"product_id": product_id, "reference": reference, "amount": f"{amount:.2f}"}
    quoted = gateway().quote_bill(principal, QuoteRequest.model_validate(wanted))
    return quoted.quote_id, {**quoted.wire(), "status": None}


def _landed(bill_id: str) -> BillPayment | None:
    """The bill payment another try of the movement made; while that try is still paying it
    (pending), awaited a few seconds, so that both answer what it became."""
    deadline = time.monotonic() + LANDING_SECONDS
    landed = deps.bill_payments().get(bill_id)
    while landed is not None and landed.status == "pending" and time.monotonic() < deadline:
        time.sleep(0.25)
        landed = deps.bill_payments().get(bill_id)
    return landed


def _bill_paid(
    method: PaymentMethod, quote_id: str, bill: dict[str, Any], moved: tuple[str, str], payer: dict[str, str] | None
) -> dict[str, Any]:
    """The gateway's bill payment of `quote_id` once the charge succeeded (`moved`: the charge and
    the movement); a bill that fails, or is refused, refunds the charge."""
    from mzpay.domain.bills.payments import BillPaymentRequest

    (charge, movement_id), principal = moved, _principal(method)
    bill_id = rules.bill_payment_id(movement_id)
    request = BillPaymentRequest.model_validate({"quote_id": quote_id, "payer": payer, "metadata": _metadata(method)})
    try:
        paid = gateway().pay_bill(principal, request, bill_id).wire()
    except ServiceError as refusal:  # refused once the customer paid (float, limits, expiry)
        if refusal.status >= 500:
            raise  # a retry with the same Idempotency-Key (or the next read) finishes it
        if (landed := _landed(bill_id)) is not None:  # another try of this movement paid it
            return {"status": landed.status, "reference": charge, "bill": rules.bill_view(landed.view())}
        paid = {**bill, "payment_id": None, "status": None, "failure_code": refusal.code}
        paid["failure_message"] = refusal.message
    if paid["status"] in ("failed", None):
        paid["refund_id"] = _refund(principal, charge, movement_id, paid["failure_message"])
        failure = {"error_code": paid["failure_code"], "error_message": paid["failure_message"]}
        return {"status": "failed", "reference": charge, **failure, "bill": rules.bill_view(paid)}
    return {"status": paid["status"], "reference": charge, "bill": rules.bill_view(paid)}


def _charge_settled(transaction: CustomerTransaction, patient: bool) -> CustomerTransaction:
    """A pay_bill whose charge waited for the payer, once the gateway settled the charge:
    succeeded, the bill is paid then (the gateway's quote again and its bill payment, named by
    the movement: two tries pay once); failed, so is the transaction. One versioned write. The
    biller down at the quote: `patient` (a read) answers the transaction as it is, else raises."""
    charge = deps.payments().get(transaction.reference or "")
    status = PAYMENT_STATUS.get(charge.status) if charge else None
    if charge is None or status is None or transaction.bill is None or transaction.movement_id is None:
        return transaction
    changes: dict[str, Any] = {"status": "failed", "error_code": charge.failure_code}
    if status == "succeeded":
        method = method_of(transaction.business_account_id, transaction.customer_id, transaction.pm_id)
        bill, moved = transaction.bill, (charge.provider_payment_id, transaction.movement_id)
        try:
            quote_id, quoted = _quoted(_principal(method), bill["product_id"], bill["reference"], bill["amount"])
        except ServiceError as refusal:  # the biller refuses it now: the charge comes back
            if refusal.status >= 500 and patient:
                return transaction  # the biller is down: the next read tries again
            if refusal.status >= 500:
                raise  # the queue's message comes back later
            refund_id = _refund(_principal(method), moved[0], moved[1], refusal.message)
            failed = rules.bill_view({**bill, "failure_code": refusal.code, "refund_id": refund_id})
            changes = {"status": "failed", "error_code": refusal.code, "bill": failed}
        else:
            outcome = _bill_paid(method, quote_id, quoted, moved, _bill_payer(method, transaction.notify_customer))
            changes = {name: outcome.get(name) for name in ("status", "bill", "error_code", "error_message")}
    return _settle(transaction, changes)


def _bill_after_charge(transaction: CustomerTransaction) -> CustomerTransaction:
    """The read's path of a pay_bill whose charge waited (the queue's is `settle`: the same)."""
    return _charge_settled(transaction, patient=True)


def _bill_settled(transaction: CustomerTransaction) -> CustomerTransaction:
    """A pay_bill whose bill payment waited for the biller, once the gateway settled it:
    succeeded, so is the transaction (with the bill's token or receipt); failed, the charge is
    refunded (named by the movement: once) and the transaction fails. One versioned write, with
    the customer's message when the body asked for it (notify_customer): once."""
    bill = transaction.bill or {}
    paid = deps.bill_payments().get(bill["payment_id"]) if bill.get("payment_id") else None
    if paid is None or paid.status == "pending" or transaction.movement_id is None:
        return transaction
    view = rules.bill_view(bill | paid.view())
    changes: dict[str, Any] = {"status": "succeeded", "bill": view}
    if paid.status != "succeeded":
        method = method_of(transaction.business_account_id, transaction.customer_id, transaction.pm_id)
        why = paid.failure_message or "The biller did not pay it."
        refund_id = _refund(_principal(method), transaction.reference or "", transaction.movement_id, why)
        changes = {"status": "failed", "bill": rules.bill_view({**view, "refund_id": refund_id})}
        changes |= {"error_code": paid.failure_code, "error_message": paid.failure_message}
    return _settle(transaction, changes, notify=True)


def _settle(transaction: CustomerTransaction, changes: dict[str, Any], notify: bool = False) -> CustomerTransaction:
    """The one versioned write that settles a pending pay_bill; another try that settled it
    first wins (its transaction is answered)."""
    events: list[Event] = []
    if notify and transaction.notify_customer:
        method = method_of(transaction.business_account_id, transaction.customer_id, transaction.pm_id)
        events = notice(transaction.with_changes(changes), method)
    try:
        return deps.payment_methods().change_transaction(transaction, changes, (deps.event_writes(), events))
    except TransactionChanged:  # another reader, or the queue, settled it
        return deps.payment_methods().transaction(transaction.instruction_id) or transaction


def settle(event_type: str, bill_payment_id: str) -> str:
    """A PayBillSettlementQueue message (mzpay.steps.bill_settlements): the pay_bill of the bill
    payment `bill_payment_id` settled by the path a read takes (its charge settled: the bill
    paid or the transaction failed; its bill payment settled: succeeded, or refunded and
    failed). What it did: the transaction's status, or "none" (no pending pay_bill: a pay_in's
    charge, or settled already). The biller or the gateway down raises: the message comes back."""
    transaction = deps.payment_methods().of_bill_payment(bill_payment_id)
    if transaction is None or transaction.status != "pending" or transaction.bill is None:
        return "none"
    if transaction.bill.get("payment_id") is None:
        return _charge_settled(transaction, patient=False).status
    return _bill_settled(transaction).status
