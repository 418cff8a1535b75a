"""Hosted checkout: a payment the payer completes on the page at checkout_url (POST /v1/payments),
its cancellation, and the page's own actions (pay with a wallet, the test toolbar)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.domain.charges import ChargeRequest, MobileWallet, Source, check_charge
from mzpay.domain.clock import now_iso
from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.ids import is_ulid, new_id
from mzpay.domain.payments import Payment, Status, ensure_transition, snapshot
from mzpay.domain.principal import Principal
from mzpay.steps.admission import COUNTER_TTL, admit, ceiling_refusal, reject, stored_source
from mzpay.steps.checkouts import cancel_payment, create_checkout
from mzpay.steps.connectors import connector_for
from mzpay.steps.payments import (
    apply_outcome,
    current,
    kept,
    provider_call,
    visible_payment,
    waiting,
)
from mzpay.store.payments import CeilingReached


def cancel(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """POST /v1/payments/{id}/cancel: while the payer has not paid (a checkout, or a payment
    waiting for the payer's action)."""
    return snapshot(cancel_payment(visible_payment(principal, provider_payment_id)))


def checkout_payment(provider_payment_id: str) -> Payment:
    """The checkout behind a hosted page (no key: the page is the payer's); 404 unless one."""
    payment = deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None
    if payment is None or not payment.checkout:
        raise ServiceError(404, "not_found", "No such checkout.")
    return current(payment)


# The test toolbar's payers: the documented simulator numbers that give each outcome, per wallet.
TEST_PAYERS = {"succeed": "0000", "fail": "0001"}
TEST_PREFIXES = {"mpesa": "+25884000", "emola": "+25886000", "mkesh": "+25882000"}


def test_action(provider_payment_id: str, outcome: str) -> Payment:
    """The hosted page's test toolbar: pay a TEST checkout as a payer whose outcome is `outcome`
    (succeed, fail). On a live payment: 403 live_payment."""
    payment = checkout_payment(provider_payment_id)
    if payment.mode != "test":
        raise ServiceError(403, "live_payment", "Test actions are refused on live payments.")
    if outcome not in TEST_PAYERS:
        raise ServiceError(404, "not_found", f"No such test action: {outcome} (one of {', '.join(TEST_PAYERS)}).")
    network = (payment.networks or ["mpesa"])[0]  # the first wallet the page offers
    return pay_checkout(provider_payment_id, network, TEST_PREFIXES[network] + TEST_PAYERS[outcome])


def pay_checkout(provider_payment_id: str, network: str, phone_number: str) -> Payment:
    """The payer chose a mobile wallet on the hosted page: the charge goes through the same
    validation, ceilings, risk stage, routing, pilot rules and connector as POST /charges."""
    payment = checkout_payment(provider_payment_id)
    ensure_transition(payment.status, "pay")
    if payment.networks is not None and network not in payment.networks:
        offered = ", ".join(payment.networks)
        raise ServiceError(
            400,
            "not_supported",
            f"This checkout takes {offered} only.",
            errors=[FieldError("network", "not_supported", f"one of {offered}")],
        )
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


__all__ = ["cancel", "checkout_payment", "create_checkout", "pay_checkout", "test_action"]
