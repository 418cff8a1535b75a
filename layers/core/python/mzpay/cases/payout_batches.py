"""Payout batches: upload (every line judged as POST /payouts would, nothing made), close,
release (above the approval threshold an operator approves or rejects it first; the debit
account's daily batch total raised in the same conditional write), then sending: the
payout_batch.released event puts one message on PayoutSettlementQueue, where each accepted line
becomes a payout made as POST /payouts makes one (held, payout.created, settled through the same
queue). Sending is resumable: a line already made is replayed by its payout_id, never made twice.
See docs/payouts.md, "Payout batches"."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, NoReturn

from mzpay import deps
from mzpay.answers.payouts import PayoutBatch as BatchAnswer
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.money import ledger
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payouts.batches import (
    EVENT_OF_STATUS,
    BatchLine,
    PayoutBatch,
    PayoutBatchRequest,
    Status,
    batch_view,
    debit_refusal,
    debit_window,
    ensure_transition,
    judge_line,
    refusal_of,
)
from mzpay.domain.payouts.limits import needs_approval
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.steps.accounts import at_home
from mzpay.steps.admission import rejected
from mzpay.steps.payout_creation import COUNTER_TTL, Payer, make_payout
from mzpay.store.payments import CeilingReached, Reservation

# The field that records when a batch moved to the status (close and approve stamp theirs).
STAMP = {Status.CLOSED: "closed_at", Status.RELEASED: "released_at"}
SEND_MARGIN_SECONDS = 5  # sending stops this long before the function's time runs out (resumed later)


def _now() -> str:
    return iso(datetime.now(UTC))


def _event(batch: PayoutBatch, now: str, kind: str | None = None) -> Event:
    kind = kind or EVENT_OF_STATUS[batch.status]
    return new_event(
        kind,
        batch.account_id,
        batch.mode,
        "payout_batch",
        batch.batch_id,
        {"object": batch_view(batch)},
        now,
        batch.callback_url,
    )


# ---------------------------------------------------------------- upload
def create_batch(
    principal: Principal, request: PayoutBatchRequest, lines: list[PayoutRequest | ServiceError]
) -> BatchAnswer:
    """Judge every line (`lines`: each parsed as POST /payouts parses its body, or the error that
    refused it) and keep the batch `open` with its report; nothing is paid or held yet."""
    account, mode = principal.acting_account_id, principal.mode
    limits = deps.payout_limits().read(account, mode)
    seen: set[str] = set()
    kept: list[BatchLine] = []
    total = Decimal(0)
    for number, (raw, parsed) in enumerate(zip(request.lines, lines, strict=True), start=1):
        payout_id = raw.get("payout_id") if isinstance(raw, dict) else None
        try:
            if isinstance(parsed, ServiceError):
                raise parsed
            judge_line(number, parsed, request.currency, limits, seen)
        except ServiceError as refused:
            report = refusal_of(number, payout_id, refused)
            kept.append(BatchLine(line=number, payout_id=report.payout_id, refusal=report.public()))
            continue
        kept.append(BatchLine(line=number, payout_id=parsed.payout_id, request=parsed.model_dump(mode="json")))
        total += parsed.money.value
    now = _now()
    accepted = sum(1 for line in kept if line.request is not None)
    batch = PayoutBatch(
        batch_id=new_id(),
        account_id=account,
        mode=mode,
        key_id=principal.key_id,
        reference=request.reference,
        callback_url=request.callback_url,
        currency=request.currency,
        status=Status.OPEN,
        version=1,
        line_count=len(kept),
        accepted=accepted,
        refused=len(kept) - accepted,
        total=format_amount(total, request.currency),
        created_at=now,
        updated_at=now,
    )
    deps.payout_batches().create(batch, kept, [_event(batch, now)])
    return BatchAnswer.of(batch_view(batch, kept))


# ---------------------------------------------------------------- read
def visible_batch(principal: Principal, batch_id: str) -> PayoutBatch:
    return own(principal, deps.payout_batches().get(batch_id) if is_ulid(batch_id) else None, "payout batch")


def read_batch(principal: Principal, batch_id: str) -> BatchAnswer:
    return _answer(visible_batch(principal, batch_id))


def _answer(batch: PayoutBatch) -> BatchAnswer:
    return BatchAnswer.of(batch_view(batch, deps.payout_batches().lines(batch.batch_id)))


# ---------------------------------------------------------------- lifecycle
def close(principal: Principal, batch_id: str) -> BatchAnswer:
    """open -> closed: the batch is frozen as its report shows it, ready to release."""
    return _move(visible_batch(principal, batch_id), "close", Status.CLOSED)


def _move(batch: PayoutBatch, action: str, status: str, give_back: Decimal | None = None, **more: Any) -> BatchAnswer:
    """`action` takes the batch to `status` (stamped with the time, see STAMP, and `more` changes),
    recorded with its event; `give_back` returns that share of the debit account's daily total."""
    ensure_transition(batch.status, action)
    now = _now()
    changes = {"status": status, **({STAMP[status]: now} if status in STAMP else {}), **more, "updated_at": now}
    event = _event(batch.with_changes(changes), now)
    return _answer(deps.payout_batches().transition(batch, changes, [event], give_back=give_back))


def release(principal: Principal, batch_id: str) -> BatchAnswer:
    """closed -> released (sending follows through the queue), or awaiting_approval above the
    account's approval threshold. The available balance must cover the total, and the debit
    account's daily batch total (rule debit_daily) is raised in the same conditional write:
    above its ceiling 422 limit_exceeded and nothing changes."""
    batch = visible_batch(principal, batch_id)
    ensure_transition(batch.status, "release")
    account, mode, currency, total = batch.account_id, batch.mode, batch.currency, batch.value
    balances = {b.get("currency"): b for b in deps.ledger().balances(account, mode)}
    available = Decimal(str((balances.get(currency) or {}).get("available", 0)))
    if available < total:
        raise ledger.insufficient_balance(currency, total)
    limits = deps.payout_limits().read(account, mode)
    moment = datetime.now(UTC)
    rejection_id = new_id()
    reservation = None
    ceiling = limits.debit_daily.get(currency)
    if ceiling is not None:
        if total > ceiling:
            _reject(batch, debit_refusal(ceiling, currency, rejection_id))
        reservation = Reservation("debit_daily", debit_window(account, mode, currency, moment), total, ceiling)
    status = Status.AWAITING_APPROVAL if needs_approval(limits, currency, total) else Status.RELEASED
    now = iso(moment)
    changes: dict[str, Any] = {"status": status, "updated_at": now}
    if status == Status.RELEASED:
        changes["released_at"] = now
    if reservation is not None:
        changes["reservations"] = (Reserved(key=reservation.key, amount=batch.total),)
    event = _event(batch.with_changes(changes), now)
    try:
        moved = deps.payout_batches().transition(
            batch, changes, [event], reservation, ttl=int(moment.timestamp()) + COUNTER_TTL
        )
    except CeilingReached:
        assert ceiling is not None
        _reject(batch, debit_refusal(ceiling, currency, rejection_id))
    return _answer(moved)


def _reject(batch: PayoutBatch, refusal: ServiceError) -> NoReturn:
    """Record a limit refusal as transaction.rejected (the batch unchanged) and raise it."""
    details = {"batch_id": batch.batch_id, "money": {"amount": batch.total, "currency": batch.currency}}
    rejected(batch.account_id, batch.mode, refusal, details)


def _operator_batch(batch_id: str) -> PayoutBatch:
    return at_home(deps.payout_batches().get(batch_id) if is_ulid(batch_id) else None, "payout batch")


def approve(batch_id: str) -> BatchAnswer:
    """Operators: a batch awaiting approval is released; sending follows through the queue."""
    return _move(_operator_batch(batch_id), "approve", Status.RELEASED)


def reject(batch_id: str, reason: str) -> BatchAnswer:
    """Operators: a batch awaiting approval is refused; nothing is paid and its share of the
    debit account's daily total comes back."""
    batch = _operator_batch(batch_id)
    return _move(batch, "reject", Status.REJECTED, batch.value, failure_message=reason)


# ---------------------------------------------------------------- sending
def send(batch_id: str, remaining_seconds: float | None = None) -> str:
    """One settlement message of a released batch: each accepted line not yet sent becomes a
    payout (made as POST /payouts makes one; refused at sending, e.g. insufficient_balance, it is
    reported on its line), then released -> sent. Resumable at any point: a line whose payout
    exists is replayed by its payout_id. Returns what happened."""
    store = deps.payout_batches()
    batch = store.get(batch_id)
    if batch is None or batch.status != Status.RELEASED:
        return "nothing to do"
    started = datetime.now(UTC)
    limits = deps.payout_limits().read(batch.account_id, batch.mode)
    lines = store.lines(batch_id)
    for line in lines:
        if line.request is None or line.provider_payout_id or line.send_refusal:
            continue
        if remaining_seconds is not None:
            spent = (datetime.now(UTC) - started).total_seconds()
            if spent > remaining_seconds - SEND_MARGIN_SECONDS:
                raise TimeoutError("payout batch sending resumes with the message's next receipt")
        request = PayoutRequest.model_validate(line.request)
        share = tuple(
            Reserved(key=r.key, amount=format_amount(request.money.value, batch.currency))
            for r in batch.reservations or ()
        )
        payer = Payer(batch.account_id, batch.mode, batch.key_id, batch.batch_id, share)
        try:
            made = make_payout(payer, request, limits)
        except ServiceError as refused:
            if refused.status >= 500:
                raise
            report = refusal_of(line.line, line.payout_id, refused).public()
            store.record_line(batch_id, line.line, {"send_refusal": report})
            continue
        store.record_line(batch_id, line.line, {"provider_payout_id": made["provider_payout_id"]})
    lines = store.lines(batch_id)
    failed = [line for line in lines if line.send_refusal is not None]
    unsent = sum((Decimal(str(line.request["money"]["amount"])) for line in failed if line.request), Decimal(0))
    now = _now()
    changes = {
        "status": Status.SENT,
        "sent_count": sum(1 for line in lines if line.provider_payout_id),
        "failed_count": len(failed),
        "sent_at": now,
        "updated_at": now,
    }
    event = _event(batch.with_changes(changes), now)
    try:
        store.transition(batch, changes, [event], give_back=unsent or None)
    except ServiceError as lost:
        if lost.code == "invalid_state":
            return "moved meanwhile"
        raise
    return Status.SENT
