"""How a payout ends once its provider answered: paid (the held money leaves), or failed,
canceled or rejected (it comes back); and, for a live payout the provider left without a
definite answer, the reconciliation that asks the provider again on a schedule (as for live
payments: docs/payments.md) until it answers or the horizon passes (then an operator's case).
Shared by settlement, cancel and approval (mzpay.cases.payouts) and the sweep (mzpay.cases.expiry)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.connectors.base import PayoutCall, ProviderResult, RefundReconciling
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money import ledger
from mzpay.domain.payments import expiry
from mzpay.domain.payments.rules import Status as ProviderStatus
from mzpay.domain.payouts.cash_deposits import EVENT_OF_STATUS as EVENT_OF_DEPOSIT_STATUS
from mzpay.domain.payouts.cash_deposits import deposit_view
from mzpay.domain.payouts.rules import Payout, Status, event_kind
from mzpay.domain.payouts.rules import payout_view as view
from mzpay.domain.webhooks.events import Event, entity_event, new_event
from mzpay.observability import count
from mzpay.steps.connectors import payout_connector
from mzpay.steps.payments import reconcile_first


def now_iso() -> str:
    return iso(datetime.now(UTC))


def payout_event(kind: str, payout: Payout, now: str) -> Event:
    return entity_event(kind, payout, "payout", payout.provider_payout_id, view(payout), now, payout.callback_url)


def deposit_events(payout: Payout, now: str, kind: str | None = None) -> list[Event]:
    """A payout that carries a cash deposit announces the deposit too: `kind`, else the event
    of the status it reached (cash_deposit.succeeded or failed; none while it moves on)."""
    if payout.cash_deposit is None:
        return []
    shown = deposit_view(payout)
    kind = kind or EVENT_OF_DEPOSIT_STATUS.get(shown["status"])
    if kind is None:
        return []
    return [
        new_event(
            kind,
            payout.account_id,
            payout.mode,
            "cash_deposit",
            payout.provider_payout_id,
            {"object": shown},
            now,
            payout.cash_deposit.get("callback_url"),
        )
    ]


def payout_entry(payout: Payout, movement: ledger.Movement, event: Event, now: str) -> ledger.Entry:
    return ledger.Entry(
        payout.account_id, payout.mode, payout.currency, movement, event.id, payout.provider_payout_id, now
    )


def end_without_paying(payout: Payout, action: str, status: str, extra: dict[str, Any] | None = None) -> Payout:
    """Canceled, rejected or failed: the held money and the daily totals come back."""
    now = now_iso()
    changes = {"status": status, "updated_at": now, **(extra or {}), **OUT_OF_THE_SWEEP}
    after = payout.with_changes(changes)
    event = payout_event(event_kind(action, status), after, now)
    entry = payout_entry(payout, ledger.released(event.type, payout.value), event, now)
    return deps.payouts().transition(payout, changes, [event, *deposit_events(after, now)], entry, release=True)


# A payout's place in the sweep's index (see domain.payments.expiry), cleared once it ends.
OUT_OF_THE_SWEEP: dict[str, Any] = {"expiry_shard": None, "due_at": None}


def apply_result(payout: Payout, result: ProviderResult, extra: dict[str, Any] | None = None) -> str:
    """The provider's answer to a submitted payout: paid, failed (money back), or for a live
    payout left without a definite answer, its first reconciliation scheduled (`extra`: more
    changes written with a definite answer, e.g. an operator's resolution). Returns what
    happened."""
    if result.status == ProviderStatus.PENDING:
        if payout.mode == "live":
            deps.payouts().transition(payout, {**_reconcile_index(payout), "updated_at": now_iso()}, [])
        count("Payouts", outcome=Status.PENDING, mode=payout.mode)
        return "in transit"  # the provider's answer (reconciliation) ends it; never called twice
    if result.status == ProviderStatus.SUCCEEDED:
        now = now_iso()
        changes = {"status": Status.PAID, "updated_at": now, **OUT_OF_THE_SWEEP, **(extra or {})}
        after = payout.with_changes(changes)
        event = payout_event("payout.paid", after, now)
        entry = payout_entry(payout, ledger.paid_out("payout.paid", payout.value), event, now)
        deps.payouts().transition(payout, changes, [event, *deposit_events(after, now)], entry)
        count("Payouts", outcome=Status.PAID, mode=payout.mode)
        return Status.PAID
    failure = {"failure_code": result.failure_code, "failure_message": result.failure_message}
    end_without_paying(payout, "complete", Status.FAILED, failure | (extra or {}))
    count("Payouts", outcome=Status.FAILED, mode=payout.mode)
    return Status.FAILED


def _reconcile_index(payout: Payout) -> dict[str, Any]:
    due = expiry.reconcile_at(payout.created_at, datetime.now(UTC), reconcile_first())
    return {"expiry_shard": expiry.shard(payout.provider_payout_id), "due_at": due}


def reconcile_payout(payout: Payout) -> int:
    """The sweep: ask the provider what became of a live payout it left in transit; its answer
    ends the payout (1), or the next question is scheduled (0), or after the horizon the payout
    is marked reconciliation gave_up for an operator. Losing a race to another change is fine."""
    try:
        connector = payout_connector(payout.account_id, payout.mode, payout.destination)
        call = PayoutCall(payout.provider_payout_id, payout.value, payout.currency, payout.destination)
        result = connector.payout_status(call) if isinstance(connector, RefundReconciling) else None
        if result is not None and result.status != ProviderStatus.PENDING:
            apply_result(payout, result)
            return 1
        changes = expiry.next_question(payout.created_at, payout.updated_at, datetime.now(UTC), reconcile_first())
        deps.payouts().transition(payout, changes, [])
    except ServiceError as lost:
        if lost.code not in ("invalid_state", "no_connector_binding", "not_supported"):
            raise
    return 0
