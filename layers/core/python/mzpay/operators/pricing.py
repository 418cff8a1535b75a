"""Operators: an account's fee schedule (docs/pricing.md), read and replaced through the management API."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers.pricing import FeeSchedule
from mzpay.domain.common.clock import now_iso
from mzpay.domain.operators import audit
from mzpay.domain.payments.pricing import FeeRule, Schedule
from mzpay.steps.accounts import home_account


def fee_schedule(account_id: str) -> FeeSchedule:
    """The account's schedule, or the default one when it has none of its own."""
    account = home_account(account_id)
    return _shown(account.account_id, deps.fee_schedules().read(account.account_id))


def set_fee_schedule(account_id: str, rules: tuple[FeeRule, ...]) -> FeeSchedule:
    """Replace the account's schedule; it applies to payments captured from now on (the fee of a
    payment captured before is kept on that payment)."""
    account = home_account(account_id)
    schedules = deps.fee_schedules()
    before = _shown(account.account_id, schedules.read(account.account_id))
    schedule = Schedule(rules, now_iso())
    schedules.write(account.account_id, schedule)
    after = _shown(account.account_id, schedule)
    audit.observe(
        "fee_schedule",
        account.account_id,
        account_id=account.account_id,
        before=before.model_dump(mode="json"),
        after=after.model_dump(mode="json"),
    )
    return after


def set_fee_rule(account_id: str, rule: FeeRule) -> FeeSchedule:
    """Replace the rule of `rule`'s method and currency (or add it), keeping the others (the console)."""
    account = home_account(account_id)
    kept = deps.fee_schedules().read(account.account_id).rules
    others = tuple(r for r in kept if (r.method, r.currency) != (rule.method, rule.currency))
    return set_fee_schedule(account.account_id, (*others, rule))


def _shown(account_id: str, schedule: Schedule) -> FeeSchedule:
    return FeeSchedule.of(
        {
            "account_id": account_id,
            "default": schedule.updated_at is None,
            "fees": [rule.public() for rule in schedule.rules],
            "updated_at": schedule.updated_at,
        }
    )
