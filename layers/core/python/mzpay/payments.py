"""Payment use cases: create a charge, read it, and move it through its lifecycle.

A charge is claimed (payment + payment_id uniqueness + its event, one transaction) BEFORE the
provider is called, so one payment_id can never reach a provider twice; the provider's answer
is then applied as a conditional transition with its event.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any, NoReturn

from mzpay.connectors.base import Connector, ProviderCall, ProviderResult
from mzpay.connectors.simulated import SimulatedConnector
from mzpay.domain import risk
from mzpay.domain.charges import TEST_CARDS, ChargeRequest, check_charge
from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.events import new_event
from mzpay.domain.ids import new_id
from mzpay.domain.limits import AccountLimits, business_day, check_ceilings, daily_ceiling_reached
from mzpay.domain.money import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import EVENT_OF_STATUS, METHODS, Status, ensure_transition
from mzpay.domain.routing import CAPABILITY_MATRIX, PSP_IDS, Psp, choose, eligible
from mzpay.http.principal import Principal, wrong_environment
from mzpay.store.accounts import Limits
from mzpay.store.directory import iso
from mzpay.store.payments import DailyCeilingReached, DailyReservation, PaymentIdTaken, Payments

DAILY_COUNTER_TTL = 3 * 24 * 3600


@lru_cache(maxsize=1)
def limits() -> Limits:
    return Limits.from_env()


@lru_cache(maxsize=1)
def payments() -> Payments:
    return Payments.from_env()


def connector_for(mode: str) -> Connector:
    """Test traffic only ever reaches the simulated connector; live traffic needs a connector
    bound to the account for the method (none can be bound yet)."""
    if mode == "test":
        return SimulatedConnector()
    raise ServiceError(
        409,
        "no_connector_binding",
        "No live connector is bound to this account for this method; ask your operator to bind one.",
    )


def _now() -> str:
    return iso(datetime.now(UTC))


def _fingerprint(request: ChargeRequest) -> str:
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _stored_source(request: ChargeRequest) -> dict[str, Any]:
    """The source as kept and shown: a test card number becomes its token and last four
    digits; no card number is ever stored or logged."""
    source = request.source.model_dump(exclude_none=True)
    card = source.get("card")
    if card and "number" in card:
        number = card.pop("number").replace(" ", "")
        source["card"] = {"token": TEST_CARDS[number], "last4": number[-4:]}
    return source


def _call(payment: dict[str, Any]) -> ProviderCall:
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
        "source": payment["source"],
        "checkout_url": payment.get("checkout_url"),
        "next_action": payment.get("next_action"),
        "authorized_amount": payment["authorized_amount"],
        "captured_amount": payment["captured_amount"],
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
    return new_event(
        kind,
        payment["account_id"],
        payment["mode"],
        "payment",
        payment["provider_payment_id"],
        {"object": snapshot(payment)},
        now,
    )


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
    changes = {**_outcome_changes(payment, result, now, captured), **(extra or {})}
    after = {**payment, **changes}
    events = [] if result.status == Status.PENDING else [_event(EVENT_OF_STATUS[result.status], after, now)]
    return payments().transition(payment, changes, events, release=_unused_reservation(payment, result, captured))


def _unused_reservation(payment: dict[str, Any], result: ProviderResult, captured: Decimal | None) -> Decimal:
    """What of the daily reservation the payment will not take: all of it when it failed or was
    voided, the rest of it after a partial capture."""
    if not payment.get("daily_key"):
        return Decimal(0)
    reserved = Decimal(payment["amount"])
    if result.status in (Status.FAILED, Status.CANCELED):
        return reserved
    if result.status == Status.SUCCEEDED and captured is not None:
        return reserved - captured
    return Decimal(0)


# ---------------------------------------------------------------- create
def create_charge(principal: Principal, request: ChargeRequest) -> dict[str, Any]:
    """Validate, claim the payment_id, ask the provider, record its answer: a ChargeResult."""
    check_charge(request, principal.mode)
    account, mode = principal.acting_account_id, principal.mode
    fingerprint = _fingerprint(request)
    existing = payments().by_payment_id(account, mode, request.payment_id)
    if existing is not None:
        return _replay(existing, fingerprint)
    now = _now()
    rejection_id = new_id()
    psp, daily = _admit(principal, request, rejection_id)
    connector = connector_for(principal.mode)
    currency = request.money.currency
    payment: dict[str, Any] = {
        "provider_payment_id": new_id(),
        "payment_id": request.payment_id,
        "account_id": account,
        "mode": mode,
        "key_id": principal.key_id,
        "psp_id": psp.psp_id,
        "daily_key": daily.key if daily else None,
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
    payment = {k: v for k, v in payment.items() if v is not None}
    events = [_event("payment.created", payment, now)]
    if request.source.type == "card":
        events.append(_event("transaction.card.tokenized", payment, now))
    try:
        payments().create(payment, events, daily, ttl=int(datetime.now(UTC).timestamp()) + DAILY_COUNTER_TTL)
    except DailyCeilingReached:
        assert daily is not None
        _reject(principal, request, daily_ceiling_reached(request.money.currency, daily.ceiling, rejection_id))
    except PaymentIdTaken:  # a concurrent request with the same payment_id won
        winner = payments().by_payment_id(account, mode, request.payment_id)
        assert winner is not None
        return _replay(winner, fingerprint)
    result = connector.charge(_call(payment))
    return charge_result(_apply(payment, result, _now()))


def _admit(principal: Principal, request: ChargeRequest, rejection_id: str) -> tuple[Psp, DailyReservation | None]:
    """The account's ceilings, then routing; a refusal is recorded as transaction.rejected."""
    source = request.source
    network = source.mobile_wallet.network if source.mobile_wallet else None
    currency, amount = request.money.currency, request.money.value
    try:
        ceilings = limits().read(principal.acting_account_id, principal.mode)
        check_ceilings(ceilings, currency, amount, rejection_id)
        daily = None
        ceiling = ceilings.daily.get(currency)
        if ceiling is not None and not request.open_amount:
            if amount > ceiling:
                raise daily_ceiling_reached(currency, ceiling, rejection_id)
            day = business_day(datetime.now(UTC))
            daily = DailyReservation(
                f"DAILY#{principal.acting_account_id}#{principal.mode}#{currency}#{day}", amount, ceiling
            )
        _risk_stage(principal, request, rejection_id)
        candidates = eligible(source.type, network, currency, request.country, amount, principal.mode, rejection_id)
        psp = choose(candidates, payments().unavailable_psps([p.psp_id for p in candidates]), rejection_id)
    except ServiceError as refusal:
        _reject(principal, request, refusal)
    return psp, daily


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
    """The capability matrix with each PSP's availability (for operators)."""
    return {"psps": [{**psp.public(), **_availability(payments().psp_status(psp.psp_id))} for psp in CAPABILITY_MATRIX]}


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
    if existing["_claim"]["fingerprint"] != fingerprint:
        raise ServiceError(
            409, "payment_id_reused", "This payment_id belongs to another charge (different amount, source or details)."
        )
    return charge_result(existing)


# ---------------------------------------------------------------- read
def visible_payment(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """The payment if it belongs to the caller's account (else 404) and mode (else 401)."""
    payment = payments().get(provider_payment_id) if provider_payment_id else None
    if payment is None or payment["account_id"] != principal.acting_account_id:
        raise ServiceError(404, "not_found", "No such payment.")
    if payment["mode"] != principal.mode:
        raise wrong_environment(principal.mode, payment["mode"])
    return payment


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
    result = connector_for(payment["mode"]).capture(_call(payment), value)
    return charge_result(_apply(payment, result, _now(), captured=value))


def void(principal: Principal, provider_payment_id: str) -> dict[str, Any]:
    """Release held funds (only while authorized)."""
    payment = visible_payment(principal, provider_payment_id)
    ensure_transition(payment["status"], "void")
    result = connector_for(payment["mode"]).void(_call(payment))
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
    result = connector_for(payment["mode"]).complete_action(_call(payment), payment.get("next_action") or {}, otp)
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
