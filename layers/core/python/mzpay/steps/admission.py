"""Admission of a charge (POST /charges and the hosted page alike): the account's ceilings, the risk
stage, routing and the chosen PSP's pilot rules, with the totals the payment reserves; a refusal
is recorded as transaction.rejected before it is raised."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, NoReturn

from mzpay import deps
from mzpay.domain.access.principal import Principal
from mzpay.domain.accounts.limits import business_day, check_ceilings, daily_ceiling_reached
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments import risk
from mzpay.domain.payments.charges import TEST_CARDS, ChargeRequest
from mzpay.domain.payments.routing import PSPS, Psp, choose, eligible
from mzpay.domain.psp.pilot import (
    PilotWindow,
    check_pilot,
    pilot_refusal,
    pilot_state,
    window_reached,
)
from mzpay.domain.webhooks.events import new_event
from mzpay.steps.connectors import payout_method
from mzpay.store.payments import Admission, Reservation

COUNTER_TTL = 40 * 24 * 3600  # a month's window (a pilot's month) and then some


def stored_source(request: ChargeRequest) -> dict[str, Any]:
    """The source as kept and shown: a test card number becomes its token and last four
    digits; no card number is ever stored or logged."""
    source = request.source.model_dump(exclude_none=True)
    card = source.get("card")
    if card and "number" in card:
        number = card.pop("number").replace(" ", "")
        source["card"] = {"token": TEST_CARDS[number], "last4": number[-4:]}
    return source


def admission_state(principal: Principal, request: ChargeRequest, payment_id: str | None) -> Admission:
    """One read of what admitting `request` needs: the claim of `payment_id` (None: not asked),
    the account's ceilings and the state of the PSPs routing may choose among."""
    try:
        candidates = eligible(
            request.source.type,
            network_of(request),
            request.money.currency,
            request.country,
            request.money.value,
            principal.mode,
            "",
        )
    except ServiceError:  # no PSP can carry it: `admit` refuses it in its turn
        candidates = []
    psp_ids = [p.psp_id for p in candidates]
    return deps.payments().admission(deps.limits(), principal.acting_account_id, principal.mode, payment_id, psp_ids)


def admit(
    principal: Principal, request: ChargeRequest, rejection_id: str, state: Admission | None = None
) -> tuple[Psp, tuple[Reservation, ...]]:
    """The account's ceilings, the risk stage, routing, then the chosen PSP's pilot rules; the
    totals to raise with the payment. A refusal is recorded as transaction.rejected. `state`:
    what `admission_state` read for it (read now when not given)."""
    source, network = request.source, network_of(request)
    currency, amount = request.money.currency, request.money.value
    now = datetime.now(UTC)
    reservations: list[Reservation] = []
    state = state or admission_state(principal, request, None)
    try:
        ceilings = state.limits
        check_ceilings(ceilings, currency, amount, rejection_id)
        ceiling = ceilings.daily.get(currency)
        if ceiling is not None and not request.open_amount:
            if amount > ceiling:
                raise daily_ceiling_reached(currency, ceiling, rejection_id)
            key = f"DAILY#{principal.acting_account_id}#{principal.mode}#{currency}#{business_day(now)}"
            reservations.append(Reservation("daily", key, amount, ceiling))
        _risk_stage(principal, request, rejection_id)
        candidates = eligible(source.type, network, currency, request.country, amount, principal.mode, rejection_id)
        statuses, pilots = state.statuses, state.pilots
        psp = choose(candidates, {p for p, status in statuses.items() if not status["available"]}, rejection_id)
        if principal.mode == "live":
            reservations += _pilot_windows(psp, pilots.get(psp.psp_id), request, now, rejection_id)
    except ServiceError as refusal:
        reject(principal, request, refusal)
    return psp, tuple(reservations)


def _pilot_windows(
    psp: Psp, stored: dict[str, Any] | None, request: ChargeRequest, now: datetime, rejection_id: str
) -> list[Reservation]:
    """The pilot rules of the chosen PSP (live transactions only); an open amount counts at its
    max_amount, and without one it cannot be bounded, so a pilot PSP refuses it."""
    state = pilot_state(psp, stored)
    if not state.in_pilot:
        return []
    amount = request.money.value
    if request.open_amount:
        if request.max_amount is None:
            raise pilot_refusal(
                "per_transaction", f"{psp.psp_id} is in pilot: an open amount needs max_amount.", rejection_id
            )
        amount = Decimal(request.max_amount)
    windows = check_pilot(state, request.metadata, request.money.currency, amount, now, rejection_id)
    return [Reservation(f"pilot_{w.rule}", w.key, amount, w.ceiling) for w in windows]


def money_out_pilot(
    account_id: str,
    mode: str,
    destination: dict[str, Any],
    metadata: dict[str, str] | None,
    currency: str,
    amount: Decimal,
    rejection_id: str,
) -> tuple[Reservation, ...]:
    """Live money out (a payout, a cash-deposit intent) counts in the pilot of the PSP bound for
    its method, together with that PSP's payments: its rules now, the windows to raise with it."""
    if mode != "live":
        return ()
    psp_id = deps.bindings().bound_psp(account_id, mode, payout_method(destination))
    return psp_pilot(psp_id, mode, metadata, currency, amount, rejection_id)


def psp_pilot(
    psp_id: str | None, mode: str, metadata: dict[str, str] | None, currency: str, amount: Decimal, rejection_id: str
) -> tuple[Reservation, ...]:
    """Live money through `psp_id` (money out, a bill payment of a biller it carries) counts in
    that PSP's pilot with its payments: its rules now, the windows to raise with it."""
    psp = PSPS.get(psp_id or "")
    if mode != "live" or psp is None:  # nothing bound, or not a PSP of the matrix: the connector refuses it
        return ()
    state = pilot_state(psp, deps.payments().pilot(psp.psp_id))
    windows = check_pilot(state, metadata, currency, amount, datetime.now(UTC), rejection_id)
    return tuple(Reservation(f"pilot_{w.rule}", w.key, amount, w.ceiling) for w in windows)


def pilot_window_refusal(reservation: Reservation, currency: str, rejection_id: str) -> ServiceError | None:
    """The refusal of a pilot window that a creation found full (None: not a pilot window)."""
    if not reservation.name.startswith("pilot_"):
        return None
    psp_id = reservation.key.split("#")[1]  # PILOT#<psp>#<currency>#...
    window = PilotWindow(reservation.name.removeprefix("pilot_"), reservation.key, reservation.ceiling)
    return window_reached(psp_id, window, currency, rejection_id)


def ceiling_refusal(psp: Psp, reservation: Reservation, currency: str, rejection_id: str) -> ServiceError:
    if reservation.name == "daily":
        return daily_ceiling_reached(currency, reservation.ceiling, rejection_id)
    rule = reservation.name.removeprefix("pilot_")
    return window_reached(psp.psp_id, PilotWindow(rule, reservation.key, reservation.ceiling), currency, rejection_id)


def network_of(request: ChargeRequest) -> str | None:
    return request.source.mobile_wallet.network if request.source.mobile_wallet else None


def _risk_stage(principal: Principal, request: ChargeRequest, rejection_id: str) -> None:
    """Velocity per payer phone for live wallet charges, a magic number in test; see mzpay.domain.payments.risk."""
    wallet = request.source.mobile_wallet
    if request.source.type != "mobile_wallet" or wallet is None or not wallet.phone_number:
        return
    if risk.declined_test_number(principal.mode, wallet.phone_number):
        raise risk.declined(rejection_id)
    if principal.mode != "live":
        return
    now = datetime.now(UTC).timestamp()
    key = f"VELOCITY#{principal.acting_account_id}#{principal.mode}#{wallet.phone_number}#{risk.velocity_window(now)}"
    ttl = int(now) + 2 * risk.VELOCITY_WINDOW_SECONDS
    if not deps.payments().count_attempt(key, risk.VELOCITY_LIMIT, ttl):
        raise risk.declined(rejection_id)


def reject(principal: Principal, request: ChargeRequest, refusal: ServiceError) -> NoReturn:
    """Record `refusal` as transaction.rejected (no payment exists) and raise it."""
    source = request.source
    rejected(
        principal.acting_account_id,
        principal.mode,
        refusal,
        {
            "payment_id": request.payment_id,
            "money": request.money.model_dump(),
            "source": {"type": source.type, "network": source.mobile_wallet.network if source.mobile_wallet else None},
            "country": request.country,
        },
    )


def rejected(account_id: str, mode: str, refusal: ServiceError, details: dict[str, Any]) -> NoReturn:
    """Record a refusal before anything was created (a charge's, a payout's, a PSP transaction's)
    as transaction.rejected, its `details` naming what was refused, and raise it."""
    now = now_iso()
    rejection_id = refusal.extensions["rejection_id"]
    data = {
        "object": {
            "rejection_id": rejection_id,
            "code": refusal.code,
            "rule": refusal.extensions.get("rule"),
            **details,
            "created_at": now,
        }
    }
    deps.payments().record_rejection(
        new_event("transaction.rejected", account_id, mode, "rejection", rejection_id, data, now)
    )
    raise refusal
