"""Opening a hosted checkout: a payment the payer completes on the page at checkout_url. Shared by
POST /v1/payments (mzpay.cases.checkout) and the payment link of a collection request."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.domain.access.principal import Principal, customer_of_create
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.entity import Claimed
from mzpay.domain.common.errors import refused_field
from mzpay.domain.common.ids import new_id, request_fingerprint
from mzpay.domain.money.amounts import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import expiry
from mzpay.domain.payments.charges import CheckoutRequest
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.rules import Payment, Status, amount_error, snapshot
from mzpay.domain.webhooks.events import Event
from mzpay.steps.payments import close, current, new_payment, payment_event, waiting
from mzpay.store.payments import PaymentIdTaken
from mzpay.store.transitions import same_request


def create_checkout(
    principal: Principal,
    request: CheckoutRequest,
    base_url: str,
    statement: dict[str, str] | None = None,
    networks: list[str] | None = None,
    collection_request_id: str | None = None,
) -> dict[str, Any]:
    """POST /v1/payments: a payment the payer completes on the hosted checkout page. `statement`
    (biller, invoice_number, description) is shown on the page and `networks` limits the
    wallets it offers (a collection request's payment link sets both, and its id)."""
    customer_id = customer_of_create(principal)  # ?customer_id=: required of a key restricted to customers
    currency = request.currency
    if request.value <= 0:
        raise amount_error("amount", "the amount of a checkout is more than zero")
    if not any(currency in method.limits for method in METHODS.values()):
        raise refused_field(
            "unsupported_currency", "currency", f"currency: no method takes {currency}.", f"no method takes {currency}"
        )
    try:
        amount = format_amount(parse_amount(request.amount, currency), currency)
    except InvalidAmount as exc:
        raise amount_error("amount", str(exc)) from exc
    now = datetime.now(UTC)
    deadline = expiry.checkout_deadline(principal.mode, request.expires_in, now)
    account, mode = principal.acting_account_id, principal.mode
    payment_id = request.payment_id or new_id()
    asked = request.model_dump(mode="json") | ({"customer_id": customer_id} if customer_id is not None else {})
    fingerprint = request_fingerprint(asked, "checkout")
    existing = deps.payments().by_payment_id(account, mode, payment_id) if request.payment_id else None
    if existing is not None:
        return replay(existing, fingerprint)
    provider_payment_id = new_id()
    stamp = now_iso()
    payment = new_payment(
        principal,
        payment_id,
        currency,
        fingerprint,
        stamp,
        provider_payment_id,
        status=Status.REQUIRES_PAYMENT_METHOD,
        checkout=True,
        statement=statement or ({"description": request.description} if request.description else None),
        networks=networks,
        collection_request_id=collection_request_id,
        checkout_url=f"{base_url.rstrip('/')}/checkout/{provider_payment_id}",
        amount=amount,
        country="MZ",
        customer={"id": customer_id} if customer_id is not None else None,
        callback_url=request.callback_url,
        return_url=request.return_url,
        metadata=request.metadata,
        expires_at=expiry.iso(deadline),
    )
    payment = payment.with_changes(waiting(payment, now))
    return create_or_replay(payment, fingerprint, payment_event("payment.created", payment, stamp))


def create_or_replay(payment: Payment, fingerprint: str, created: Event) -> dict[str, Any]:
    """Write a new payment (and its claim of the merchant's payment_id) with its event; when a
    concurrent request claimed the id first, answer that payment (409 payment_id_reused unless
    it was made from the same request)."""
    try:
        deps.payments().create(payment, [created])
    except PaymentIdTaken:
        winner = deps.payments().by_payment_id(payment.account_id, payment.mode, payment.payment_id)
        assert winner is not None
        if winner.entity.provider_payment_id != payment.provider_payment_id:  # else our own write landed
            return replay(winner, fingerprint)
    return snapshot(payment)


def replay(existing: Claimed[Payment], fingerprint: str) -> dict[str, Any]:
    """The payment a merchant's payment_id was claimed for, if claimed by the same request."""
    same_request(
        existing,
        fingerprint,
        "payment_id_reused",
        "This payment_id belongs to another payment (different amount or details).",
    )
    return snapshot(current(existing.entity))


def cancel_payment(payment: Payment) -> Payment:
    """Cancel `payment` while the payer has not paid (409 invalid_state otherwise, also when the
    payer's payment lands first): payment.canceled is recorded."""
    return close(payment, "cancel", Status.CANCELED, "payment.canceled")
