"""How a payout is made, for POST /payouts, for each line of a payout batch and for a cash deposit
(the partner's payout to the payer's wallet): check the limits and the pilot of the PSP bound
for it, hold the money and record payout.created in one transaction (the settlement queue follows
from the event); a payout_id sent again answers its payout (see docs/payouts.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

from mzpay import deps
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import Claimed, Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_id, request_fingerprint
from mzpay.domain.money import ledger
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payouts.limits import PayoutLimits, PayoutWindow, check_payout_limits, needs_approval, window_refusal
from mzpay.domain.payouts.rules import CREATED_EVENT, Payout, PayoutRequest, Status, stored_destination
from mzpay.domain.payouts.rules import payout_view as view
from mzpay.steps.admission import money_out_pilot, pilot_window_refusal, rejected
from mzpay.steps.connectors import payout_connector
from mzpay.steps.payout_outcomes import deposit_events, payout_entry, payout_event
from mzpay.store.ledger import BalanceTooLow
from mzpay.store.payments import CeilingReached, Reservation
from mzpay.store.payouts import PayoutIdTaken

COUNTER_TTL = 3 * 24 * 3600


@dataclass(frozen=True)
class Payer:
    """Whose money a payout is: the account and mode, the key that asked, and for a batch's line
    its batch (approved as a whole, with its share of the batch's debit_daily total)."""

    account_id: str
    mode: str
    key_id: str | None = None
    batch_id: str | None = None
    batch_reserved: tuple[Reserved, ...] = ()
    cash_deposit: dict[str, Any] | None = None  # the cash deposit it carries (mzpay.cases.cash_deposits)
    customer_id: str | None = None  # the merchant's customer it is for (?customer_id=), recorded on it


def make_payout(payer: Payer, request: PayoutRequest, limits: PayoutLimits | None = None) -> dict[str, Any]:
    """Check the limits, hold the money and answer at once (pending, or waiting for approval
    above the account's threshold; a batch's line is pending: its batch was approved whole)."""
    return view(payout_for(payer, request, limits))


def payout_for(payer: Payer, request: PayoutRequest, limits: PayoutLimits | None = None) -> Payout:
    """The payout `request` makes (or made: a payout_id sent again), as make_payout."""
    account, mode = payer.account_id, payer.mode
    fingerprint = request_fingerprint(request.model_dump(mode="json"))
    existing = deps.payouts().by_payout_id(account, mode, request.payout_id)
    if existing is not None:
        return _replay(existing, fingerprint, payer)
    destination = stored_destination(request.destination)
    payout_connector(account, mode, destination)  # no binding / cannot pay out: refused before anything is written
    currency, amount = request.money.currency, request.money.value
    now_moment = datetime.now(UTC)
    rejection_id = new_id()
    limits = limits if limits is not None else deps.payout_limits().read(account, mode)
    nib = (destination.get("bank_transfer") or {}).get("account")
    try:
        windows = check_payout_limits(limits, account, mode, currency, amount, nib, now_moment, rejection_id)
        # live: the pilot of the PSP bound for it (a deposit's intent already counted there)
        pilot = (
            ()
            if payer.cash_deposit
            else money_out_pilot(account, mode, destination, request.metadata, currency, amount, rejection_id)
        )
    except ServiceError as refusal:
        _reject(payer, request, refusal)
    reservations = tuple(Reservation(w.rule, w.key, amount, w.ceiling) for w in windows) + pilot
    waits = payer.batch_id is None and needs_approval(limits, currency, amount)
    now = iso(now_moment)
    reserved = tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations)
    payout = Payout(
        provider_payout_id=new_id(),
        payout_id=request.payout_id,
        account_id=account,
        mode=mode,
        key_id=payer.key_id,
        batch_id=payer.batch_id,
        status=Status.WAITING_FOR_APPROVAL if waits else Status.PENDING,
        version=1,
        submitted=False,
        amount=format_amount(amount, currency),
        currency=currency,
        destination=destination,
        callback_url=request.callback_url,
        metadata=request.metadata,
        description=request.description,
        cash_deposit=payer.cash_deposit,
        customer_id=payer.customer_id,
        reservations=(reserved + payer.batch_reserved) or None,
        fingerprint=fingerprint,
        created_at=now,
        updated_at=now,
    )
    created = payout_event(CREATED_EVENT, payout, now)
    held = payout_entry(payout, ledger.hold(CREATED_EVENT, amount), created, now)
    events = [created, *deposit_events(payout, now, "cash_deposit.created")]
    try:
        deps.payouts().create(payout, events, held, reservations, int(now_moment.timestamp()) + COUNTER_TTL)
    except BalanceTooLow:
        raise ledger.insufficient_balance(currency, amount) from None
    except CeilingReached as reached:
        window = PayoutWindow(reached.reservation.name, reached.reservation.key, reached.reservation.ceiling)
        pilot_full = pilot_window_refusal(reached.reservation, currency, rejection_id)
        _reject(payer, request, pilot_full or window_refusal(window, currency, rejection_id))
    except PayoutIdTaken:
        winner = deps.payouts().by_payout_id(account, mode, request.payout_id)
        assert winner is not None
        if winner.entity.provider_payout_id != payout.provider_payout_id:  # else our own write landed
            return _replay(winner, fingerprint, payer)
    return payout


def _replay(existing: Claimed[Payout], fingerprint: str, payer: Payer) -> Payout:
    """The payout a payout_id was claimed for, if claimed by the same request (for the same batch
    and customer: another customer's payout is never answered to this one)."""
    entity = existing.entity
    if existing.fingerprint != fingerprint or (entity.batch_id, entity.customer_id) != (
        payer.batch_id,
        payer.customer_id,
    ):
        raise ServiceError(
            409, "payout_id_reused", "This payout_id belongs to another payout (different amount or destination)."
        )
    return existing.entity


def _reject(payer: Payer, request: PayoutRequest, refusal: ServiceError) -> NoReturn:
    """Record a limit refusal as transaction.rejected (no payout exists) and raise it."""
    details = {
        "payout_id": request.payout_id,
        "money": request.money.model_dump(),
        "destination": {"type": request.destination.type},
    }
    rejected(payer.account_id, payer.mode, refusal, details)
