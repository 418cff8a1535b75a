"""The scheduled sweep (PaymentExpiryFunction): expire payments past their deadline, ask providers
about live payments left pending (reconciliation), and finish charges and refunds whose creating
request never reached the provider."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

from mzpay import deps
from mzpay.connectors.base import Reconciling
from mzpay.domain import expiry
from mzpay.domain.clock import now_iso
from mzpay.domain.errors import ServiceError
from mzpay.domain.payments import Payment, Status
from mzpay.domain.refunds import Refund
from mzpay.steps.payments import (
    apply_outcome,
    connector_of,
    current,
    provider_call,
    resume,
)
from mzpay.steps.refunds import resume_refund  # the sweep also finishes refunds left unsubmitted


def expire_due(limit: int = 100) -> dict[str, int]:
    """The scheduled sweep (PaymentExpiryFunction): expire every waiting payment whose deadline
    passed, and ask the provider about live payments left pending."""
    expired = reconciled = resumed = 0
    for payment in deps.payments().due_for_expiry(expiry.iso(datetime.now(UTC)), expiry.SHARDS, limit):
        if isinstance(payment, Refund):
            resumed += resume_refund(payment)
        elif expiry.abandoned(payment, datetime.now(UTC)):
            resumed += _resume_abandoned(payment)
        elif payment.status == Status.PENDING and payment.mode == "live":
            reconciled += _reconcile(payment)
        elif current(payment).status == Status.EXPIRED and payment.status != Status.EXPIRED:
            expired += 1
    return {"expired": expired, "reconciled": reconciled, "resumed": resumed}


def _resume_abandoned(payment: Payment) -> int:
    """The sweep's share of `resume`: a test charge is submitted to the simulator (its outcome is
    the request's own); a live one is never pushed to a payer minutes later: the provider is
    asked, and a charge it never received fails with failure_code not_received."""
    try:
        after = resume(payment, submit=payment.mode == "test")
    except ServiceError as refused:
        if refused.code not in ("invalid_state", "no_connector_binding"):
            raise
        return 0
    return int(after.status != Status.PENDING or after.submit_lease_until is None)


def _reconcile(payment: Payment) -> int:
    """Ask the provider what became of a live payment left pending: its answer is applied like a
    charge's (1), or the next question is scheduled (0). Losing a race to another change is fine."""
    now = datetime.now(UTC)
    try:
        connector = connector_of(payment)
        result = connector.status(provider_call(payment)) if isinstance(connector, Reconciling) else None
        if result is not None and result.status != Status.PENDING:
            apply_outcome(payment, result, now_iso())
            return 1
        first = os.environ.get("RECONCILE_FIRST_SECONDS")
        next_at = expiry.reconcile_at(
            payment.created_at, now, timedelta(seconds=int(first)) if first else expiry.RECONCILE_FIRST
        )
        changes: dict[str, Any] = {"due_at": next_at, "updated_at": payment.updated_at}
        if next_at is None:  # 72 h without an answer: an operator's case now
            changes |= {"expiry_shard": None, "reconciliation": "gave_up"}
        deps.payments().transition(payment, changes, [])
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "no_connector_binding"):
            raise
    return 0
