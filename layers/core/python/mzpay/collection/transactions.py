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

from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from mzpay import deps
from mzpay.answers import collection_transactions as answers
from mzpay.collection.bill_transactions import _bill_after_charge, _bill_settled, _bill_target, _pay_bill
from mzpay.collection.method_charges import NETWORKS, PAYMENT_STATUS, _metadata, _pay_in, _principal, _unsupported
from mzpay.collection.transaction_notices import notice
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError, field_refusal
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.domain.partners import transactions as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.ports.gateway import gateway
from mzpay.steps.customers import customer_of, method_of

PAYOUT_STATUS = {"paid": "succeeded", "failed": "failed", "canceled": "failed", "rejected": "failed"}
MAX_HISTORY = 1000  # the newest transactions a list filters and pages through


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
    deps.payment_methods().record(transaction, (deps.event_writes(), notice(transaction, method)))
    if transaction.status == "failed":
        raise rules.declined(transaction)
    return answers.TransactionResult.of(transaction.result())


def _current(transaction: CustomerTransaction) -> CustomerTransaction:
    """A pending money movement as the gateway has it now (its payment, payout or bill settles later)."""
    if transaction.status != "pending" or transaction.reference is None:
        return transaction
    if transaction.bill is not None and transaction.bill["payment_id"] is None:  # the charge waited for the payer
        return _bill_after_charge(transaction)
    if transaction.bill is not None:  # the bill payment waited for the biller: settled as the queue does
        try:
            return _bill_settled(transaction)
        except ServiceError as fault:  # the refund's gateway down: the queue's message finishes it
            if fault.status < 500:
                raise
            return transaction
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
