"""Payment use cases: create a charge, read it, and move it through its lifecycle.

A charge is claimed (payment + payment_id uniqueness + its event, one transaction) BEFORE the
provider is called, so one payment_id can never reach a provider twice; the provider's answer
is then applied as a conditional transition with its event.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any, NoReturn

from mzpay.bindings import connector_for
from mzpay.connectors.base import NOT_RECEIVED, Connector, ProviderCall, ProviderResult, Reconciling
from mzpay.domain import expiry, ledger, risk
from mzpay.domain.charges import TEST_CARDS, ChargeRequest, CheckoutRequest, MobileWallet, Source, check_charge
from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.events import new_event
from mzpay.domain.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.limits import AccountLimits, business_day, check_ceilings, daily_ceiling_reached
from mzpay.domain.money import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import EVENT_OF_STATUS, METHODS, TERMINAL, Status, ensure_transition
from mzpay.domain.pilot import PilotSettings, PilotState, PilotWindow, check_pilot, pilot_refusal, window_reached
from mzpay.domain.routing import CAPABILITY_MATRIX, PSP_IDS, PSPS, Psp, binding_method, choose, eligible
from mzpay.http.principal import Principal, wrong_environment
from mzpay.store.accounts import Limits
from mzpay.store.directory import iso
from mzpay.store.ledger import movement_items
from mzpay.store.payments import CeilingReached, PaymentIdTaken, Payments, Reservation
from mzpay.store.transitions import same_request

COUNTER_TTL = 40 * 24 * 3600  # a month's window and then some


@lru_cache(maxsize=1)
def limits() -> Limits:
    return Limits.from_env()


@lru_cache(maxsize=1)
def payments() -> Payments:
    return Payments.from_env()


def connector_of(payment: dict[str, Any]) -> Connector:
    """The connector the payment was made through (the simulator for test payments)."""
    source = payment["source"]
    method = binding_method(source["type"], (source.get("mobile_wallet") or {}).get("network"))
    return connector_for(payment["account_id"], payment["mode"], method, payment["psp_id"])


def _now() -> str:
    return iso(datetime.now(UTC))


def _stored_source(request: ChargeRequest) -> dict[str, Any]:
    """The source as kept and shown: a test card number becomes its token and last four
    digits; no card number is ever stored or logged."""
    source = request.source.model_dump(exclude_none=True)
    card = source.get("card")
    if card and "number" in card:
        number = card.pop("number").replace(" ", "")
        source["card"] = {"token": TEST_CARDS[number], "last4": number[-4:]}
    return source


def provider_call(payment: dict[str, Any]) -> ProviderCall:
    """The payment as its connector sees it."""
    return ProviderCall(
        payment["provider_payment_id"],
        Decimal(payment["amount"]),
        payment["currency"],
        payment["source"],
        payment.get("return_url"),
        bool(payment.get("open_amount")),
    )


def _money(amount: str, currency: str) -> dict[str, str]:
    return {"amount": amount, "currency": currency}


def _view(payment: dict[str, Any]) -> dict[str, Any]:
    view = {
        "payment_id": payment["payment_id"],
        "provider_payment_id": payment["provider_payment_id"],
        "status": payment["status"],
        "money": _money(payment["amount"], payment["currency"]),
        "source": payment.get("source"),
        "checkout_url": payment.get("checkout_url"),
        "expires_at": payment.get("expires_at") if payment["status"] not in TERMINAL else None,
        "next_action": payment.get("next_action"),
        "authorized_amount": payment["authorized_amount"],
        "captured_amount": payment["captured_amount"],
        "refunded_amount": format_amount(Decimal(payment.get("refunded_amount", 0)), payment["currency"]),
        "failure_code": payment.get("failure_code"),
        "failure_message": payment.get("failure_message"),
    }
    if payment.get("open_amount"):
        view |= {
            "open_amount": True,
            "min_amount": payment.get("min_amount"),
            "max_amount": payment.get("max_amount"),
            "suggested_amounts": payment.get("suggested_amounts"),
        }
    return view


def charge_result(payment: dict[str, Any]) -> dict[str, Any]:
    """ChargeResult (answers of charge, capture, void, complete-action)."""
    return {**_view(payment), "processed_at": payment["updated_at"]}


def snapshot(payment: dict[str, Any]) -> dict[str, Any]:
    """PaymentSnapshot (answer of GET /payments/{id})."""
    return {**_view(payment), "last_updated_at": payment["updated_at"]}


def _event(kind: str, payment: dict[str, Any], now: str) -> dict[str, Any]:
    event = new_event(
        kind,
        payment["account_id"],
        payment["mode"],
        "payment",
        payment["provider_payment_id"],
        {"object": snapshot(payment)},
        now,
    )
    if payment.get("callback_url"):  # where the outbox delivers it (kept beside the envelope, not in it)
        event["callback_url"] = payment["callback_url"]
    return event


def _outcome_changes(
    payment: dict[str, Any], result: ProviderResult, now: str, captured: Decimal | None = None
) -> dict[str, Any]:
    currency = payment["currency"]
    amount = Decimal(payment["amount"]) if captured is None else captured
    changes: dict[str, Any] = {
        "status": result.status,
        "next_action": result.next_action,
        "failure_code": result.failure_code,
        "failure_message": result.failure_message,
        "updated_at": now,
    }
    if result.status == Status.AUTHORIZED:
        changes["authorized_amount"] = format_amount(amount, currency)
    if result.captured:
        changes["captured_amount"] = format_amount(amount, currency)
        if Decimal(payment["authorized_amount"]) == 0:
            changes["authorized_amount"] = format_amount(amount, currency)
    return changes


def _apply(
    payment: dict[str, Any],
    result: ProviderResult,
    now: str,
    captured: Decimal | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    changes = {**_outcome_changes(payment, result, now, captured), **(extra or {}), "submit_lease_until": None}
    changes |= _waiting({**payment, **changes}, datetime.now(UTC))
    after = {**payment, **changes}
    events = [] if result.status == Status.PENDING else [_event(EVENT_OF_STATUS[result.status], after, now)]
    entries = []
    if result.captured:  # money moved: the merchant's available balance grows by what was captured
        entries = movement_items(
            payments().name,
            payment["account_id"],
            payment["mode"],
            payment["currency"],
            ledger.captured(Decimal(changes["captured_amount"])),
            events[0]["id"],
            payment["provider_payment_id"],
            now,
        )
    return payments().transition(payment, changes, events, taken=_taken(result, captured), extra_items=entries)


def _kept(reservations: tuple[Reservation, ...], currency: str) -> list[dict[str, str]] | None:
    """The reservations as the payment keeps them, to give back what it does not take."""
    return [{"key": r.key, "amount": format_amount(r.amount, currency)} for r in reservations] or None


def _waiting(payment: dict[str, Any], now: datetime) -> dict[str, Any]:
    """expiry.waiting with this stack's first reconciliation delay (RECONCILE_FIRST_SECONDS)."""
    first = os.environ.get("RECONCILE_FIRST_SECONDS")
    return expiry.waiting(payment, now, timedelta(seconds=int(first)) if first else expiry.RECONCILE_FIRST)


def _taken(result: ProviderResult, captured: Decimal | None) -> Decimal | None:
    """How much of its reservations (daily ceiling, pilot windows) a payment ends up taking, when
    this outcome settles it: nothing when it failed or was voided, the captured amount after a
    partial capture or an open amount's completion; None while it is not settled."""
    if result.status in (Status.FAILED, Status.CANCELED, Status.EXPIRED):
        return Decimal(0)
    if result.status == Status.SUCCEEDED and captured is not None:
        return captured
    return None


# ---------------------------------------------------------------- create
def create_charge(principal: Principal, request: ChargeRequest) -> dict[str, Any]:
    """Validate, claim the payment_id, ask the provider, record its answer: a ChargeResult."""
    check_charge(request, principal.mode)
    account, mode = principal.acting_account_id, principal.mode
    fingerprint = request_fingerprint(request.model_dump(mode="json"))
    existing = payments().by_payment_id(account, mode, request.payment_id)
    if existing is not None:
        return _replay(existing, fingerprint)
    now = _now()
    rejection_id = new_id()
    psp, reservations = _admit(principal, request, rejection_id)
    connector = connector_for(account, mode, binding_method(request.source.type, _network(request)), psp.psp_id)
    currency = request.money.currency
    payment: dict[str, Any] = {
        "provider_payment_id": new_id(),
        "payment_id": request.payment_id,
        "account_id": account,
        "mode": mode,
        "key_id": principal.key_id,
        "psp_id": psp.psp_id,
        "reservations": _kept(reservations, currency),
        "status": Status.PENDING,
        "version": 1,
        "amount": format_amount(request.money.value, currency),
        "currency": currency,
        "source": _stored_source(request),
        "country": request.country,
        "customer": request.customer.model_dump(exclude_none=True) if request.customer else None,
        "callback_url": request.callback_url,
        "return_url": request.return_url,
        "metadata": request.metadata,
        "open_amount": request.open_amount,
        "min_amount": request.min_amount,
        "max_amount": request.max_amount,
        "suggested_amounts": request.suggested_amounts,
        "authorized_amount": format_amount(Decimal(0), currency),
        "captured_amount": format_amount(Decimal(0), currency),
        "fingerprint": fingerprint,
        "created_at": now,
        "updated_at": now,
    }
    payment |= _waiting(payment, datetime.now(UTC))
    payment |= _submitting(payment)
    payment = {k: v for k, v in payment.items() if v is not None}
    events = [_event("payment.created", payment, now)]
    if request.source.type == "card":
        events.append(_event("transaction.card.tokenized", payment, now))
    try:
        payments().create(payment, events, reservations, ttl=int(datetime.now(UTC).timestamp()) + COUNTER_TTL)
    except CeilingReached as reached:
        _reject(principal, request, _ceiling_refusal(psp, reached.reservation, currency, rejection_id))
    except PaymentIdTaken:  # a concurrent request with the same payment_id won
        winner = payments().by_payment_id(account, mode, request.payment_id)
        assert winner is not None
        if winner["provider_payment_id"] != payment["provider_payment_id"]:
            return _replay(winner, fingerprint)
        # else it is this very creation, landed on an attempt whose answer was lost: submit it
    if expiry.abandoned(payment, datetime.now(UTC)):  # the write landed after its lease: claim it like a retry
        return charge_result(expiry.settled_or_wait(resume(payment)))
    result = connector.charge(provider_call(payment))
    try:
        return charge_result(_apply(payment, result, _now()))
    except ServiceError as lost:  # a retry or the sweep took the submission over meanwhile
        if lost.code != "invalid_state":
            raise
        return charge_result(expiry.settled_or_wait(payments().get(payment["provider_payment_id"]) or payment))


def _submitting(payment: dict[str, Any]) -> dict[str, Any]:
    """The submission lease a charge is written with (expiry.SUBMIT_LEASE): the sweep looks at
    it again when the lease ends, in case its creating request never reached the provider."""
    lease = expiry.submission_lease(payment["mode"], datetime.now(UTC))
    return {"submit_lease_until": lease, "due_at": min(lease, payment.get("due_at") or lease)}


def resume(payment: dict[str, Any], submit: bool = True) -> dict[str, Any]:
    """Finish a charge whose creating request wrote it but never recorded a provider answer (a
    fault after the write, or a request that died), once its submission lease has ended.

    One conditional write claims the submission (a concurrent retry or sweep loses it and sees
    the payment as it is). A connector that can be asked (live M-Pesa) is asked first, so a call
    that did reach the provider is never repeated; only an answer that it never received the
    charge lets `submit` send it now. The simulator is deterministic: it is simply called."""
    now = datetime.now(UTC)
    if not expiry.abandoned(payment, now):
        return payment
    claim = {"submit_lease_until": expiry.submission_lease(payment["mode"], now), "updated_at": _now()}
    try:
        claimed = payments().transition(payment, claim, [])
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        return payments().get(payment["provider_payment_id"]) or payment
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
    return _apply(claimed, result, _now())


def _admit(principal: Principal, request: ChargeRequest, rejection_id: str) -> tuple[Psp, tuple[Reservation, ...]]:
    """The account's ceilings, the risk stage, routing, then the chosen PSP's pilot rules; the
    totals to raise with the payment. A refusal is recorded as transaction.rejected."""
    source, network = request.source, _network(request)
    currency, amount = request.money.currency, request.money.value
    now = datetime.now(UTC)
    reservations: list[Reservation] = []
    try:
        ceilings = limits().read(principal.acting_account_id, principal.mode)
        check_ceilings(ceilings, currency, amount, rejection_id)
        ceiling = ceilings.daily.get(currency)
        if ceiling is not None and not request.open_amount:
            if amount > ceiling:
                raise daily_ceiling_reached(currency, ceiling, rejection_id)
            key = f"DAILY#{principal.acting_account_id}#{principal.mode}#{currency}#{business_day(now)}"
            reservations.append(Reservation("daily", key, amount, ceiling))
        _risk_stage(principal, request, rejection_id)
        candidates = eligible(source.type, network, currency, request.country, amount, principal.mode, rejection_id)
        statuses, pilots = payments().routing_state([p.psp_id for p in candidates])
        psp = choose(candidates, {p for p, status in statuses.items() if not status["available"]}, rejection_id)
        if principal.mode == "live":
            reservations += _pilot_windows(psp, pilots.get(psp.psp_id), request, now, rejection_id)
    except ServiceError as refusal:
        _reject(principal, request, refusal)
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


def pilot_state(psp: Psp, stored: dict[str, Any] | None) -> PilotState:
    """What an operator wrote for the PSP, else the matrix's default (in pilot, no settings)."""
    if stored is None:
        return PilotState(psp.psp_id, psp.pilot, None)
    settings = stored.get("settings")
    return PilotState(
        psp.psp_id,
        bool(stored["in_pilot"]),
        PilotSettings.from_public(settings) if settings else None,
        stored.get("updated_at"),
    )


def _ceiling_refusal(psp: Psp, reservation: Reservation, currency: str, rejection_id: str) -> ServiceError:
    if reservation.name == "daily":
        return daily_ceiling_reached(currency, reservation.ceiling, rejection_id)
    rule = reservation.name.removeprefix("pilot_")
    return window_reached(psp.psp_id, PilotWindow(rule, reservation.key, reservation.ceiling), currency, rejection_id)


def _network(request: ChargeRequest) -> str | None:
    return request.source.mobile_wallet.network if request.source.mobile_wallet else None


def _risk_stage(principal: Principal, request: ChargeRequest, rejection_id: str) -> None:
    """Velocity per payer phone for live wallet charges, a magic number in test; see mzpay.domain.risk."""
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
    if not payments().count_attempt(key, risk.VELOCITY_LIMIT, ttl):
        raise risk.declined(rejection_id)


def _reject(principal: Principal, request: ChargeRequest, refusal: ServiceError) -> NoReturn:
    """Record `refusal` as transaction.rejected (no payment exists) and raise it."""
    now = _now()
    source = request.source
    rejection_id = refusal.extensions["rejection_id"]
    data = {
        "object": {
            "rejection_id": rejection_id,
            "code": refusal.code,
            "rule": refusal.extensions.get("rule"),
            "payment_id": request.payment_id,
            "money": request.money.model_dump(),
            "source": {"type": source.type, "network": source.mobile_wallet.network if source.mobile_wallet else None},
            "country": request.country,
            "created_at": now,
        }
    }
    payments().record_rejection(
        new_event(
            "transaction.rejected", principal.acting_account_id, principal.mode, "rejection", rejection_id, data, now
        )
    )
    raise refusal


def psps() -> dict[str, Any]:
    """The capability matrix with each PSP's availability and pilot (for operators)."""
    statuses, pilots = payments().routing_state([psp.psp_id for psp in CAPABILITY_MATRIX])
    return {
        "psps": [
            {
                **psp.public(),
                **_availability(statuses[psp.psp_id]),
                "pilot": pilot_state(psp, pilots.get(psp.psp_id)).public(),
            }
            for psp in CAPABILITY_MATRIX
        ]
    }


def set_psp_pilot(psp_id: str, in_pilot: bool, settings: PilotSettings | None) -> dict[str, Any]:
    """Operators: put a PSP in pilot (with the settings its live traffic must keep) or graduate it."""
    psp = PSPS.get(psp_id)
    if psp is None:
        raise ServiceError(404, "not_found", "No such PSP.")
    if psp.simulated:
        raise ServiceError(
            400,
            "invalid_request",
            "The simulator carries test traffic only; pilots apply to live PSPs.",
            errors=[FieldError("psp_id", "invalid_value", "a live PSP")],
        )
    state = PilotState(psp_id, in_pilot, settings, _now())
    payments().set_pilot(psp_id, state.public())
    return state.public()


def _availability(status: dict[str, Any]) -> dict[str, Any]:
    return {"available": status["available"], "reason": status["reason"], "updated_at": status["updated_at"]}


def set_account_limits(account_id: str, mode: str, limits_in: AccountLimits) -> dict[str, Any]:
    """Operators: the ceilings of an account in a mode (replacing the previous ones)."""
    from mzpay.access import home_account

    account = home_account(account_id)
    limits().write(account.account_id, mode, limits_in)
    return {"account_id": account.account_id, "mode": mode, **limits_in.public()}


def set_psp_availability(psp_id: str, available: bool, reason: str) -> dict[str, Any]:
    if psp_id not in PSP_IDS:
        raise ServiceError(404, "not_found", "No such PSP.")
    return payments().set_psp_availability(psp_id, available, reason, _now())


def _replay(existing: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    """The charge a payment_id was claimed for; one its creating request left unsubmitted is
    submitted now (`resume`), so retrying a request that met a fault finishes it."""
    same_request(
        existing,
        fingerprint,
        "payment_id_reused",
        "This payment_id belongs to another charge (different amount, source or details).",
    )
    existing = {k: v for k, v in existing.items() if k != "_claim"}
    if expiry.being_submitted(existing, datetime.now(UTC)):
        raise expiry.in_progress()
    return charge_result(resume(existing))


# ---------------------------------------------------------------- read
def visible_payment(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """The payment if it belongs to the caller's account (else 404) and mode (else 401); one
    past its deadline is expired first, so nobody acts on a payment that has run out of time."""
    payment = payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None
    if payment is None or payment["account_id"] != principal.acting_account_id:
        raise ServiceError(404, "not_found", "No such payment.")
    if payment["mode"] != principal.mode:
        raise wrong_environment(principal.mode, payment["mode"])
    return _current(payment)


def _current(payment: dict[str, Any]) -> dict[str, Any]:
    """The payment, expired now if its deadline passed (whoever expires it first wins)."""
    if not expiry.is_due(payment, datetime.now(UTC)):
        return payment
    try:
        return _expire(payment)
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        fresh = payments().get(payment["provider_payment_id"])
        assert fresh is not None
        return fresh


def _expire(payment: dict[str, Any]) -> dict[str, Any]:
    ensure_transition(payment["status"], "expire")
    now = _now()
    changes: dict[str, Any] = {
        "status": Status.EXPIRED,
        "next_action": None,
        "updated_at": now,
        "expiry_shard": None,
        "due_at": None,
    }
    after = {**payment, **changes}
    return payments().transition(payment, changes, [_event("payment.expired", after, now)], taken=Decimal(0))


def expire_due(limit: int = 100) -> dict[str, int]:
    """The scheduled sweep (PaymentExpiryFunction): expire every waiting payment whose deadline
    passed, and ask the provider about live payments left pending."""
    from mzpay import refunds as refund_cases  # the sweep also finishes refunds left unsubmitted

    expired = reconciled = resumed = 0
    for payment in payments().due_for_expiry(expiry.iso(datetime.now(UTC)), expiry.SHARDS, limit):
        if payment.get("sk") == "REFUND":
            resumed += refund_cases.resume_refund(payment)
        elif expiry.abandoned(payment, datetime.now(UTC)):
            resumed += _resume_abandoned(payment)
        elif payment["status"] == Status.PENDING and payment["mode"] == "live":
            reconciled += _reconcile(payment)
        elif _current(payment)["status"] == Status.EXPIRED and payment["status"] != Status.EXPIRED:
            expired += 1
    return {"expired": expired, "reconciled": reconciled, "resumed": resumed}


def _resume_abandoned(payment: dict[str, Any]) -> int:
    """The sweep's share of `resume`: a test charge is submitted to the simulator (its outcome is
    the request's own); a live one is never pushed to a payer minutes later: the provider is
    asked, and a charge it never received fails with failure_code not_received."""
    try:
        after = resume({k: v for k, v in payment.items() if k not in ("pk", "sk")}, submit=payment["mode"] == "test")
    except ServiceError as refused:
        if refused.code not in ("invalid_state", "no_connector_binding"):
            raise
        return 0
    return int(after.get("status") != Status.PENDING or "submit_lease_until" not in after)


def _reconcile(payment: dict[str, Any]) -> int:
    """Ask the provider what became of a live payment left pending: its answer is applied like a
    charge's (1), or the next question is scheduled (0). Losing a race to another change is fine."""
    now = datetime.now(UTC)
    try:
        connector = connector_of(payment)
        result = connector.status(provider_call(payment)) if isinstance(connector, Reconciling) else None
        if result is not None and result.status != Status.PENDING:
            _apply(payment, result, _now())
            return 1
        first = os.environ.get("RECONCILE_FIRST_SECONDS")
        next_at = expiry.reconcile_at(
            payment["created_at"], now, timedelta(seconds=int(first)) if first else expiry.RECONCILE_FIRST
        )
        changes: dict[str, Any] = {"due_at": next_at, "updated_at": payment["updated_at"]}
        if next_at is None:  # 72 h without an answer: an operator's case now
            changes |= {"expiry_shard": None, "reconciliation": "gave_up"}
        payments().transition(payment, changes, [])
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "no_connector_binding"):
            raise
    return 0


# ---------------------------------------------------------------- hosted checkout
def create_checkout(principal: Principal, request: CheckoutRequest, base_url: str) -> dict[str, Any]:
    """POST /v1/payments: a payment the payer completes on the hosted checkout page."""
    currency = request.currency
    if request.value <= 0:
        raise _amount_error("amount", "the amount of a checkout is more than zero")
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
        raise _amount_error("amount", str(exc)) from exc
    now = datetime.now(UTC)
    deadline = expiry.checkout_deadline(principal.mode, request.expires_in, now)
    account, mode = principal.acting_account_id, principal.mode
    payment_id = request.payment_id or new_id()
    fingerprint = request_fingerprint(request.model_dump(mode="json"), "checkout")
    existing = payments().by_payment_id(account, mode, payment_id) if request.payment_id else None
    if existing is not None:
        return _checkout_replay(existing, fingerprint)
    provider_payment_id = new_id()
    stamp = _now()
    payment: dict[str, Any] = {
        "provider_payment_id": provider_payment_id,
        "payment_id": payment_id,
        "account_id": account,
        "mode": mode,
        "key_id": principal.key_id,
        "status": Status.REQUIRES_PAYMENT_METHOD,
        "version": 1,
        "checkout": True,
        "checkout_url": f"{base_url.rstrip('/')}/checkout/{provider_payment_id}",
        "amount": amount,
        "currency": currency,
        "country": "MZ",
        "callback_url": request.callback_url,
        "return_url": request.return_url,
        "metadata": request.metadata,
        "authorized_amount": format_amount(Decimal(0), currency),
        "captured_amount": format_amount(Decimal(0), currency),
        "fingerprint": fingerprint,
        "expires_at": expiry.iso(deadline),
        "created_at": stamp,
        "updated_at": stamp,
    }
    payment |= _waiting(payment, now)
    payment = {k: v for k, v in payment.items() if v is not None}
    try:
        payments().create(payment, [_event("payment.created", payment, stamp)])
    except PaymentIdTaken:
        winner = payments().by_payment_id(account, mode, payment_id)
        assert winner is not None
        if winner["provider_payment_id"] != payment["provider_payment_id"]:  # else our own write landed
            return _checkout_replay(winner, fingerprint)
    return snapshot(payment)


def _checkout_replay(existing: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    same_request(
        existing,
        fingerprint,
        "payment_id_reused",
        "This payment_id belongs to another payment (different amount or details).",
    )
    return snapshot(_current(existing))


def cancel(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """POST /v1/payments/{id}/cancel: while the payer has not paid (a checkout, or a payment
    waiting for the payer's action)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment["status"], "cancel")
    now = _now()
    changes: dict[str, Any] = {
        "status": Status.CANCELED,
        "next_action": None,
        "updated_at": now,
        "expiry_shard": None,
        "due_at": None,
    }
    after = {**payment, **changes}
    return snapshot(payments().transition(payment, changes, [_event("payment.canceled", after, now)], taken=Decimal(0)))


def checkout_payment(provider_payment_id: str) -> dict[str, Any]:
    """The checkout behind a hosted page (no key: the page is the payer's); 404 unless one."""
    payment = payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None
    if payment is None or not payment.get("checkout"):
        raise ServiceError(404, "not_found", "No such checkout.")
    return _current(payment)


# The test toolbar's payers: the documented simulator numbers that give each outcome.
TEST_PAYERS = {"succeed": "+258840000000", "fail": "+258840000001"}


def test_action(provider_payment_id: str, outcome: str) -> dict[str, Any]:
    """The hosted page's test toolbar: pay a TEST checkout as a payer whose outcome is `outcome`
    (succeed, fail). On a live payment: 403 live_payment."""
    payment = checkout_payment(provider_payment_id)
    if payment["mode"] != "test":
        raise ServiceError(403, "live_payment", "Test actions are refused on live payments.")
    if outcome not in TEST_PAYERS:
        raise ServiceError(404, "not_found", f"No such test action: {outcome} (one of {', '.join(TEST_PAYERS)}).")
    return pay_checkout(provider_payment_id, "mpesa", TEST_PAYERS[outcome])


def pay_checkout(provider_payment_id: str, network: str, phone_number: str) -> dict[str, Any]:
    """The payer chose a mobile wallet on the hosted page: the charge goes through the same
    validation, ceilings, risk stage, routing, pilot rules and connector as POST /charges."""
    payment = checkout_payment(provider_payment_id)
    ensure_transition(payment["status"], "pay")
    request = ChargeRequest(
        payment_id=payment["payment_id"],
        money={"amount": payment["amount"], "currency": payment["currency"]},  # type: ignore[arg-type]
        source=Source(type="mobile_wallet", mobile_wallet=MobileWallet(network=network, phone_number=phone_number)),
        country=payment["country"],
        callback_url=payment.get("callback_url"),
        return_url=payment.get("return_url"),
        metadata=payment.get("metadata"),
    )
    check_charge(request, payment["mode"])
    payer = Principal(
        account_id=payment["account_id"],
        mode=payment["mode"],
        scopes=frozenset(),
        key_id=payment["key_id"],
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=payment["account_id"],
    )
    rejection_id = new_id()
    psp, reservations = _admit(payer, request, rejection_id)
    connector = connector_for(payment["account_id"], payment["mode"], network, psp.psp_id)
    now = _now()
    changes: dict[str, Any] = {
        "status": Status.PENDING,
        "source": _stored_source(request),
        "psp_id": psp.psp_id,
        "reservations": _kept(reservations, payment["currency"]),
        "updated_at": now,
        "expires_at": None,
    }
    changes |= _waiting({**payment, **changes}, datetime.now(UTC))
    ttl = int(datetime.now(UTC).timestamp()) + COUNTER_TTL
    try:
        started = payments().transition(payment, changes, [], reservations=reservations, ttl=ttl)
    except CeilingReached as reached:
        _reject(payer, request, _ceiling_refusal(psp, reached.reservation, payment["currency"], rejection_id))
    result = connector.charge(provider_call(started))
    return _apply(started, result, _now())


def read_payment(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    return snapshot(visible_payment(principal, provider_payment_id))


# ---------------------------------------------------------------- lifecycle
def capture(principal: Principal, provider_payment_id: str, amount: str | None, currency: str | None) -> dict[str, Any]:
    """Capture held funds, all or part (a partial capture releases the rest)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment["status"], "capture")
    authorized = Decimal(payment["authorized_amount"])
    value = authorized
    if amount is not None:
        if currency is not None and currency != payment["currency"]:
            raise ServiceError(
                400,
                "invalid_currency",
                "Capture in the payment's currency.",
                errors=[FieldError("amount.currency", "invalid_currency", f"use {payment['currency']}")],
            )
        try:
            value = parse_amount(amount, payment["currency"])
        except InvalidAmount as exc:
            raise _amount_error("amount.amount", str(exc)) from exc
        if value <= 0 or value > authorized:
            raise _amount_error("amount.amount", f"capture between 0 and the authorized {payment['authorized_amount']}")
    result = connector_of(payment).capture(provider_call(payment), value)
    return charge_result(_apply(payment, result, _now(), captured=value))


def void(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """Release held funds (only while authorized)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment["status"], "void")
    result = connector_of(payment).void(provider_call(payment))
    return charge_result(_apply(payment, result, _now()))


def complete_action(
    principal: Principal, provider_payment_id: str, otp: str | None, amount: str | None
) -> dict[str, Any]:
    """The payer finished the step next_action asked for (redirect, OTP, prompt, QR)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment["status"], "complete_action")
    chosen = None
    if payment.get("open_amount"):
        chosen = _open_amount(payment, amount)
    result = connector_of(payment).complete_action(provider_call(payment), payment.get("next_action") or {}, otp)
    extra = {"amount": format_amount(chosen, payment["currency"])} if chosen is not None else None
    return charge_result(_apply(payment, result, _now(), captured=chosen, extra=extra))


def _open_amount(payment: dict[str, Any], amount: str | None) -> Decimal:
    if amount is None:
        raise ServiceError(
            400,
            "invalid_request",
            "An open-amount payment completes with the amount the payer chose.",
            errors=[FieldError("amount", "required", "the payer's amount")],
        )
    try:
        value = parse_amount(amount, payment["currency"])
    except InvalidAmount as exc:
        raise _amount_error("amount", str(exc)) from exc
    low = Decimal(payment.get("min_amount") or "0")
    high = Decimal(payment["max_amount"]) if payment.get("max_amount") else None
    if value <= 0 or value < low or (high is not None and value > high):
        raise _amount_error("amount", "the amount lies outside min_amount and max_amount")
    return value


def _amount_error(field: str, message: str) -> ServiceError:
    return ServiceError(
        400, "invalid_amount", f"{field}: {message}", errors=[FieldError(field, "invalid_amount", message)]
    )


def methods() -> dict[str, Any]:
    """What GET /methods lists: methods, networks, currencies, limits."""
    return {"methods": [method.public() for method in METHODS.values()]}
