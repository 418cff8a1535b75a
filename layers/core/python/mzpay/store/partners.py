"""The partner flag of an account (docs/deposits.md), on its ACCOUNT item in the directory
(mzpay.store.directory.Account.partner): set by operators, read by the cash-deposit routes."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from mzpay.domain.common.clock import iso
from mzpay.store.base import InDirectoryTable
from mzpay.store.directory import Account


class Partners(InDirectoryTable):
    def set_partner(self, account: Account, partner: bool, now: datetime) -> Account:
        """Mark `account` a partner agent network (or not); the account must still exist."""
        self.table.update_item(
            Key={"pk": f"ACCOUNT#{account.account_id}", "sk": "ACCOUNT"},
            UpdateExpression="SET partner = :partner, updated_at = :now, version = version + :one",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":partner": partner, ":now": iso(now), ":one": 1},
        )
        return dataclasses.replace(account, partner=partner, updated_at=iso(now), version=account.version + 1)
