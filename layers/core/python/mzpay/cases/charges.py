"""Charge use cases: create a charge, read it, capture, void, complete the payer's action.

A charge is claimed (payment + payment_id uniqueness + its event, one transaction) BEFORE the
provider is called, so one payment_id can never reach a provider twice; the provider's answer
is then applied as a conditional transition with its event."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.payments import ChargeResult, MethodList, PaymentSnapshot
from mzpay.answers.receipts import Receipt
from mzpay.domain.access.principal import Principal, customer_of_create
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.entity import Claimed
from mzpay.domain.common.errors import FieldError, ServiceError, refused_field
from mzpay.domain.common.ids import new_id, request_fingerprint
from mzpay.domain.money.amounts import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import expiry
from mzpay.domain.payments.charges import ChargeRequest, Customer, check_charge
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.routing import binding_method
from mzpay.domain.payments.rules import Payment, Status, amount_error, charge_result, ensure_transition, snapshot
from mzpay.observability import count
from mzpay.steps.accounts import payment_receipt
from mzpay.steps.admission import (
    COUNTER_TTL,
    admission_state,
    admit,
    ceiling_refusal,
    network_of,
    reject,
    stored_source,
)
from mzpay.steps.connectors import connector_for, refused_source
from mzpay.steps.payments import (
    apply_outcome,
    connector_of,
    kept,
    new_payment,
    payment_event,
    provider_call,
    resume,
    visible_payment,
    visible_with_schedule,
    waiting,
)
from mzpay.steps.routing import observe, route_charge
from mzpay.store.payments import CeilingReached, PaymentIdTaken
from mzpay.store.transitions import replayed


def create_charge(principal: Principal, request: ChargeRequest) -> ChargeResult:
    """Validate, claim the payment_id, ask the provider, record its answer: a ChargeResult."""
    check_charge(request, principal.mode)
    request = _for_customer(request, customer_of_create(principal, request.customer.id if request.customer else None))
    account, mode = principal.acting_account_id, principal.mode
    fingerprint = request_fingerprint(request.model_dump(mode="json"))
    state = admission_state(principal, request, request.payment_id)  # one read: claim, ceilings, fees, routing
    existing = deps.payments().claimed_payment(state.claim) if state.claim is not None else None
    if existing is not None:
        return _replay(existing, fingerprint)
    now = now_iso()
    rejection_id = new_id()
    psp, reservations = admit(principal, request, rejection_id, state)
    method = binding_method(request.source.type, network_of(request))
    routed = None
    if mode == "test":
        connector = connector_for(account, mode, method, psp.psp_id)
    else:
        connector, routed = route_charge(account, mode, method, psp.psp_id)
    refused_source(connector, request.source.model_dump(mode="json", exclude_none=True))
    currency = request.money.currency
    payment = new_payment(
        principal,
        request.payment_id,
        currency,
        fingerprint,
        now,
        psp_id=psp.psp_id,
        reservations=kept(reservations, currency),
        status=Status.PENDING,
        amount=format_amount(request.money.value, currency),
        source=stored_source(request),
        country=request.country,
        customer=request.customer.model_dump(exclude_none=True) if request.customer else None,
        callback_url=request.callback_url,
        return_url=request.return_url,
        metadata=request.metadata,
        open_amount=request.open_amount,
        min_amount=request.min_amount,
        max_amount=request.max_amount,
        suggested_amounts=request.suggested_amounts,
        routing=routed if routed is not None and routed["reason"] != "only_route" else None,
    )
    payment = payment.with_changes(waiting(payment, datetime.now(UTC)))
    payment = payment.with_changes(_submitting(payment))
    events = [payment_event("payment.created", payment, now)]
    if request.source.type == "card":
        events.append(payment_event("transaction.card.tokenized", payment, now))
    try:
        deps.payments().create(payment, events, reservations, ttl=int(datetime.now(UTC).timestamp()) + COUNTER_TTL)
    except CeilingReached as reached:
        reject(principal, request, ceiling_refusal(psp, reached.reservation, currency, rejection_id))
    except PaymentIdTaken:  # a concurrent request with the same payment_id won
        winner = deps.payments().by_payment_id(account, mode, request.payment_id)
        assert winner is not None
        if winner.entity.provider_payment_id != payment.provider_payment_id:
            return _replay(winner, fingerprint)
        # else it is this very creation, landed on an attempt whose answer was lost: submit it
    if expiry.abandoned(payment, datetime.now(UTC)):  # the write landed after its lease: claim it like a retry
        return _counted(_result(expiry.settled_or_wait(resume(payment))), mode)
    result = connector.charge(provider_call(payment))
    try:
        moved = apply_outcome(payment, result, now_iso(), answer=_result, schedule=state.schedule)
        if routed is not None:
            observe(routed["route"], method, result)
        return _counted(_result(moved), mode)
    except ServiceError as lost:  # a retry or the sweep took the submission over meanwhile
        if lost.code != "invalid_state":
            raise
        settled = expiry.settled_or_wait(deps.payments().get(payment.provider_payment_id) or payment)
        return _counted(_result(settled), mode)


def _result(payment: Payment) -> ChargeResult:
    return ChargeResult.of(charge_result(payment))


def _counted(answer: ChargeResult, mode: str) -> ChargeResult:
    """A new charge's first answer, counted by its status (a replay's answer is not counted again)."""
    count("Charges", outcome=answer.status, mode=mode)
    return answer


def _submitting(payment: Payment) -> dict[str, Any]:
    """The submission lease a charge is written with (expiry.SUBMIT_LEASE): the sweep looks at
    it again when the lease ends, in case its creating request never reached the provider."""
    lease = expiry.submission_lease(payment.mode, datetime.now(UTC))
    return {"submit_lease_until": lease, "due_at": min(lease, payment.due_at or lease)}


def _for_customer(request: ChargeRequest, customer_id: str | None) -> ChargeRequest:
    """The request with its customer's id in `customer.id` (from ?customer_id= when the body has
    none): recorded on the payment, and part of the request's fingerprint, so a payment_id of
    another customer's charge is never replayed to this one."""
    if customer_id is None or (request.customer is not None and request.customer.id == customer_id):
        return request
    customer = request.customer.model_copy(update={"id": customer_id}) if request.customer else Customer(id=customer_id)
    return request.model_copy(update={"customer": customer})


def _replay(claimed: Claimed[Payment], fingerprint: str) -> ChargeResult:
    """The charge a payment_id was claimed for (submitted now if its request left it unsubmitted)."""
    reused = "This payment_id belongs to another charge (different amount, source or details)."
    return _result(replayed(claimed, fingerprint, "payment_id_reused", reused, resume))


def read_payment(principal: Principal, provider_payment_id: str) -> PaymentSnapshot:
    return PaymentSnapshot.of(snapshot(visible_payment(principal, provider_payment_id)))


def read_receipt(principal: Principal, provider_payment_id: str) -> Receipt:
    """GET /v1/payments/{id}/receipt: once money has moved (else 409 not_receiptable)."""
    payment = visible_payment(principal, provider_payment_id)
    return Receipt.of(payment_receipt(payment))


def capture(principal: Principal, provider_payment_id: str, amount: str | None, currency: str | None) -> ChargeResult:
    """Capture held funds, all or part (a partial capture releases the rest). The payment and its
    account's fee schedule are read together (one round trip)."""
    payment, schedule = visible_with_schedule(principal, provider_payment_id)
    ensure_transition(payment.status, "capture")
    authorized = Decimal(payment.authorized_amount)
    value = authorized
    if amount is not None:
        if currency is not None and currency != payment.currency:
            use = f"use {payment.currency}"
            raise refused_field("invalid_currency", "amount.currency", "Capture in the payment's currency.", use)
        try:
            value = parse_amount(amount, payment.currency)
        except InvalidAmount as exc:
            raise amount_error("amount.amount", str(exc)) from exc
        if value <= 0 or value > authorized:
            raise amount_error("amount.amount", f"capture between 0 and the authorized {payment.authorized_amount}")
    result = connector_of(payment).capture(provider_call(payment), value)
    return _result(apply_outcome(payment, result, now_iso(), captured=value, answer=_result, schedule=schedule))


def void(principal: Principal, provider_payment_id: str) -> ChargeResult:
    """Release held funds (only while authorized)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment.status, "void")
    result = connector_of(payment).void(provider_call(payment))
    return _result(apply_outcome(payment, result, now_iso(), answer=_result))


def complete_action(
    principal: Principal, provider_payment_id: str, otp: str | None, amount: str | None
) -> ChargeResult:
    """The payer finished the step next_action asked for (redirect, OTP, prompt, QR)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment.status, "complete_action")
    chosen = None
    if payment.open_amount:
        chosen = _open_amount(payment, amount)
    result = connector_of(payment).complete_action(provider_call(payment), payment.next_action or {}, otp)
    extra = {"amount": format_amount(chosen, payment.currency)} if chosen is not None else None
    return _result(apply_outcome(payment, result, now_iso(), captured=chosen, extra=extra))


def _open_amount(payment: Payment, amount: str | None) -> Decimal:
    if amount is None:
        raise ServiceError(
            400,
            "invalid_request",
            "An open-amount payment completes with the amount the payer chose.",
            errors=[FieldError("amount", "required", "the payer's amount")],
        )
    try:
        value = parse_amount(amount, payment.currency)
    except InvalidAmount as exc:
        raise amount_error("amount", str(exc)) from exc
    low = Decimal(payment.min_amount or "0")
    high = Decimal(payment.max_amount) if payment.max_amount else None
    if value <= 0 or value < low or (high is not None and value > high):
        raise amount_error("amount", "the amount lies outside min_amount and max_amount")
    return value


def methods() -> MethodList:
    """What GET /methods lists: methods, networks, currencies, limits."""
    return MethodList.of({"methods": [method.public() for method in METHODS.values()]})
