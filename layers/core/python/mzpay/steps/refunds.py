"""Steps of a refund shared by its creation and the sweep: its answer (RefundResult) and event, the
provider's outcome settled with its ledger movement, and `resume` for a refund its creating
request wrote but never submitted."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.connectors.base import Refunding, RefundReconciling
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money import ledger
from mzpay.domain.payments import expiry
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Status
from mzpay.domain.webhooks.events import Event, entity_event
from mzpay.observability import count
from mzpay.steps.payments import connector_of, provider_call, reconcile_first


def refund_result(refund: Refund) -> dict[str, Any]:
    """RefundResult."""
    return {
        "refund_id": refund.refund_id,
        "provider_refund_id": refund.provider_refund_id,
        "provider_payment_id": refund.provider_payment_id,
        "status": refund.status,
        "money": {"amount": refund.amount, "currency": refund.currency},
        "reason": refund.reason,
        "failure_code": refund.failure_code,
        "failure_message": refund.failure_message,
        "processed_at": refund.updated_at,
    }


def refund_event(kind: str, refund: Refund, now: str) -> Event:
    return entity_event(
        kind, refund, "refund", refund.provider_refund_id, refund_result(refund), now, refund.callback_url
    )


def settle(
    refund: Refund,
    status: str,
    failure_code: str | None,
    failure_message: str | None,
    extra: dict[str, Any] | None = None,
) -> Refund:
    """The provider's answer applied (`extra`: more changes written with it, e.g. an operator's
    resolution)."""
    now = now_iso()
    if status == Status.PENDING:  # the provider has it: never submitted again
        waiting = {**SUBMITTED, "updated_at": now}
        if refund.mode == "live":  # no definite answer: reconciliation asks the provider on a schedule
            due = expiry.reconcile_at(refund.created_at, datetime.now(UTC), reconcile_first())
            waiting |= {"expiry_shard": expiry.shard(refund.provider_refund_id), "due_at": due}
        settled = deps.refunds().settle(refund, waiting, [], None, Decimal(0))
        count("Refunds", outcome=Status.PENDING, mode=refund.mode)
        return settled
    amount = refund.value
    changes = {
        "status": status,
        "failure_code": failure_code,
        "failure_message": failure_message,
        "updated_at": now,
        **SUBMITTED,
        **(extra or {}),
    }
    after = refund.with_changes(changes)
    event = refund_event(f"refund.{status}", after, now)
    if status == Status.SUCCEEDED:
        movement, give_back = ledger.paid_out("refund.succeeded", amount), Decimal(0)
    else:
        movement, give_back = ledger.released("refund.failed", amount), amount
    entry = ledger.Entry(
        refund.account_id, refund.mode, refund.currency, movement, event.id, refund.provider_refund_id, now
    )
    settled = deps.refunds().settle(refund, changes, [event], entry, give_back)
    count("Refunds", outcome=status, mode=refund.mode)
    return settled


# A refund's submission lease and its place in the sweep's index, cleared by the provider's answer.
SUBMITTED: dict[str, Any] = {"submit_lease_until": None, "expiry_shard": None, "due_at": None}


def submitting(mode: str, provider_refund_id: str) -> dict[str, Any]:
    """Written with a new refund: the lease of its creating request (expiry.SUBMIT_LEASE), and the
    sweep's index entry that finds it if that request never reaches the provider."""
    lease = expiry.submission_lease(mode, datetime.now(UTC))
    return {"submit_lease_until": lease, "due_at": lease, "expiry_shard": expiry.shard(provider_refund_id)}


def resume(refund: Refund) -> Refund:
    """Finish a refund whose creating request wrote it (the money held) but never recorded the
    provider's answer, once its submission lease ended: one conditional write claims it (a
    concurrent retry or sweep loses and sees it as it is), then the provider is asked to refund."""
    now = datetime.now(UTC)
    if not expiry.abandoned(refund, now):
        return refund
    lease = expiry.submission_lease(refund.mode, now)
    try:
        claimed = deps.refunds().settle(refund, {"submit_lease_until": lease, "due_at": lease}, [], None, Decimal(0))
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        return deps.refunds().get(refund.provider_refund_id) or refund
    payment = deps.payments().get(refund.provider_payment_id)
    if payment is None:
        raise RuntimeError(f"refund {refund.provider_refund_id} has no payment")
    connector = connector_of(payment)
    if not isinstance(connector, Refunding):  # checked at creation; a binding changed since
        return settle(claimed, Status.FAILED, "not_supported", "The provider can no longer refund this payment.")
    result = connector.refund(provider_call(payment), refund.value, refund.provider_refund_id)
    return settle(claimed, result.status, result.failure_code, result.failure_message)


def resume_refund(refund: Refund) -> int:
    """The sweep: a refund its creating request left unsubmitted is submitted (1 when it was)."""
    try:
        after = resume(refund)
    except ServiceError as refused:
        if refused.code not in ("invalid_state", "no_connector_binding"):
            raise
        return 0
    return int(after.version != refund.version)


def reconciling(refund: Refund) -> bool:
    """A live refund its provider has (submitted) but has not settled: the sweep asks about it."""
    return refund.mode == "live" and refund.status == Status.PENDING and refund.submit_lease_until is None


def reconcile_refund(refund: Refund) -> int:
    """The sweep: ask the provider what became of a live refund it left pending; its answer
    settles the refund (1), or the next question is scheduled (0), or after the horizon the
    refund is marked reconciliation gave_up for an operator. Losing a race is fine."""
    try:
        payment = deps.payments().get(refund.provider_payment_id)
        if payment is None:
            raise RuntimeError(f"refund {refund.provider_refund_id} has no payment")
        connector = connector_of(payment)
        result = (
            connector.refund_status(provider_call(payment), refund.provider_refund_id)
            if isinstance(connector, RefundReconciling)
            else None
        )
        if result is not None and result.status != Status.PENDING:
            settle(refund, result.status, result.failure_code, result.failure_message)
            return 1
        changes = expiry.next_question(refund.created_at, refund.updated_at, datetime.now(UTC), reconcile_first())
        deps.refunds().settle(refund, changes, [], None, Decimal(0))
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "no_connector_binding"):
            raise
    return 0
