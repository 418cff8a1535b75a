"""PSP transactions (docs/psp-transactions.md): record one (its originator_reference unique per
account and mode, a refund within its original payment's remainder, the account's ceilings),
find one by its originator_reference, list them, read one."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import NoReturn

from mzpay import deps
from mzpay.answers.partners import PspTransaction as PspTransactionAnswer
from mzpay.domain.access.principal import Principal, wrong_environment
from mzpay.domain.accounts.limits import business_day, check_ceilings, daily_ceiling_reached
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.psp.transactions import (
    RECORDED,
    RECORDED_EVENT,
    PspTransaction,
    PspTransactionRequest,
    check_psp_transaction,
    check_refund,
    refund_above_remainder,
)
from mzpay.domain.webhooks.events import new_event
from mzpay.steps.admission import rejected
from mzpay.store.payments import CeilingReached, Reservation
from mzpay.store.psp_transactions import ReferenceTaken, RemainderTaken

COUNTER_TTL = 3 * 24 * 3600
OTHER_MODE = {"test": "live", "live": "test"}


def record(principal: Principal, request: PspTransactionRequest) -> PspTransactionAnswer:
    """Record a PSP's transaction: 409 duplicate_originator_reference for a reference already
    recorded, 404 for a refund of an unknown original, 422 not_refundable or limit_exceeded."""
    check_psp_transaction(request)
    account, mode = principal.acting_account_id, principal.mode
    store = deps.psp_transactions()
    if store.by_reference(account, mode, request.originator_reference) is not None:
        raise duplicate(request.originator_reference)
    currency, amount = request.money.currency, request.money.value
    refunding = None
    original = None
    if request.original_reference is not None:
        original = store.by_reference(account, mode, request.original_reference)
        if original is None:
            raise ServiceError(
                404, "not_found", f"No PSP transaction has originator_reference {request.original_reference}."
            )
        refunding = (original, check_refund(original, currency, amount))
    party = request.source or request.destination
    now_moment = datetime.now(UTC)
    reservations = _reservations(principal, request, now_moment)
    now = iso(now_moment)
    transaction = PspTransaction(
        transaction_id=new_id(),
        account_id=account,
        mode=mode,
        status=RECORDED,
        version=1,
        type=request.type,
        originator_reference=request.originator_reference,
        amount=format_amount(amount, currency),
        currency=currency,
        refunded=Decimal(0) if request.type == "payment" else None,
        party=party.model_dump(exclude_none=True) if party else None,
        original_reference=request.original_reference,
        original_transaction_id=original.transaction_id if original else None,
        occurred_at=iso(request.occurred_at or now_moment),
        description=request.description,
        callback_url=request.callback_url,
        metadata=request.metadata,
        reservations=tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations) or None,
        fingerprint=request_fingerprint(request.model_dump(mode="json")),
        created_at=now,
        updated_at=now,
    )
    event = new_event(
        RECORDED_EVENT,
        account,
        mode,
        "psp_transaction",
        transaction.transaction_id,
        {"object": transaction.view()},
        now,
        request.callback_url,
    )
    try:
        store.record(transaction, [event], reservations, int(now_moment.timestamp()) + COUNTER_TTL, refunding)
    except ReferenceTaken:
        raise duplicate(request.originator_reference) from None
    except RemainderTaken:
        assert original is not None
        raise refund_above_remainder(original) from None
    except CeilingReached as reached:
        _reject(principal, request, daily_ceiling_reached(currency, reached.reservation.ceiling, new_id()))
    return PspTransactionAnswer.of(transaction.view())


def _reservations(principal: Principal, request: PspTransactionRequest, now: datetime) -> tuple[Reservation, ...]:
    """The account's ceilings, as for a charge: currency and per-transaction for every type; a
    payment (money in) also raises the account's daily total, shared with its charges."""
    currency, amount = request.money.currency, request.money.value
    ceilings = deps.limits().read(principal.acting_account_id, principal.mode)
    try:
        check_ceilings(ceilings, currency, amount, new_id())
    except ServiceError as refusal:
        _reject(principal, request, refusal)
    ceiling = ceilings.daily.get(currency)
    if request.type != "payment" or ceiling is None:
        return ()
    if amount > ceiling:
        _reject(principal, request, daily_ceiling_reached(currency, ceiling, new_id()))
    key = f"DAILY#{principal.acting_account_id}#{principal.mode}#{currency}#{business_day(now)}"
    return (Reservation("daily", key, amount, ceiling),)


def _reject(principal: Principal, request: PspTransactionRequest, refusal: ServiceError) -> NoReturn:
    """Record a ceiling's refusal as transaction.rejected (nothing else is written) and raise it."""
    details = {
        "psp_transaction": {"type": request.type, "originator_reference": request.originator_reference},
        "money": request.money.model_dump(),
    }
    rejected(principal.acting_account_id, principal.mode, refusal, details)


def duplicate(reference: str) -> ServiceError:
    return ServiceError(
        409, "duplicate_originator_reference", f"originator_reference {reference} was already submitted."
    )


def read(principal: Principal, transaction_id: str) -> PspTransactionAnswer:
    """One of the account's transactions: another account's is 404, the other mode's 401
    wrong_environment (as every resource of the gateway)."""
    store, account = deps.psp_transactions(), principal.acting_account_id
    found = store.get(account, principal.mode, transaction_id) if is_ulid(transaction_id) else None
    if found is None:
        other = OTHER_MODE[principal.mode]
        if is_ulid(transaction_id) and store.get(account, other, transaction_id) is not None:
            raise wrong_environment(principal.mode, other)
        raise ServiceError(404, "not_found", "No such PSP transaction.")
    return PspTransactionAnswer.of(found.view())
