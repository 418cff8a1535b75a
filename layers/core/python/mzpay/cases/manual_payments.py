"""Manual payments (docs/payments.md, "Manual payments"): the merchant records cash or a bank
deposit it received, with evidence, and may replace the evidence or cancel while the payment is
pending; an operator confirms it (the money enters the ledger, payment.succeeded) or rejects it
(payment.failed). Each move is one conditional transition of the payment with its event."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.payments import PaymentSnapshot
from mzpay.connectors.base import ProviderResult
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import found
from mzpay.domain.common.evidence import EvidenceRequest
from mzpay.domain.common.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.money.amounts import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments.manual import REJECTED, ManualPaymentRequest, OperatorNote, next_status
from mzpay.domain.payments.rules import Payment, Status, amount_error, snapshot
from mzpay.steps import audit
from mzpay.steps.accounts import home_account
from mzpay.steps.checkouts import create_or_replay, replay
from mzpay.steps.payments import apply_outcome, new_payment, payment_event, visible_payment
from mzpay.steps.uploads import admit_evidence


def _folder(payment: Payment) -> str:
    return f"accounts/{payment.account_id}/payments/{payment.provider_payment_id}"


def record(principal: Principal, request: ManualPaymentRequest) -> PaymentSnapshot:
    """POST /v1/manual-payments: a pending payment with its evidence (files kept first)."""
    currency = request.money.currency
    try:
        amount = parse_amount(request.money.amount, currency)
    except InvalidAmount as exc:
        raise amount_error("money.amount", str(exc)) from exc
    if amount <= 0:
        raise amount_error("money.amount", "the amount of a manual payment is more than zero")
    account, mode = principal.acting_account_id, principal.mode
    payment_id = request.payment_id or new_id()
    fingerprint = request_fingerprint(request.model_dump(mode="json"), "manual")
    existing = deps.payments().by_payment_id(account, mode, payment_id) if request.payment_id else None
    if existing is not None:
        return PaymentSnapshot.of(replay(existing, fingerprint))
    now = iso(datetime.now(UTC))
    payment = new_payment(
        principal,
        payment_id,
        currency,
        fingerprint,
        now,
        status=Status.PENDING,
        amount=format_amount(amount, currency),
        country="MZ",
        source=request.source(),
        statement={"description": request.description} if request.description else None,
        callback_url=request.callback_url,
        return_url=request.return_url,
        metadata=request.metadata,
    )
    admit_evidence(account, payment.mode, request.evidence, "evidence.")  # 429 rate_limited over the upload limits
    payment = payment.with_changes(
        {"evidence": deps.evidence_files().keep(_folder(payment), account, request.evidence, "evidence.")}
    )
    return PaymentSnapshot.of(create_or_replay(payment, fingerprint, payment_event("payment.created", payment, now)))


def change_evidence(principal: Principal, provider_payment_id: str, request: EvidenceRequest) -> PaymentSnapshot:
    """PUT /v1/payments/{id}/evidence: only a manual payment, only while pending (409 otherwise,
    checked again by the write's condition)."""
    payment = visible_payment(principal, provider_payment_id)
    next_status(payment, "change the evidence of")
    admit_evidence(payment.account_id, payment.mode, request)  # 429 rate_limited over the upload limits
    evidence = deps.evidence_files().keep(_folder(payment), payment.account_id, request)
    now = iso(datetime.now(UTC))
    changes = {"evidence": evidence, "updated_at": now}
    after = payment.with_changes(changes)
    moved = deps.payments().transition(payment, changes, [payment_event("payment.updated", after, now)])
    return PaymentSnapshot.of(snapshot(moved))


# ---------------------------------------------------------------- operators (management API)
def _operators_payment(provider_payment_id: str) -> Payment:
    payment = found(deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None, "payment")
    home_account(payment.account_id)
    return payment


def confirm(provider_payment_id: str, request: OperatorNote, source_ip: str) -> PaymentSnapshot:
    """POST /v1/payments/{id}/confirm: the evidence holds; the money enters the ledger."""
    payment = _operators_payment(provider_payment_id)
    next_status(payment, "confirm")
    result = ProviderResult(Status.SUCCEEDED, captured=True)
    return PaymentSnapshot.of(snapshot(_decided(payment, result, "succeeded", request, source_ip)))


def reject(provider_payment_id: str, request: OperatorNote, source_ip: str) -> PaymentSnapshot:
    """POST /v1/payments/{id}/reject: the evidence does not hold; the payment fails."""
    payment = _operators_payment(provider_payment_id)
    next_status(payment, "reject")
    result = ProviderResult(Status.FAILED, None, REJECTED[0], REJECTED[1])
    return PaymentSnapshot.of(snapshot(_decided(payment, result, "failed", request, source_ip)))


def _decided(payment: Payment, result: ProviderResult, outcome: str, note: OperatorNote, source_ip: str) -> Payment:
    now = iso(datetime.now(UTC))
    resolution = {"outcome": outcome, "note": note.note, "by": "operator", "source_ip": source_ip, "at": now}
    decided = apply_outcome(payment, result, now, extra={"resolution": resolution})
    audit.observe(
        "payment",
        payment.provider_payment_id,
        account_id=payment.account_id,
        before=snapshot(payment),
        after=snapshot(decided),
    )
    return decided
