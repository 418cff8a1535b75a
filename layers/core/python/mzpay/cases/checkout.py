"""Hosted checkout: a payment the payer completes on the page at checkout_url (POST /v1/payments),
its cancellation, and the page's own actions (pay with a wallet, the test toolbar)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.domain import expiry
from mzpay.domain.charges import ChargeRequest, CheckoutRequest, MobileWallet, Source, check_charge
from mzpay.domain.clock import now_iso
from mzpay.domain.entity import Claimed
from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.methods import METHODS
from mzpay.domain.money import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import Payment, Status, amount_error, ensure_transition, snapshot
from mzpay.domain.principal import Principal
from mzpay.steps.admission import COUNTER_TTL, admit, ceiling_refusal, reject, stored_source
from mzpay.steps.connectors import connector_for
from mzpay.steps.payments import (
    apply_outcome,
    current,
    kept,
    payment_event,
    provider_call,
    visible_payment,
    waiting,
)
from mzpay.store.payments import CeilingReached, PaymentIdTaken
from mzpay.store.transitions import same_request


def create_checkout(principal: Principal, request: CheckoutRequest, base_url: str) -> dict[str, Any]:
    """POST /v1/payments: a payment the payer completes on the hosted checkout page."""
    currency = request.currency
    if request.value <= 0:
        raise amount_error("amount", "the amount of a checkout is more than zero")
    if not any(currency in method.limits for method in METHODS.values()):
        raise ServiceError(
            400,
            "unsupported_currency",
            f"currency: no method takes {currency}.",
            errors=[FieldError("currency", "unsupported_currency", f"no method takes {currency}")],
        )
    try:
        amount = format_amount(parse_amount(request.amount, currency), currency)
    except InvalidAmount as exc:
        raise amount_error("amount", str(exc)) from exc
    now = datetime.now(UTC)
    deadline = expiry.checkout_deadline(principal.mode, request.expires_in, now)
    account, mode = principal.acting_account_id, principal.mode
    payment_id = request.payment_id or new_id()
    fingerprint = request_fingerprint(request.model_dump(mode="json"), "checkout")
    existing = deps.payments().by_payment_id(account, mode, payment_id) if request.payment_id else None
    if existing is not None:
        return _checkout_replay(existing, fingerprint)
    provider_payment_id = new_id()
    stamp = now_iso()
    payment = Payment(
        provider_payment_id=provider_payment_id,
        payment_id=payment_id,
        account_id=account,
        mode=mode,
        key_id=principal.key_id,
        status=Status.REQUIRES_PAYMENT_METHOD,
        version=1,
        checkout=True,
        checkout_url=f"{base_url.rstrip('/')}/checkout/{provider_payment_id}",
        amount=amount,
        currency=currency,
        country="MZ",
        callback_url=request.callback_url,
        return_url=request.return_url,
        metadata=request.metadata,
        authorized_amount=format_amount(Decimal(0), currency),
        captured_amount=format_amount(Decimal(0), currency),
        fingerprint=fingerprint,
        expires_at=expiry.iso(deadline),
        created_at=stamp,
        updated_at=stamp,
    )
    payment = payment.with_changes(waiting(payment, now))
    try:
        deps.payments().create(payment, [payment_event("payment.created", payment, stamp)])
    except PaymentIdTaken:
        winner = deps.payments().by_payment_id(account, mode, payment_id)
        assert winner is not None
        if winner.entity.provider_payment_id != payment.provider_payment_id:  # else our own write landed
            return _checkout_replay(winner, fingerprint)
    return snapshot(payment)


def _checkout_replay(existing: Claimed[Payment], fingerprint: str) -> dict[str, Any]:
    same_request(
        existing,
        fingerprint,
        "payment_id_reused",
        "This payment_id belongs to another payment (different amount or details).",
    )
    return snapshot(current(existing.entity))


def cancel(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """POST /v1/payments/{id}/cancel: while the payer has not paid (a checkout, or a payment
    waiting for the payer's action)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment.status, "cancel")
    now = now_iso()
    changes: dict[str, Any] = {
        "status": Status.CANCELED,
        "next_action": None,
        "updated_at": now,
        "expiry_shard": None,
        "due_at": None,
    }
    after = payment.with_changes(changes)
    return snapshot(
        deps.payments().transition(payment, changes, [payment_event("payment.canceled", after, now)], taken=Decimal(0))
    )


def checkout_payment(provider_payment_id: str) -> Payment:
    """The checkout behind a hosted page (no key: the page is the payer's); 404 unless one."""
    payment = deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None
    if payment is None or not payment.checkout:
        raise ServiceError(404, "not_found", "No such checkout.")
    return current(payment)


# The test toolbar's payers: the documented simulator numbers that give each outcome.
TEST_PAYERS = {"succeed": "+258840000000", "fail": "+258840000001"}


def test_action(provider_payment_id: str, outcome: str) -> Payment:
    """The hosted page's test toolbar: pay a TEST checkout as a payer whose outcome is `outcome`
    (succeed, fail). On a live payment: 403 live_payment."""
    payment = checkout_payment(provider_payment_id)
    if payment.mode != "test":
        raise ServiceError(403, "live_payment", "Test actions are refused on live payments.")
    if outcome not in TEST_PAYERS:
        raise ServiceError(404, "not_found", f"No such test action: {outcome} (one of {', '.join(TEST_PAYERS)}).")
    return pay_checkout(provider_payment_id, "mpesa", TEST_PAYERS[outcome])


def pay_checkout(provider_payment_id: str, network: str, phone_number: str) -> Payment:
    """The payer chose a mobile wallet on the hosted page: the charge goes through the same
    validation, ceilings, risk stage, routing, pilot rules and connector as POST /charges."""
    payment = checkout_payment(provider_payment_id)
    ensure_transition(payment.status, "pay")
    request = ChargeRequest(
        payment_id=payment.payment_id,
        money={"amount": payment.amount, "currency": payment.currency},  # type: ignore[arg-type]
        source=Source(type="mobile_wallet", mobile_wallet=MobileWallet(network=network, phone_number=phone_number)),
        country=payment.country,
        callback_url=payment.callback_url,
        return_url=payment.return_url,
        metadata=payment.metadata,
    )
    check_charge(request, payment.mode)
    payer = Principal(
        account_id=payment.account_id,
        mode=payment.mode,
        scopes=frozenset(),
        key_id=payment.key_id or "",
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=payment.account_id,
    )
    rejection_id = new_id()
    psp, reservations = admit(payer, request, rejection_id)
    connector = connector_for(payment.account_id, payment.mode, network, psp.psp_id)
    now = now_iso()
    changes: dict[str, Any] = {
        "status": Status.PENDING,
        "source": stored_source(request),
        "psp_id": psp.psp_id,
        "reservations": kept(reservations, payment.currency),
        "updated_at": now,
        "expires_at": None,
    }
    changes |= waiting(payment.with_changes(changes), datetime.now(UTC))
    ttl = int(datetime.now(UTC).timestamp()) + COUNTER_TTL
    try:
        started = deps.payments().transition(payment, changes, [], reservations=reservations, ttl=ttl)
    except CeilingReached as reached:
        reject(payer, request, ceiling_refusal(psp, reached.reservation, payment.currency, rejection_id))
    result = connector.charge(provider_call(started))
    return apply_outcome(started, result, now_iso())
