"""pay_bill on a customer's payment method (docs/partners.md, "pay_bill: a customer's bill"): the
gateway's quote, its charge of the customer's wallet or card for the quote's total, then its bill
payment from the business's float, named by the movement (a retry finds it). A charge that waits
for the payer settles the bill once it succeeded; a bill that fails refunds the charge."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from mzpay import deps
from mzpay.collection.method_charges import PAYMENT_STATUS, _metadata, _pay_in, _principal, _source
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.partners import transactions as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.ports.gateway import gateway
from mzpay.steps.customers import customer_of, method_of
from mzpay.store.payment_methods import TransactionChanged

BILL_IDS = uuid.UUID("5d0e3c1a-8f4b-5c6d-9e7f-0a1b2c3d4e5f")  # a pay_bill's bill payment id: uuid5 of its movement


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
    earlier = deps.bill_payments().get(str(uuid.uuid5(BILL_IDS, movement_id)))  # a retry after a fault
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


def _bill_paid(
    method: PaymentMethod, quote_id: str, bill: dict[str, Any], moved: tuple[str, str], payer: dict[str, str] | None
) -> dict[str, Any]:
    """The gateway's bill payment of `quote_id` once the charge succeeded (`moved`: the charge and
    the movement); a bill that fails, or is refused, refunds the charge."""
    from mzpay.domain.bills.payments import BillPaymentRequest

    (charge, movement_id), principal = moved, _principal(method)
    bill_id = str(uuid.uuid5(BILL_IDS, movement_id))
    request = BillPaymentRequest.model_validate({"quote_id": quote_id, "payer": payer, "metadata": _metadata(method)})
    try:
        paid = gateway().pay_bill(principal, request, bill_id).wire()
    except ServiceError as refusal:  # refused once the customer paid (float, limits, expiry)
        if refusal.status >= 500:
            raise  # a retry with the same Idempotency-Key (or the next read) finishes it
        if (landed := deps.bill_payments().get(bill_id)) is not None:  # another try of this movement paid it
            return {"status": landed.status, "reference": charge, "bill": rules.bill_view(landed.view())}
        paid = {**bill, "payment_id": None, "status": None, "failure_code": refusal.code}
        paid["failure_message"] = refusal.message
    if paid["status"] in ("failed", None):
        paid["refund_id"] = _refund(principal, charge, movement_id, paid["failure_message"])
        failure = {"error_code": paid["failure_code"], "error_message": paid["failure_message"]}
        return {"status": "failed", "reference": charge, **failure, "bill": rules.bill_view(paid)}
    return {"status": paid["status"], "reference": charge, "bill": rules.bill_view(paid)}


def _bill_after_charge(transaction: CustomerTransaction) -> CustomerTransaction:
    """A pay_bill whose charge waited for the payer, read once the gateway settled the charge:
    succeeded, the bill is paid then (the gateway's quote again and its bill payment, named by
    the movement: two readers pay once); failed, so is the transaction. One versioned write."""
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
            if refusal.status >= 500:
                return transaction  # the biller is down: the next read tries again
            refund_id = _refund(_principal(method), moved[0], moved[1], refusal.message)
            failed = rules.bill_view({**bill, "failure_code": refusal.code, "refund_id": refund_id})
            changes = {"status": "failed", "error_code": refusal.code, "bill": failed}
        else:
            outcome = _bill_paid(method, quote_id, quoted, moved, _bill_payer(method, transaction.notify_customer))
            changes = {name: outcome.get(name) for name in ("status", "bill", "error_code", "error_message")}
    try:
        return deps.payment_methods().change_transaction(transaction, changes)
    except TransactionChanged:  # another reader finished it
        return deps.payment_methods().transaction(transaction.instruction_id) or transaction
