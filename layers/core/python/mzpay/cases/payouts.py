"""Payouts: create (answered at once, pending or waiting for approval), settle (driven by the
PayoutSettlementQueue that the event dispatcher feeds from payout.created / payout.approved),
approve, reject, cancel. Every step is a conditional transition with its event; the money is
held in the ledger when the payout is created and leaves (paid) or comes back (failed,
canceled, rejected) when it ends. See docs/payouts.md."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.limits import PayoutLimits as PayoutLimitsShown
from mzpay.answers.payouts import Payout as PayoutAnswer
from mzpay.connectors.base import PayoutCall
from mzpay.domain.access.principal import Principal, customer_of_create, ensure_customer_visible, own
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.payouts.rules import Payout, PayoutRequest, Status, check_payout, ensure_transition, event_kind
from mzpay.domain.payouts.rules import payout_view as view
from mzpay.steps import audit
from mzpay.steps.accounts import at_home, home_account
from mzpay.steps.connectors import payout_connector
from mzpay.steps.limit_edits import edit_limits, read_limits
from mzpay.steps.payout_creation import Payer, make_payout
from mzpay.steps.payout_outcomes import apply_result, end_without_paying, now_iso, payout_event


# ---------------------------------------------------------------- create
def create_payout(principal: Principal, request: PayoutRequest) -> PayoutAnswer:
    """Validate, check the limits, hold the money and answer at once (pending, or waiting for
    approval above the account's threshold); settlement follows through the queue."""
    check_payout(request)
    customer_id = customer_of_create(principal)  # ?customer_id=: required of a key restricted to customers
    payer = Payer(principal.acting_account_id, principal.mode, principal.key_id, customer_id=customer_id)
    return PayoutAnswer.of(make_payout(payer, request))


# ---------------------------------------------------------------- read
def visible_payout(principal: Principal, provider_payout_id: str) -> Payout:
    payout = deps.payouts().get(provider_payout_id) if is_ulid(provider_payout_id) else None
    payout = own(principal, payout, "payout")
    ensure_customer_visible(principal, payout.customer_id, ServiceError(404, "not_found", "No such payout."))
    return payout


def read_payout(principal: Principal, provider_payout_id: str) -> PayoutAnswer:
    return PayoutAnswer.of(view(visible_payout(principal, provider_payout_id)))


# ---------------------------------------------------------------- lifecycle
def cancel(principal: Principal, provider_payout_id: str) -> PayoutAnswer:
    """The merchant cancels while pending, or in transit before the provider was called."""
    payout = visible_payout(principal, provider_payout_id)
    ensure_transition(payout.status, "cancel", payout.submitted)
    return PayoutAnswer.of(view(end_without_paying(payout, "cancel", Status.CANCELED)))


def _operator_payout(provider_payout_id: str) -> Payout:
    return at_home(deps.payouts().get(provider_payout_id) if is_ulid(provider_payout_id) else None, "payout")


def approve(provider_payout_id: str) -> PayoutAnswer:
    """Operators: a payout waiting for approval goes on to settlement."""
    payout = _operator_payout(provider_payout_id)
    ensure_transition(payout.status, "approve")
    now = now_iso()
    changes = {"status": Status.PENDING, "updated_at": now}
    event = payout_event(event_kind("approve", Status.PENDING), payout.with_changes(changes), now)
    approved = view(deps.payouts().transition(payout, changes, [event]))
    audit.observe("payout", provider_payout_id, account_id=payout.account_id, before=view(payout), after=approved)
    return PayoutAnswer.of(approved)


def reject(provider_payout_id: str, reason: str) -> PayoutAnswer:
    """Operators: a payout waiting for approval is refused; its money comes back."""
    payout = _operator_payout(provider_payout_id)
    ensure_transition(payout.status, "reject")
    rejected = view(
        end_without_paying(payout, "reject", Status.REJECTED, {"failure_code": "rejected", "failure_message": reason})
    )
    audit.observe("payout", provider_payout_id, account_id=payout.account_id, before=view(payout), after=rejected)
    return PayoutAnswer.of(rejected)


def settle(provider_payout_id: str) -> str:
    """One settlement message: pending -> in_transit -> (provider claimed) -> paid | failed.
    Each step is conditional, so duplicate messages and cancels racing it are harmless, and the
    provider is called at most once (never again once `submitted`). Returns what happened."""
    payout = deps.payouts().get(provider_payout_id)
    if payout is None or payout.status != Status.PENDING:
        return "nothing to do"
    # Before anything moves: a connector that cannot be built fails this message (retried), not
    # a payout left in transit that no provider was ever asked to pay.
    connector = payout_connector(payout.account_id, payout.mode, payout.destination)
    try:
        now = now_iso()
        changes: dict[str, Any] = {"status": Status.IN_TRANSIT, "updated_at": now}
        payout = deps.payouts().transition(
            payout, changes, [payout_event("payout.in_transit", payout.with_changes(changes), now)]
        )
        now = now_iso()
        changes = {"submitted": True, "updated_at": now}
        payout = deps.payouts().transition(
            payout, changes, [payout_event("payout.submitted", payout.with_changes(changes), now)]
        )
    except ServiceError as lost:
        if lost.code == "invalid_state":
            return "moved meanwhile"
        raise
    call = PayoutCall(payout.provider_payout_id, payout.value, payout.currency, payout.destination)
    return apply_result(payout, connector.payout(call))


def set_payout_limits(account_id: str, mode: str, limits: PayoutLimits) -> PayoutLimitsShown:
    """Operators: an account's payout limits in a mode (replacing the previous ones)."""
    account = home_account(account_id)
    deps.payout_limits().write(account.account_id, mode, limits)
    return PayoutLimitsShown.of({"account_id": account.account_id, "mode": mode, **limits.public()})


def payout_limits(account_id: str, mode: str) -> PayoutLimitsShown:
    """Operators: an account's payout limits in a mode, as set (none set: no limit)."""
    return PayoutLimitsShown.of(read_limits(deps.payout_limits(), account_id, mode))


def edit_payout_limits(
    account_id: str, mode: str, currency: str, changes: Mapping[str, Decimal | None]
) -> PayoutLimitsShown:
    """Operators (the console): one currency's payout limits of an account in a mode edited, the
    others kept (domain.accounts.limits.edited); audited with the limits before and after."""
    return PayoutLimitsShown.of(edit_limits(deps.payout_limits(), account_id, mode, currency, changes))
