"""Accounts' fee schedules (docs/pricing.md), in the accounts table of the account's home region:
pk ACCOUNT#<id>, sk PRICING, one item for both modes: {fees: [rule...], updated_at}."""

from __future__ import annotations

from typing import Any

from mzpay.domain.payments.pricing import DEFAULT_SCHEDULE, FeeRule, Schedule
from mzpay.store.base import InAccountsTable


def schedule_key(account_id: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": "PRICING"}


class FeeSchedules(InAccountsTable):
    def read(self, account_id: str) -> Schedule:
        """The account's own schedule, else the default one (updated_at None)."""
        item = self.table.get_item(Key=schedule_key(account_id), ConsistentRead=True).get("Item")
        return parse(item) if item else DEFAULT_SCHEDULE

    def write(self, account_id: str, schedule: Schedule) -> None:
        """Replace the account's schedule (a payment captured before keeps the fee it was charged)."""
        fees = [rule.public() for rule in schedule.rules]
        self.table.put_item(Item={**schedule_key(account_id), "fees": fees, "updated_at": schedule.updated_at})


def parse(item: dict[str, Any]) -> Schedule:
    return Schedule(tuple(FeeRule.from_public(rule) for rule in item.get("fees") or []), str(item["updated_at"]))
