"""Steps every payment use case shares: the payment as its connector sees it, the provider's
answer applied as one conditional transition (with its event and ledger movement), finishing a
charge its creating request left unsubmitted (`resume`), and the tenancy and deadline checks of
reading one (`visible_payment`, `current`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.config import settings
from mzpay.connectors.base import NOT_RECEIVED, Connector, ProviderCall, ProviderResult, Reconciling
from mzpay.domain.access.principal import Principal, ensure_customer_visible, own
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.money import ledger
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments import expiry, pricing
from mzpay.domain.payments.manual import is_manual
from mzpay.domain.payments.manual import next_status as manual_status
from mzpay.domain.payments.routing import binding_method
from mzpay.domain.payments.rules import (
    EVENT_OF_STATUS,
    Payment,
    Status,
    ensure_transition,
    snapshot,
)
from mzpay.domain.webhooks.events import Event, entity_event
from mzpay.observability import count
from mzpay.steps.connectors import connector_for
from mzpay.store.payments import Reservation


def connector_of(payment: Payment) -> Connector:
    """The connector the payment was made through (the simulator for test payments)."""
    source, psp_id = payment.source, payment.psp_id
    if source is None or psp_id is None:  # a checkout nobody has paid yet was sent to no provider
        raise RuntimeError(f"payment {payment.provider_payment_id} has no provider yet")
    method = binding_method(source["type"], (source.get("mobile_wallet") or {}).get("network"))
    if payment.routing is not None and payment.mode != "test":  # routed by health: keep to its route
        from mzpay.steps.routing import connector_on

        return connector_on(payment.account_id, payment.mode, method, payment.routing["route"])
    return connector_for(payment.account_id, payment.mode, method, psp_id)


def provider_call(payment: Payment) -> ProviderCall:
    """The payment as its connector sees it."""
    return ProviderCall(
        payment.provider_payment_id,
        payment.value,
        payment.currency,
        payment.source or {},
        payment.return_url,
        bool(payment.open_amount),
        payment.provider_reference,
    )


def new_payment(
    principal: Principal,
    payment_id: str,
    currency: str,
    fingerprint: str,
    now: str,
    provider_payment_id: str | None = None,
    **fields: Any,
) -> Payment:
    """A payment `principal` opens at `now`: its ids (a new provider_payment_id unless given), the
    acting account, mode and key, version 1 with nothing authorized or captured yet, and the
    `fields` of its kind."""
    return Payment(
        provider_payment_id=provider_payment_id or new_id(),
        payment_id=payment_id,
        account_id=principal.acting_account_id,
        mode=principal.mode,
        key_id=principal.key_id,
        version=1,
        currency=currency,
        authorized_amount=format_amount(Decimal(0), currency),
        captured_amount=format_amount(Decimal(0), currency),
        fingerprint=fingerprint,
        created_at=now,
        updated_at=now,
        **fields,
    )


def payment_event(kind: str, payment: Payment, now: str) -> Event:
    """The payment's event; a charge of a customer's payment method (a collection transaction's:
    its metadata names the method) is routed by it (mzpay.steps.bill_settlements), off the wire."""
    event = entity_event(
        kind, payment, "payment", payment.provider_payment_id, snapshot(payment), now, payment.callback_url
    )
    method = (payment.metadata or {}).get("payment_method_id")
    return replace(event, routing={"payment_method_id": method}) if isinstance(method, str) else event


def outcome_changes(
    payment: Payment, result: ProviderResult, now: str, captured: Decimal | None = None
) -> dict[str, Any]:
    currency = payment.currency
    amount = payment.value if captured is None else captured
    changes: dict[str, Any] = {
        "status": result.status,
        "next_action": result.next_action,
        "failure_code": result.failure_code,
        "failure_message": result.failure_message,
        "updated_at": now,
    }
    if result.extra.get("provider_reference"):
        changes["provider_reference"] = str(result.extra["provider_reference"])
    if result.status == Status.AUTHORIZED:
        changes["authorized_amount"] = format_amount(amount, currency)
    if result.captured:
        changes["captured_amount"] = format_amount(amount, currency)
        changes["captured_at"] = now
        if Decimal(payment.authorized_amount) == 0:
            changes["authorized_amount"] = format_amount(amount, currency)
    return changes


def apply_outcome(
    payment: Payment,
    result: ProviderResult,
    now: str,
    captured: Decimal | None = None,
    extra: dict[str, Any] | None = None,
    answer: Callable[[Payment], Any] | None = None,
    schedule: pricing.Schedule | None = None,
) -> Payment:
    """The provider's `result` applied as one conditional transition, with its event and, when
    money moved, its ledger movements (the service's fee under the account's `schedule`, read
    now unless the request read it already); `answer` is what the request answers with the
    payment after it (its idempotency record is completed with it in the same transaction)."""
    changes = {**outcome_changes(payment, result, now, captured), **(extra or {}), "submit_lease_until": None}
    movements: tuple[ledger.Movement, ...] = ()
    if result.captured:  # money moved: available grows by what was captured, less the fees
        movements = capture_movements(payment, Decimal(changes["captured_amount"]), result.fee, schedule)
        changes |= fees_kept(movements, payment.currency)
    changes |= waiting(payment.with_changes(changes), datetime.now(UTC))
    after = payment.with_changes(changes)
    events = [] if result.status == Status.PENDING else [payment_event(EVENT_OF_STATUS[result.status], after, now)]
    entry = None
    if movements:
        entry = ledger.Entry(
            payment.account_id,
            payment.mode,
            payment.currency,
            movements[0],
            events[0].id,
            payment.provider_payment_id,
            now,
            more=movements[1:],
        )
    taken = _taken(result, captured)
    moved = deps.payments().transition(payment, changes, events, taken=taken, entry=entry, answer=answer)
    if moved.status != payment.status:
        count("PaymentOutcomes", outcome=moved.status, mode=moved.mode)
    return moved


def capture_movements(
    payment: Payment, amount: Decimal, provider_fee: Decimal | None, schedule: pricing.Schedule | None = None
) -> tuple[ledger.Movement, ...]:
    """A capture of `amount` in the ledger: the capture (less what the provider reported keeping)
    and, when the account's fee schedule in force now (`schedule`, else read) charges one, the
    service's fee."""
    captured = ledger.captured(amount, provider_fee)
    source = payment.source or {}
    method = binding_method(str(source.get("type")), (source.get("mobile_wallet") or {}).get("network"))
    schedule = schedule or deps.fee_schedules().read(payment.account_id)
    rule = schedule.rule_for(method, payment.currency)
    fee = pricing.service_fee(rule, amount, payment.currency, captured.fees)
    return (captured, ledger.service_fee(fee)) if fee else (captured,)


def fees_kept(movements: tuple[ledger.Movement, ...], currency: str) -> dict[str, str]:
    """The capture's fees as the payment keeps them, so a later schedule never changes them."""
    service = sum((m.service_fees for m in movements), Decimal(0))
    return {
        "provider_fee": format_amount(movements[0].fees, currency),
        "service_fee": format_amount(service, currency),
    }


def kept(reservations: tuple[Reservation, ...], currency: str) -> tuple[Reserved, ...] | None:
    """The reservations as the payment keeps them, to give back what it does not take."""
    return tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations) or None


def reconcile_first() -> timedelta:
    """This stack's first reconciliation delay (RECONCILE_FIRST_SECONDS, else expiry.RECONCILE_FIRST)."""
    first = settings().reconcile_first_seconds
    return timedelta(seconds=first) if first else expiry.RECONCILE_FIRST


def waiting(payment: Payment, now: datetime) -> dict[str, Any]:
    """expiry.waiting with this stack's first reconciliation delay."""
    return expiry.waiting(payment, now, reconcile_first())


def _taken(result: ProviderResult, captured: Decimal | None) -> Decimal | None:
    """How much of its reservations (daily ceiling, pilot windows) a payment ends up taking, when
    this outcome settles it: nothing when it failed or was voided, the captured amount after a
    partial capture or an open amount's completion; None while it is not settled."""
    if result.status in (Status.FAILED, Status.CANCELED, Status.EXPIRED):
        return Decimal(0)
    if result.status == Status.SUCCEEDED and captured is not None:
        return captured
    return None


def resume(payment: Payment, submit: bool = True) -> Payment:
    """Finish a charge whose creating request wrote it but never recorded a provider answer (a
    fault after the write, or a request that died), once its submission lease has ended.

    One conditional write claims the submission (a concurrent retry or sweep loses it and sees
    the payment as it is). A connector that can be asked (live M-Pesa) is asked first, so a call
    that did reach the provider is never repeated; only an answer that it never received the
    charge lets `submit` send it now. The simulator is deterministic: it is simply called."""
    now = datetime.now(UTC)
    if not expiry.abandoned(payment, now):
        return payment
    claim = {"submit_lease_until": expiry.submission_lease(payment.mode, now), "updated_at": now_iso()}
    try:
        claimed = deps.payments().transition(payment, claim, [])
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        return deps.payments().get(payment.provider_payment_id) or payment
    connector = connector_of(claimed)
    call = provider_call(claimed)
    if isinstance(connector, Reconciling):
        result = connector.status(call)
        if result.status == Status.PENDING:
            return claimed  # unknown yet: asked again when this lease ends
        if submit and result.status == Status.FAILED and result.failure_code == NOT_RECEIVED:
            result = connector.charge(call)
    elif submit:
        result = connector.charge(call)
    else:
        result = ProviderResult(Status.FAILED, None, NOT_RECEIVED, "The charge never reached the provider.")
    return apply_outcome(claimed, result, now_iso())


def visible_payment(principal: Principal, provider_payment_id: str) -> Payment:
    """The payment if it belongs to the caller's account (else 404), mode (else 401) and, for a
    key restricted to customers, one of them (else 404); one
    past its deadline is expired first, so nobody acts on a payment that has run out of time."""
    return _visible(principal, deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None)


def visible_with_schedule(principal: Principal, provider_payment_id: str) -> tuple[Payment, pricing.Schedule]:
    """`visible_payment` and its account's fee schedule in force now, read in one round trip."""
    if not is_ulid(provider_payment_id):
        return _visible(principal, None), pricing.DEFAULT_SCHEDULE
    found, schedule = deps.payments().with_schedule(
        provider_payment_id, principal.acting_account_id, deps.fee_schedules()
    )
    return _visible(principal, found), schedule


def _visible(principal: Principal, payment: Payment | None) -> Payment:
    payment = own(principal, payment, "payment")
    ensure_customer_visible(principal, payment.customer_id, ServiceError(404, "not_found", "No such payment."))
    return current(payment)


def current(payment: Payment) -> Payment:
    """The payment as it is now: expired if its deadline passed, or (test mode) approved by the
    simulated payer once they had time to answer; whoever changes it first wins."""
    now = datetime.now(UTC)
    if expiry.payer_due(payment, now):
        change = _payer_answers
    elif expiry.is_due(payment, now):
        change = _expire
    else:
        return payment
    try:
        return change(payment)
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        fresh = deps.payments().get(payment.provider_payment_id)
        assert fresh is not None
        return fresh


def _payer_answers(payment: Payment) -> Payment:
    """Test mode: the payer answers the prompt on their phone, as complete-action would play it."""
    result = connector_of(payment).complete_action(provider_call(payment), payment.next_action or {}, None)
    return apply_outcome(payment, result, now_iso())


def _expire(payment: Payment) -> Payment:
    """Expire a payment past its deadline; a live one waiting on a provider's page (an
    aggregator's checkout) is asked first, so a payer who paid at the last moment is not lost."""
    if payment.mode == "live" and payment.status == Status.REQUIRES_ACTION and payment.source is not None:
        try:
            connector: Connector | None = connector_of(payment)
        except ServiceError:  # unbound since: nobody can be asked
            connector = None
        if isinstance(connector, Reconciling):
            result = connector.status(provider_call(payment))
            if result.status == Status.SUCCEEDED:
                return apply_outcome(payment, result, now_iso())
    return close(payment, "expire", Status.EXPIRED, "payment.expired")


def close(payment: Payment, action: str, status: str, kind: str) -> Payment:
    """End a payment nobody paid (`action` expire or cancel): its status, no next action, off the
    expiry schedule and its reservations given back, with its event; 409 invalid_state when the
    payment cannot take `action` any more (the payer's payment landed first, say). A manual
    payment follows its own table (cancel while pending)."""
    if is_manual(payment):
        manual_status(payment, action)
    else:
        ensure_transition(payment.status, action)
    now = now_iso()
    changes: dict[str, Any] = {
        "status": status,
        "next_action": None,
        "updated_at": now,
        "expiry_shard": None,
        "due_at": None,
    }
    after = payment.with_changes(changes)
    closed = deps.payments().transition(payment, changes, [payment_event(kind, after, now)], taken=Decimal(0))
    count("PaymentOutcomes", outcome=status, mode=payment.mode)
    return closed
