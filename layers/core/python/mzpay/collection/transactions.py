"""Transactions on a customer's payment method (docs/partners.md, "Transactions"). Queries
(check_balance, get_authorization, validata) are answered by the simulator in test mode;
money moves through the gateway of the business's account in the method's mode: pay_in is a
charge of the customer's wallet or card, pay_out, deposit and transfer a payout to a wallet or,
from a bank account method, a bank transfer to its NIB (the payout connectors); pay_bill a charge
for the bill's total, then the gateway's bill payment from the business's float. Every processed
transaction is kept in the customer's history, declined ones included.

A transaction runs once per Idempotency-Key (the route is @idempotent): its gateway payment or
payout is named by an id derived from the key (`movement_id`), so a retry after a fault between
the money moving and the history being written finds the same charge, payout or bill payment
(the gateway's own id rules) and records it, instead of moving the money again."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from mzpay import deps
from mzpay.answers import collection_transactions as answers
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError, field_refusal
from mzpay.domain.common.ids import is_ulid, new_prefixed_id
from mzpay.domain.messages.notices import TRANSACTION_PROCESSED
from mzpay.domain.partners import transactions as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.domain.payments.charges import ChargeRequest, MobileWallet, Source
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.ports.gateway import gateway
from mzpay.steps.business import gateway_account_of
from mzpay.steps.customers import customer_of, method_of
from mzpay.steps.notices import business_name
from mzpay.store.payment_methods import TransactionChanged

NETWORKS = {"ptn_mpesa": "mpesa", "ptn_emola": "emola", "ptn_mkesh": "mkesh"}
PAYMENT_STATUS = {"succeeded": "succeeded", "failed": "failed", "canceled": "failed", "expired": "failed"}
PAYOUT_STATUS = {"paid": "succeeded", "failed": "failed", "canceled": "failed", "rejected": "failed"}
MAX_HISTORY = 1000  # the newest transactions a list filters and pages through
BILL_IDS = uuid.UUID("5d0e3c1a-8f4b-5c6d-9e7f-0a1b2c3d4e5f")  # a pay_bill's bill payment id: uuid5 of its movement


def _principal(method: PaymentMethod) -> Principal:
    """The business's gateway account, in the method's mode."""
    return Principal.of_account(gateway_account_of(method.business_account_id), method.mode)


def _unsupported(what: str) -> ServiceError:
    return ServiceError(400, "invalid_request", what)


def _wallet(method: PaymentMethod, destination: str | None) -> tuple[str, str]:
    network = NETWORKS.get(method.partner_id)
    if method.type != "mobile_wallet" or network is None:
        raise _unsupported(
            "Money is paid out to mobile wallets (M-Pesa, e-Mola, mKesh) and bank accounts only, so far."
        )
    return network, destination or method.details["phone_number"]


def _destination(method: PaymentMethod, destination: str | None) -> dict[str, Any]:
    """The payout's destination: a wallet's number, or a bank account's NIB and holder (a bank
    transfer through the payout connectors); `destination`, when given, another number or NIB."""
    if method.type == "bank_account":
        holder = method.details.get("holder_name") or method.details.get("account_holder_name")
        account = destination or method.details["nib"]
        return {"type": "bank_transfer", "bank_transfer": {"name": holder, "account": account}}
    network, phone = _wallet(method, destination)
    return {"type": "mobile_wallet", "mobile_wallet": {"network": network, "phone_number": phone}}


def _metadata(method: PaymentMethod) -> dict[str, str]:
    return {"customer_id": method.customer_id, "payment_method_id": method.pm_id}


def _source(method: PaymentMethod, kind: str) -> Source:
    """What a charge of the customer takes: its wallet or its card's token."""
    if method.type == "mobile_wallet" and method.partner_id in NETWORKS:
        wallet = MobileWallet(network=NETWORKS[method.partner_id], phone_number=method.details["phone_number"])
        return Source(type="mobile_wallet", mobile_wallet=wallet)
    if method.type == "card":
        return Source.model_validate({"type": "card", "card": {"token": method.details["card_token"]}})
    raise _unsupported(f"A {kind} takes a mobile wallet or a card, so far.")


def _pay_in(method: PaymentMethod, movement_id: str, amount: Decimal, currency: str) -> dict[str, Any]:
    source = _source(method, "pay_in")
    request = ChargeRequest(
        payment_id=movement_id,
        money={"amount": f"{amount:f}", "currency": currency},  # type: ignore[arg-type]
        source=source,
        country="MZ",
        metadata=_metadata(method),
    )
    charge = gateway().create_charge(_principal(method), request)  # the gateway's own charge path
    status = PAYMENT_STATUS.get(charge.status, "pending")
    return {
        "status": status,
        "reference": charge.provider_payment_id,
        "error_code": charge.failure_code,
        "error_message": charge.failure_message,
    }


def _pay_out(
    method: PaymentMethod,
    movement_id: str,
    amount: Decimal,
    currency: str,
    destination: str | None,
    text: str | None,
) -> dict[str, Any]:
    from mzpay.domain.payouts.rules import PayoutRequest

    try:
        request = PayoutRequest.model_validate(
            {
                "payout_id": movement_id,
                "money": {"amount": f"{amount:f}", "currency": currency},
                "destination": _destination(method, destination),
                "description": text,
                "metadata": _metadata(method),
            }
        )
    except ValidationError as exc:  # the payout's own rules refuse what the body gave (a phone of another network)
        field = "destination" if destination else "payment_method"
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise field_refusal([FieldError(field, "INVALID_FORMAT", message)]) from None
    payout = gateway().create_payout(_principal(method), request)  # the gateway's own payout path
    return {"status": PAYOUT_STATUS.get(payout.status, "pending"), "reference": payout.provider_payout_id}


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


def process(
    account_id: str, customer_id: str, pm_id: str, body: dict[str, Any], movement_id: str
) -> answers.TransactionResult:
    """POST .../payment_methods/{pm_id}/transactions: the process result. Refused: an inactive
    method (400 invalid_request); declined: 400 transaction_failed (kept in the history);
    the provider failing: 502 provider_error. `movement_id` names the gateway payment or payout
    a money-moving transaction makes (the same for every retry of one request)."""
    method = method_of(account_id, customer_id, pm_id)
    kind = body["transaction_type"]
    amount, currency = rules.checked(kind, body.get("amount"), body.get("currency"))
    rules.bill_fields(kind, body)
    if method.status != "active":
        raise ServiceError(
            400, "invalid_request", "The payment method is inactive.", payment_method_status=method.status
        )
    if kind == rules.BILL:
        _bill_target(body)
    instruction_id, now = new_prefixed_id("ins"), now_iso()
    outcome: dict[str, Any]
    if kind in rules.INCOMING:
        assert amount is not None
        outcome = _pay_in(method, movement_id, amount, currency)
    elif kind in rules.OUTGOING:
        assert amount is not None
        outcome = _pay_out(method, movement_id, amount, currency, body.get("destination"), body.get("description"))
    elif kind == rules.BILL:
        assert amount is not None
        outcome = _pay_bill(method, movement_id, amount, body)
    elif method.mode == "test":
        outcome = rules.test_query(kind, rules.method_key(method.type, method.details), currency)
    else:
        raise _unsupported(f"The partner answers no {kind} through this service in live mode yet.")
    transaction = CustomerTransaction(
        instruction_id=instruction_id,
        business_account_id=account_id,
        customer_id=customer_id,
        pm_id=pm_id,
        pm_type=method.type,
        partner_id=method.partner_id,
        mode=method.mode,
        transaction_type=kind,
        amount=amount,
        currency=currency,
        description=body.get("description"),
        destination=body.get("destination"),
        role="receiver" if kind in rules.INCOMING else "sender",
        status=outcome.pop("status"),
        version=1,
        metadata=body.get("metadata") or {},
        notify_customer=bool(body.get("notify_customer")),
        movement_id=movement_id if kind == rules.BILL else None,
        created_at=now,
        processed_at=now_iso(),
        **{name: value for name, value in outcome.items() if value is not None},
    )
    deps.payment_methods().record(transaction, (deps.event_writes(), _notice(transaction, method)))
    if transaction.status == "failed":
        raise rules.declined(transaction)
    return answers.TransactionResult.of(transaction.result())


def _notice(transaction: CustomerTransaction, method: PaymentMethod) -> list[Event]:
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


def _current(transaction: CustomerTransaction) -> CustomerTransaction:
    """A pending money movement as the gateway has it now (its payment, payout or bill settles later)."""
    if transaction.status != "pending" or transaction.reference is None:
        return transaction
    if transaction.bill is not None and transaction.bill["payment_id"] is None:  # the charge waited for the payer
        return _bill_after_charge(transaction)
    if transaction.bill is not None:  # the bill payment waited for the biller
        paid = deps.bill_payments().get(transaction.bill["payment_id"])
        settled = {"status": paid.status, "bill": rules.bill_view(transaction.bill | paid.view())} if paid else {}
        return transaction.with_changes(settled) if settled and paid and paid.status != "pending" else transaction
    if transaction.transaction_type in rules.INCOMING:
        payment = deps.payments().get(transaction.reference)
        status = PAYMENT_STATUS.get(payment.status) if payment else None
    else:
        payout = deps.payouts().get(transaction.reference)
        status = PAYOUT_STATUS.get(payout.status) if payout else None
    return transaction.with_changes({"status": status}) if status else transaction


def listed(
    account_id: str, customer_id: str, filters: dict[str, Any], page: int, limit: int
) -> answers.TransactionList:
    """The customer's transactions, newest first, filtered (payment_method_id, type: the method's
    type, status, description: a part of it, partner), `limit` per page, pages from 1."""
    customer_of(account_id, customer_id)
    found = [_current(t) for t in deps.payment_methods().transactions_of(customer_id, MAX_HISTORY)]
    wanted = [
        t
        for t in found
        if (filters.get("payment_method_id") in (None, t.pm_id))
        and (filters.get("type") in (None, t.pm_type))
        and (filters.get("status") in (None, t.status))
        and (filters.get("partner") in (None, t.partner_id))
        and (not filters.get("description") or filters["description"].lower() in (t.description or "").lower())
    ]
    start = (page - 1) * limit
    return answers.TransactionList.of(
        {
            "object": "list",
            "data": [t.history_item() for t in wanted[start : start + limit]],
            "has_more": len(wanted) > start + limit,
        }
    )


def read(account_id: str, customer_id: str, instruction_id: str) -> answers.TransactionRead:
    customer_of(account_id, customer_id)
    found = deps.payment_methods().transaction(instruction_id) if len(instruction_id) <= 64 else None
    if found is None or found.customer_id != customer_id or found.business_account_id != account_id:
        raise ServiceError(404, "not_found", "No such transaction.")
    return answers.TransactionRead.of({"object": "transaction", "transaction": _current(found).history_item()})
