"""Payouts: create (answered at once, pending or waiting for approval), settle (driven by the
PayoutSettlementQueue that the event dispatcher feeds from payout.created / payout.approved),
approve, reject, cancel. Every step is a conditional transition with its event; the money is
held in the ledger when the payout is created and leaves (paid) or comes back (failed,
canceled, rejected) when it ends. See docs/payouts.md."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NoReturn

from mzpay import deps
from mzpay.connectors.base import PayoutCall
from mzpay.domain import ledger
from mzpay.domain.clock import iso
from mzpay.domain.entity import Claimed, Reserved
from mzpay.domain.errors import ServiceError
from mzpay.domain.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.money import format_amount
from mzpay.domain.payout_limits import PayoutLimits, PayoutWindow, check_payout_limits, needs_approval, window_refusal
from mzpay.domain.payouts import (
    CREATED_EVENT,
    Payout,
    PayoutRequest,
    Status,
    check_payout,
    ensure_transition,
    event_kind,
    stored_destination,
)
from mzpay.domain.payouts import payout_view as view
from mzpay.domain.principal import Principal, wrong_environment
from mzpay.steps.accounts import home_account
from mzpay.steps.admission import rejected
from mzpay.steps.connectors import payout_connector
from mzpay.steps.payout_outcomes import apply_result, end_without_paying, now_iso, payout_entry, payout_event
from mzpay.store.ledger import BalanceTooLow
from mzpay.store.payments import CeilingReached, Reservation
from mzpay.store.payouts import PayoutIdTaken
from mzpay.store.transitions import same_request

COUNTER_TTL = 3 * 24 * 3600


# ---------------------------------------------------------------- create
def create_payout(principal: Principal, request: PayoutRequest) -> dict[str, Any]:
    """Validate, check the limits, hold the money and answer at once (pending, or waiting for
    approval above the account's threshold); settlement follows through the queue."""
    check_payout(request)
    account, mode = principal.acting_account_id, principal.mode
    fingerprint = request_fingerprint(request.model_dump(mode="json"))
    existing = deps.payouts().by_payout_id(account, mode, request.payout_id)
    if existing is not None:
        return _replay(existing, fingerprint)
    destination = stored_destination(request.destination)
    payout_connector(account, mode, destination)  # no binding / cannot pay out: refused before anything is written
    currency, amount = request.money.currency, request.money.value
    now_moment = datetime.now(UTC)
    rejection_id = new_id()
    limits: PayoutLimits = deps.payout_limits().read(account, mode)
    nib = (destination.get("bank_transfer") or {}).get("account")
    try:
        windows = check_payout_limits(limits, account, mode, currency, amount, nib, now_moment, rejection_id)
    except ServiceError as refusal:
        _reject(principal, request, refusal)
    reservations = tuple(Reservation(w.rule, w.key, amount, w.ceiling) for w in windows)
    now = iso(now_moment)
    payout = Payout(
        provider_payout_id=new_id(),
        payout_id=request.payout_id,
        account_id=account,
        mode=mode,
        key_id=principal.key_id,
        status=Status.WAITING_FOR_APPROVAL if needs_approval(limits, currency, amount) else Status.PENDING,
        version=1,
        submitted=False,
        amount=format_amount(amount, currency),
        currency=currency,
        destination=destination,
        callback_url=request.callback_url,
        metadata=request.metadata,
        description=request.description,
        reservations=tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations) or None,
        fingerprint=fingerprint,
        created_at=now,
        updated_at=now,
    )
    created = payout_event(CREATED_EVENT, payout, now)
    held = payout_entry(payout, ledger.hold(CREATED_EVENT, amount), created, now)
    try:
        deps.payouts().create(payout, [created], held, reservations, int(now_moment.timestamp()) + COUNTER_TTL)
    except BalanceTooLow:
        raise ledger.insufficient_balance(currency, amount) from None
    except CeilingReached as reached:
        window = PayoutWindow(reached.reservation.name, reached.reservation.key, reached.reservation.ceiling)
        _reject(principal, request, window_refusal(window, currency, rejection_id))
    except PayoutIdTaken:
        winner = deps.payouts().by_payout_id(account, mode, request.payout_id)
        assert winner is not None
        if winner.entity.provider_payout_id != payout.provider_payout_id:  # else our own write landed
            return _replay(winner, fingerprint)
    return view(payout)


def _replay(existing: Claimed[Payout], fingerprint: str) -> dict[str, Any]:
    same_request(
        existing,
        fingerprint,
        "payout_id_reused",
        "This payout_id belongs to another payout (different amount or destination).",
    )
    return view(existing.entity)


def _reject(principal: Principal, request: PayoutRequest, refusal: ServiceError) -> NoReturn:
    """Record a limit refusal as transaction.rejected (no payout exists) and raise it."""
    details = {
        "payout_id": request.payout_id,
        "money": request.money.model_dump(),
        "destination": {"type": request.destination.type},
    }
    rejected(principal, refusal, details)


# ---------------------------------------------------------------- read
def visible_payout(principal: Principal, provider_payout_id: str) -> Payout:
    payout = deps.payouts().get(provider_payout_id) if is_ulid(provider_payout_id) else None
    if payout is None or payout.account_id != principal.acting_account_id:
        raise ServiceError(404, "not_found", "No such payout.")
    if payout.mode != principal.mode:
        raise wrong_environment(principal.mode, payout.mode)
    return payout


def read_payout(principal: Principal, provider_payout_id: str) -> dict[str, Any]:
    return view(visible_payout(principal, provider_payout_id))


# ---------------------------------------------------------------- lifecycle
def cancel(principal: Principal, provider_payout_id: str) -> dict[str, Any]:
    """The merchant cancels while pending, or in transit before the provider was called."""
    payout = visible_payout(principal, provider_payout_id)
    ensure_transition(payout.status, "cancel", payout.submitted)
    return view(end_without_paying(payout, "cancel", Status.CANCELED))


def _operator_payout(provider_payout_id: str) -> Payout:
    payout = deps.payouts().get(provider_payout_id) if is_ulid(provider_payout_id) else None
    if payout is None:
        raise ServiceError(404, "not_found", "No such payout.")
    home_account(payout.account_id)  # served by the account's home region only
    return payout


def approve(provider_payout_id: str) -> dict[str, Any]:
    """Operators: a payout waiting for approval goes on to settlement."""
    payout = _operator_payout(provider_payout_id)
    ensure_transition(payout.status, "approve")
    now = now_iso()
    changes = {"status": Status.PENDING, "updated_at": now}
    event = payout_event(event_kind("approve", Status.PENDING), payout.with_changes(changes), now)
    return view(deps.payouts().transition(payout, changes, [event]))


def reject(provider_payout_id: str, reason: str) -> dict[str, Any]:
    """Operators: a payout waiting for approval is refused; its money comes back."""
    payout = _operator_payout(provider_payout_id)
    ensure_transition(payout.status, "reject")
    return view(
        end_without_paying(payout, "reject", Status.REJECTED, {"failure_code": "rejected", "failure_message": reason})
    )


def settle(provider_payout_id: str) -> str:
    """One settlement message: pending -> in_transit -> (provider claimed) -> paid | failed.
    Each step is conditional, so duplicate messages and cancels racing it are harmless, and the
    provider is called at most once (never again once `submitted`). Returns what happened."""
    payout = deps.payouts().get(provider_payout_id)
    if payout is None or payout.status != Status.PENDING:
        return "nothing to do"
    # Before anything moves: a connector that cannot be built fails this message (retried), not
    # a payout left in transit that no provider was ever asked to pay.
    connector = payout_connector(payout.account_id, payout.mode, payout.destination)
    try:
        now = now_iso()
        changes: dict[str, Any] = {"status": Status.IN_TRANSIT, "updated_at": now}
        payout = deps.payouts().transition(
            payout, changes, [payout_event("payout.in_transit", payout.with_changes(changes), now)]
        )
        now = now_iso()
        changes = {"submitted": True, "updated_at": now}
        payout = deps.payouts().transition(
            payout, changes, [payout_event("payout.submitted", payout.with_changes(changes), now)]
        )
    except ServiceError as lost:
        if lost.code == "invalid_state":
            return "moved meanwhile"
        raise
    call = PayoutCall(payout.provider_payout_id, payout.value, payout.currency, payout.destination)
    return apply_result(payout, connector.payout(call))


def set_payout_limits(account_id: str, mode: str, limits: PayoutLimits) -> dict[str, Any]:
    """Operators: an account's payout limits in a mode (replacing the previous ones)."""
    account = home_account(account_id)
    deps.payout_limits().write(account.account_id, mode, limits)
    return {"account_id": account.account_id, "mode": mode, **limits.public()}
