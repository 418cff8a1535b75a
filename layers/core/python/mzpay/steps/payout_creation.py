"""Creating a payout (POST /payouts, POST /v1/payouts, and the payout that carries a cash
deposit): validate, check the limits and the pilot, hold the money, record the creation; a
payout_id sent again replays its payout. Shared by mzpay.cases.payouts and
mzpay.cases.cash_deposits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NoReturn

from mzpay import deps
from mzpay.domain import ledger
from mzpay.domain.clock import iso
from mzpay.domain.entity import Claimed, Reserved
from mzpay.domain.errors import ServiceError
from mzpay.domain.ids import new_id, request_fingerprint
from mzpay.domain.money import format_amount
from mzpay.domain.payout_limits import PayoutLimits, PayoutWindow, check_payout_limits, needs_approval, window_refusal
from mzpay.domain.payouts import CREATED_EVENT, Payout, PayoutRequest, Status, check_payout, stored_destination
from mzpay.domain.principal import Principal
from mzpay.steps.admission import money_out_pilot, pilot_window_refusal, rejected
from mzpay.steps.connectors import payout_connector
from mzpay.steps.payout_outcomes import deposit_events, payout_entry, payout_event
from mzpay.store.ledger import BalanceTooLow
from mzpay.store.payments import CeilingReached, Reservation
from mzpay.store.payouts import PayoutIdTaken
from mzpay.store.transitions import same_request

COUNTER_TTL = 3 * 24 * 3600


def payout_for(principal: Principal, request: PayoutRequest, cash_deposit: dict[str, Any] | None = None) -> Payout:
    """The payout `request` creates (or created: a replay of its payout_id); `cash_deposit`:
    the cash deposit it carries (mzpay.cases.cash_deposits)."""
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
        # a deposit's intent already counted in the pilot (mzpay.cases.cash_deposits)
        pilot = (
            ()
            if cash_deposit
            else money_out_pilot(account, mode, destination, request.metadata, currency, amount, rejection_id)
        )
    except ServiceError as refusal:
        _reject(principal, request, refusal)
    reservations = tuple(Reservation(w.rule, w.key, amount, w.ceiling) for w in windows) + pilot
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
        cash_deposit=cash_deposit,
        reservations=tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations) or None,
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
        _reject(principal, request, pilot_full or window_refusal(window, currency, rejection_id))
    except PayoutIdTaken:
        winner = deps.payouts().by_payout_id(account, mode, request.payout_id)
        assert winner is not None
        if winner.entity.provider_payout_id != payout.provider_payout_id:  # else our own write landed
            return _replay(winner, fingerprint)
    return payout


def _replay(existing: Claimed[Payout], fingerprint: str) -> Payout:
    same_request(
        existing,
        fingerprint,
        "payout_id_reused",
        "This payout_id belongs to another payout (different amount or destination).",
    )
    return existing.entity


def _reject(principal: Principal, request: PayoutRequest, refusal: ServiceError) -> NoReturn:
    """Record a limit refusal as transaction.rejected (no payout exists) and raise it."""
    details = {
        "payout_id": request.payout_id,
        "money": request.money.model_dump(),
        "destination": {"type": request.destination.type},
    }
    rejected(principal, refusal, details)
