"""The scheduled sweep (PaymentExpiryFunction): expire payments past their deadline, ask providers
about live payments, refunds and payouts and billers' suppliers about bill payments left pending
(reconciliation), and finish charges and refunds whose creating request never reached the provider."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from mzpay import deps
from mzpay.connectors.base import Reconciling
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments import expiry
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, Status
from mzpay.domain.payouts.rules import Payout
from mzpay.steps.bill_outcomes import reconcile_bill_payment
from mzpay.steps.payments import (
    apply_outcome,
    connector_of,
    current,
    provider_call,
    reconcile_first,
    resume,
)
from mzpay.steps.payout_outcomes import reconcile_payout
from mzpay.steps.refunds import reconcile_refund, reconciling, resume_refund


@dataclass(frozen=True)
class SweepTally:
    """What one sweep did: payments expired, pending ones reconciled with their provider, stalled
    ones resumed, and the reconciliation cases left open for an operator."""

    expired: int
    reconciled: int
    resumed: int
    operator_cases: int


def expire_due(limit: int = 100) -> SweepTally:
    """The scheduled sweep (PaymentExpiryFunction): expire every waiting payment whose deadline
    passed, and ask the provider about live payments left pending."""
    expired = reconciled = resumed = 0
    for payment in deps.payments().due_for_expiry(expiry.iso(datetime.now(UTC)), expiry.SHARDS, limit):
        if isinstance(payment, Payout):
            reconciled += reconcile_payout(payment)
        elif isinstance(payment, BillPayment):
            reconciled += reconcile_bill_payment(payment)
        elif isinstance(payment, Refund) and reconciling(payment):
            reconciled += reconcile_refund(payment)
        elif isinstance(payment, Refund):
            resumed += resume_refund(payment)
        elif expiry.abandoned(payment, datetime.now(UTC)):
            resumed += _resume_abandoned(payment)
        elif payment.status == Status.PENDING and payment.mode == "live":
            reconciled += _reconcile(payment)
        elif current(payment).status == Status.EXPIRED and payment.status != Status.EXPIRED:
            expired += 1
    waiting = deps.payments().open_reconciliation_cases()
    return SweepTally(expired=expired, reconciled=reconciled, resumed=resumed, operator_cases=waiting)


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
        deps.payments().transition(
            payment, expiry.next_question(payment.created_at, payment.updated_at, now, reconcile_first()), []
        )
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "no_connector_binding"):
            raise
    return 0
