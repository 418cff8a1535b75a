"""Operators: the live payments, refunds and payouts whose provider never answered within the
reconciliation horizon (reconciliation gave_up, in the expiry index's ATTENTION partition), and
their manual resolution. A resolution applies the outcome the operator established with the
provider exactly as the provider's own answer would have been applied (events, ledger,
webhooks), in the same conditional write as its audit record (`resolution`: outcome, note,
who, from where, when); of two racing resolutions one wins, the other is 409 invalid_state."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers import reconciliation as answers
from mzpay.connectors.base import ProviderResult
from mzpay.connectors.bill_suppliers import SupplierPayment
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.ids import is_ulid, is_uuid
from mzpay.domain.common.page_tokens import decode, encode
from mzpay.domain.payments import expiry
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, Status
from mzpay.domain.payouts.rules import Payout
from mzpay.steps import audit as trail
from mzpay.steps.accounts import home_account
from mzpay.steps.bill_outcomes import apply_answer
from mzpay.steps.payments import apply_outcome
from mzpay.steps.payout_outcomes import apply_result
from mzpay.steps.refunds import settle

RESOLVED_FAILURE = ("resolved_failed", "An operator established with the provider that this did not go through.")
MAX_PAGE = 100


Case = Payment | Refund | Payout | BillPayment


def _kind(entity: Case) -> str:
    if isinstance(entity, BillPayment):
        return "bill_payment"
    return "refund" if isinstance(entity, Refund) else "payout" if isinstance(entity, Payout) else "payment"


def _id(entity: Case) -> str:
    if isinstance(entity, BillPayment):
        return entity.payment_id
    if isinstance(entity, Refund):
        return entity.provider_refund_id
    if isinstance(entity, Payout):
        return entity.provider_payout_id
    return entity.provider_payment_id


def case_view(entity: Case) -> answers.ReconciliationCase:
    """A reconciliation case as operators read it."""
    return answers.ReconciliationCase.of(
        {
            "object": _kind(entity),
            "id": _id(entity),
            "account_id": entity.account_id,
            "mode": entity.mode,
            "status": entity.status,
            "amount": entity.channel_debit if isinstance(entity, BillPayment) else entity.amount,
            "currency": entity.currency,
            "created_at": entity.created_at,
            "reconciliation": entity.reconciliation,
            "waiting_since": entity.due_at if entity.reconciliation == expiry.GAVE_UP else None,
            "resolution": entity.resolution,
        }
    )


def list_cases(limit: int = 50, page_token: str | None = None) -> answers.ReconciliationCaseList:
    """GET /v1/reconciliation-cases: what waits for an operator in this region, oldest first."""
    after = None
    if page_token:
        after = decode(page_token, _a_case_key)
        if after is None:
            raise invalid_field("page_token", "not a page of this list")
    found, last = deps.payments().reconciliation_cases(min(max(limit, 1), MAX_PAGE), after)
    return answers.ReconciliationCaseList(
        object="list",
        data=[case_view(entity) for entity in found],
        has_more=last is not None,
        next_page_token=encode(last) if last is not None else None,
    )


def _a_case_key(key: dict[str, str]) -> bool:
    """A start key of the ATTENTION partition (the expiry index's keys, nothing else)."""
    return set(key) == {"pk", "sk", "expiry_shard", "due_at"} and key["expiry_shard"] == expiry.ATTENTION


def _find(object_id: str) -> Case:
    found: Case | None = None
    if is_ulid(object_id):
        found = deps.payments().get(object_id) or deps.refunds().get(object_id) or deps.payouts().get(object_id)
    elif is_uuid(object_id):
        found = deps.bill_payments().get(object_id)
    if found is None:
        raise ServiceError(404, "not_found", "No such payment, refund or payout.")
    home_account(found.account_id)  # served by the account's home region only
    return found


def read_case(object_id: str) -> answers.ReconciliationCase:
    """GET /v1/reconciliation-cases/{id}: a case, open or resolved (with its audit record)."""
    return case_view(_find(object_id))


def resolve(object_id: str, outcome: str, note: str, source_ip: str) -> answers.ReconciliationCase:
    """POST /v1/reconciliation-cases/{id}/resolve: apply `outcome` (succeeded | failed) to an
    object waiting for an operator; anything else is 409 invalid_state."""
    entity = _find(object_id)
    if entity.reconciliation != expiry.GAVE_UP:
        raise ServiceError(409, "invalid_state", f"This {_kind(entity)} is not waiting for an operator.")
    now = iso(datetime.now(UTC))
    audit = {
        "reconciliation": expiry.RESOLVED,
        "resolution": {"outcome": outcome, "note": note, "by": "operator", "source_ip": source_ip, "at": now},
    }
    succeeded = outcome == "succeeded"
    result = ProviderResult(
        Status.SUCCEEDED if succeeded else Status.FAILED,
        None,
        None if succeeded else RESOLVED_FAILURE[0],
        None if succeeded else RESOLVED_FAILURE[1],
        captured=succeeded,
    )
    if isinstance(entity, BillPayment):
        answer = SupplierPayment(result.status, None, None, result.failure_code, result.failure_message)
        after: Case = apply_answer(entity, answer, audit)
    elif isinstance(entity, Refund):
        after = settle(entity, result.status, result.failure_code, result.failure_message, audit)
    elif isinstance(entity, Payout):
        apply_result(entity, result, audit)
        after = deps.payouts().get(entity.provider_payout_id) or entity
    else:
        after = apply_outcome(entity, result, now, extra=audit)
    resolved = case_view(after)
    before = case_view(entity).wire()
    trail.observe(_kind(entity), object_id, account_id=entity.account_id, before=before, after=resolved.wire())
    return resolved
