"""Disputes (docs/disputes.md): operators open one on a succeeded payment (the money is held),
the merchant answers with evidence once or accepts it, and operators decide it won or lost. Each
move is one conditional transition with its event (webhooks: dispute.created, dispute.won,
dispute.lost to the payment's callback_url) and, when money moves, its ledger entry."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers import disputes as answers
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.evidence import EvidenceRequest
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.money import ledger
from mzpay.domain.payments.disputes import (
    EVENT_OF_STATUS,
    DecideDisputeRequest,
    Dispute,
    OpenDisputeRequest,
    Status,
    disputed_amount,
    evidence_due_by,
    next_status,
    view,
)
from mzpay.domain.payments.rules import Status as PaymentStatus
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.steps import audit
from mzpay.steps.accounts import home_account
from mzpay.steps.uploads import admit_evidence
from mzpay.store.disputes import DisputeMoved, PaymentMoved
from mzpay.store.transitions import rejudged


def _event(dispute: Dispute, now: str) -> Event:
    return new_event(
        EVENT_OF_STATUS[dispute.status],
        dispute.account_id,
        dispute.mode,
        "dispute",
        dispute.dispute_id,
        {"object": view(dispute)},
        now,
        dispute.callback_url,
    )


def _not_found() -> ServiceError:
    return ServiceError(404, "not_found", "No such dispute.")


# ---------------------------------------------------------------- operators (management API)
def open_dispute(request: OpenDisputeRequest) -> answers.Dispute:
    """POST /v1/disputes: a dispute on the account's succeeded payment, its money held at once.
    404 for a payment the account does not have; 409 invalid_state for a payment that did not
    succeed or is disputed already; 422 for an amount beyond what is neither refunded nor
    charged back."""
    home_account(request.account_id)
    payments = deps.payments()
    payment = payments.get(request.provider_payment_id) if is_ulid(request.provider_payment_id) else None
    if payment is None or payment.account_id != request.account_id:
        raise ServiceError(404, "not_found", "The account has no such payment.")
    for _attempt in range(3):
        if payment.status != PaymentStatus.SUCCEEDED:
            raise ServiceError(409, "invalid_state", f"Cannot dispute a payment that is {payment.status}.")
        if payment.open_dispute:
            raise ServiceError(409, "invalid_state", "This payment is disputed already; the dispute is not decided.")
        amount = disputed_amount(request.amount, payment.currency, payment.refundable)
        opened = datetime.now(UTC)
        now = iso(opened)
        dispute = Dispute(
            dispute_id=new_id(),
            account_id=payment.account_id,
            mode=payment.mode,
            provider_payment_id=payment.provider_payment_id,
            status=Status.NEEDS_RESPONSE,
            version=1,
            amount=str(amount),
            currency=payment.currency,
            reason=request.reason,
            provider_reference=request.provider_reference,
            callback_url=payment.callback_url,
            evidence_due_by=iso(evidence_due_by(opened)),
            created_at=now,
            updated_at=now,
        )
        created = _event(dispute, now)
        held = ledger.Entry(
            dispute.account_id,
            dispute.mode,
            dispute.currency,
            ledger.taken_back("dispute.created", amount),
            created.id,
            dispute.dispute_id,
            now,
        )
        try:
            deps.disputes().open(dispute, payment, [created], held)
        except PaymentMoved:  # a refund, another dispute or a status change landed first: judge anew
            payment = payments.get(payment.provider_payment_id) or payment
            continue
        audit.observe("dispute", dispute.dispute_id, account_id=dispute.account_id, after=view(dispute))
        return answers.Dispute.of(view(dispute))
    raise ServiceError(503, "processing_error", "The payment keeps changing; retry.", headers={"Retry-After": "1"})


def _operators_dispute(dispute_id: str) -> Dispute:
    dispute = deps.disputes().get(dispute_id) if is_ulid(dispute_id) else None
    if dispute is None:
        raise _not_found()
    home_account(dispute.account_id)
    return dispute


def read_for_operator(dispute_id: str) -> answers.Dispute:
    """GET /v1/disputes/{id} (management): any account's dispute of this region."""
    return answers.Dispute.of(view(_operators_dispute(dispute_id)))


def decide(dispute_id: str, request: DecideDisputeRequest, source_ip: str) -> answers.Dispute:
    """POST /v1/disputes/{id}/decide: won gives the held money back to the merchant, lost pays
    it to the payer; only an open dispute (else 409 invalid_state), with the audit record."""
    dispute = _operators_dispute(dispute_id)
    decision = {"outcome": request.outcome, "note": request.note, "by": "operator", "source_ip": source_ip}
    decided = view(_move(dispute, request.outcome, {"decision": decision}))
    audit.observe("dispute", dispute_id, account_id=dispute.account_id, before=view(dispute), after=decided)
    return answers.Dispute.of(decided)


# ---------------------------------------------------------------- the merchant (gateway)
def _merchants_dispute(principal: Principal, dispute_id: str) -> Dispute:
    """The dispute if it is the caller's (else 404) in the key's mode (else 401)."""
    return own(principal, deps.disputes().get(dispute_id) if is_ulid(dispute_id) else None, "dispute")


def read(principal: Principal, dispute_id: str) -> answers.Dispute:
    return answers.Dispute.of(view(_merchants_dispute(principal, dispute_id)))


def accept(principal: Principal, dispute_id: str) -> answers.Dispute:
    """POST /v1/disputes/{id}/accept: the merchant concedes; the payer keeps the money (lost)."""
    dispute = _merchants_dispute(principal, dispute_id)
    return answers.Dispute.of(view(_move(dispute, "accept", {"decision": {"outcome": Status.LOST, "by": "merchant"}})))


def submit_evidence(principal: Principal, dispute_id: str, request: EvidenceRequest) -> answers.Dispute:
    """POST /v1/disputes/{id}/evidence: given once while the dispute needs a response (later,
    409 invalid_state); the files are kept in the uploads bucket with their SHA-256."""
    dispute = _merchants_dispute(principal, dispute_id)
    next_status(dispute.status, "submit_evidence")  # refused before any file is written
    admit_evidence(dispute.account_id, dispute.mode, request)
    folder = f"accounts/{dispute.account_id}/disputes/{dispute.dispute_id}"
    evidence = deps.evidence_files().keep(folder, dispute.account_id, request)
    return answers.Dispute.of(view(_move(dispute, "submit_evidence", {"evidence": evidence})))


# ---------------------------------------------------------------- one move of the lifecycle
def _move(first: Dispute, action: str, record: dict[str, Any]) -> Dispute:
    """`action` applied to the dispute, as read by the caller's check (`first`), then as it is
    now after each lost race (judged again, so a second decision meets the first one's status:
    409 invalid_state)."""
    unread = [first]

    def read() -> Dispute:
        if unread:
            return unread.pop()
        return deps.disputes().get(first.dispute_id) or _raise_not_found()

    def write(dispute: Dispute) -> Dispute:
        after_status = next_status(dispute.status, action)
        now = iso(datetime.now(UTC))
        stamped = {k: ({**v, "at": now} if isinstance(v, dict) else v) for k, v in record.items()}
        changes = {"status": after_status, "updated_at": now, **stamped}
        after = dispute.with_changes(changes)
        event = _event(after, now)
        entry, charged_back = None, None
        if after_status == Status.WON:
            entry = ledger.released("dispute.won", dispute.value)
        elif after_status == Status.LOST:
            entry, charged_back = ledger.paid_out("dispute.lost", dispute.value), dispute.value
        kept = None
        if entry is not None:
            kept = ledger.Entry(
                dispute.account_id, dispute.mode, dispute.currency, entry, event.id, dispute.dispute_id, now
            )
        return deps.disputes().transition(dispute, changes, [event], kept, charged_back)

    return rejudged(read, write, DisputeMoved, "dispute")


def _raise_not_found() -> Dispute:
    raise _not_found()
