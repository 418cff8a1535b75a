"""Refunds and balances (merchant use cases).

A refund is claimed before the provider is called (refund, refund_id claim, the payment's
refunded total raised within what was captured, the money held in the ledger and the
refund.created event: one transaction), then the provider's answer settles it: succeeded
(the held money leaves) or failed (it comes back, and so does the payment's remainder).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.balance import Balance, CurrencyBalance
from mzpay.answers.refunds import RefundResult
from mzpay.connectors.base import Refunding
from mzpay.domain.access.principal import Principal, ensure_customer_visible, own
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.entity import Claimed
from mzpay.domain.common.errors import ServiceError, invalid_field, refused_field
from mzpay.domain.common.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.money import ledger
from mzpay.domain.money.amounts import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import expiry
from mzpay.domain.payments.charges import Money
from mzpay.domain.payments.manual import is_manual
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, Status, amount_error
from mzpay.steps.payments import (
    connector_of,
    provider_call,
    visible_payment,
)
from mzpay.steps.refunds import refund_event, refund_result, resume, settle, submitting
from mzpay.store.ledger import BalanceTooLow
from mzpay.store.refunds import RefundIdTaken, RemainderGone
from mzpay.store.transitions import replayed


def _amount(payment: Payment, money: Money | None) -> Decimal:
    currency = payment.currency
    remaining = payment.refundable
    if money is None:
        return remaining
    if money.currency != currency:
        detail = f"amount.currency: refund in the payment's currency ({currency})."
        raise refused_field("invalid_currency", "amount.currency", detail, f"use {currency}")
    try:
        value = parse_amount(money.amount, currency)
    except InvalidAmount as exc:
        raise amount_error("amount.amount", str(exc)) from exc
    if value <= 0:
        raise refused_field(
            "invalid_amount", "amount.amount", "amount.amount: a refund is more than zero.", "more than zero"
        )
    return value


def _exceeds(payment: Payment, amount: Decimal) -> ServiceError:
    remaining = payment.refundable
    currency = payment.currency
    return ServiceError(
        422,
        "amount_exceeds_remaining",
        f"Only {format_amount(max(remaining, Decimal(0)), currency)} {currency} of this payment is left to refund.",
        remaining=format_amount(max(remaining, Decimal(0)), currency),
    )


_NO_SUCH_PAYMENT = ServiceError(404, "not_found", "No such payment.")


def _result(refund: Refund) -> RefundResult:
    return RefundResult.of(refund_result(refund))


def create_refund(
    principal: Principal, provider_payment_id: str, refund_id: str | None, money: Money | None, reason: str | None
) -> RefundResult:
    """Refund all (amount omitted) or part of a succeeded payment: a RefundResult."""
    if refund_id is not None and not (is_ulid(refund_id) or refund_id.replace("-", "").isalnum()):
        raise invalid_field("refund_id", "letters, digits and dashes")
    account, mode = principal.acting_account_id, principal.mode
    body = {
        "provider_payment_id": provider_payment_id,
        "amount": money.model_dump() if money else None,
        "reason": reason,
    }
    fingerprint = request_fingerprint(body)
    if refund_id is not None:
        existing = deps.refunds().by_refund_id(account, mode, refund_id)
        if existing is not None:
            ensure_customer_visible(principal, existing.entity.customer_id, _NO_SUCH_PAYMENT)
            return _replay(existing, fingerprint)
    payment = visible_payment(principal, provider_payment_id)
    _refundable_now(payment)
    amount = _amount(payment, money)
    if amount <= 0 or amount > payment.refundable:
        raise _exceeds(payment, amount)
    if is_manual(payment):
        raise ServiceError(
            422,
            "not_supported",
            "A manual payment is given back outside the gateway (cash or a bank transfer).",
            rule="operation",
        )
    connector = connector_of(payment)
    if not isinstance(connector, Refunding):
        raise ServiceError(
            422, "not_supported", "This payment's provider cannot refund through the API.", rule="operation"
        )
    refusal = connector.refund_refusal(provider_call(payment))
    if refusal is not None:  # e.g. a binding without the credentials its provider's refunds need
        raise ServiceError(422, "not_supported", refusal, rule="operation")
    now = now_iso()
    currency = payment.currency
    provider_refund_id = new_id()
    refund = Refund(
        provider_refund_id=provider_refund_id,
        refund_id=refund_id or new_id(),
        provider_payment_id=payment.provider_payment_id,
        account_id=account,
        mode=mode,
        status=Status.PENDING,
        version=1,
        amount=format_amount(amount, currency),
        currency=currency,
        reason=reason,
        callback_url=payment.callback_url,
        customer_id=payment.customer_id,
        fingerprint=fingerprint,
        created_at=now,
        updated_at=now,
        **submitting(mode, provider_refund_id),
    )
    created = refund_event("refund.created", refund, now)
    held = ledger.Entry(
        account, mode, currency, ledger.hold("refund.created", amount), created.id, provider_refund_id, now
    )
    try:
        deps.refunds().create(refund, payment, [created], held)
    except RemainderGone:
        fresh = deps.payments().get(provider_payment_id) or payment
        _refundable_now(fresh)
        raise _exceeds(fresh, amount) from None
    except BalanceTooLow:
        raise ledger.insufficient_balance(currency, amount) from None
    except RefundIdTaken:
        winner = deps.refunds().by_refund_id(account, mode, refund.refund_id)
        assert winner is not None
        if winner.entity.provider_refund_id != refund.provider_refund_id:
            return _replay(winner, fingerprint)
        # else it is this very creation, landed on an attempt whose answer was lost: submit it
    if expiry.abandoned(refund, datetime.now(UTC)):  # the write landed after its lease: claim it like a retry
        return _result(expiry.settled_or_wait(resume(refund)))
    result = connector.refund(provider_call(payment), amount, refund.provider_refund_id)
    try:
        return _result(settle(refund, result.status, result.failure_code, result.failure_message))
    except ServiceError as lost:  # a retry or the sweep took the submission over meanwhile
        if lost.code != "invalid_state":
            raise
        return _result(expiry.settled_or_wait(deps.refunds().get(refund.provider_refund_id) or refund))


def _replay(existing: Claimed[Refund], fingerprint: str) -> RefundResult:
    """The refund a refund_id was claimed for (submitted now if its request left it unsubmitted)."""
    reused = "This refund_id belongs to another refund (different payment, amount or reason)."
    return _result(replayed(existing, fingerprint, "refund_id_reused", reused, resume))


def _refundable_now(payment: Payment) -> None:
    """409 invalid_state unless the payment succeeded and no dispute of it is open."""
    if payment.status != Status.SUCCEEDED:
        raise ServiceError(409, "invalid_state", f"Cannot refund a payment that is {payment.status}.")
    if payment.open_dispute:
        raise ServiceError(
            409, "invalid_state", "This payment is disputed: it takes no refund until the dispute is decided."
        )


def read_refund(principal: Principal, provider_refund_id: str) -> RefundResult:
    refund = deps.refunds().get(provider_refund_id) if is_ulid(provider_refund_id) else None
    refund = own(principal, refund, "refund")
    ensure_customer_visible(principal, refund.customer_id, ServiceError(404, "not_found", "No such refund."))
    return _result(refund)


def balance(principal: Principal) -> Balance:
    """GET /v1/balance: per currency, what is available (may be refunded or paid out), held, and
    the fees providers reported keeping and the service charged (in total)."""
    items = deps.ledger().balances(principal.acting_account_id, principal.mode)
    return Balance(
        mode=principal.mode,  # type: ignore[arg-type]  # a Principal's mode is test or live
        balances=[_currency_balance(item) for item in sorted(items, key=lambda i: i["currency"])],
    )


def _currency_balance(item: dict[str, Any]) -> CurrencyBalance:
    """One balance item as shown; `service_fees` once the account was charged one in the currency."""
    currency = item["currency"]
    shown = {name: format_amount(Decimal(item.get(name, 0)), currency) for name in ("available", "held", "fees")}
    if "service_fees" in item:
        shown["service_fees"] = format_amount(Decimal(item["service_fees"]), currency)
    return CurrencyBalance(currency=currency, **shown)
