"""An operator's edit of one currency's limits of an account in a mode (the console's limits
forms, docs/console.md): the stored limits read, edited by domain.accounts.limits.edited (the
limits not edited kept), written back and audited with the limits before and after."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from mzpay.domain.accounts.limits import edited
from mzpay.steps import audit
from mzpay.steps.accounts import home_account

Limits = TypeVar("Limits")


class LimitsStore(Protocol[Limits]):
    def read(self, account_id: str, mode: str) -> Limits: ...

    def write(self, account_id: str, mode: str, limits: Limits, /) -> None: ...


def read_limits(store: LimitsStore[Any], account_id: str, mode: str) -> dict[str, Any]:
    """The account's limits in `mode` as set (none set: no limit), as shown (with the account and mode)."""
    account = home_account(account_id)
    return {"account_id": account.account_id, "mode": mode, **store.read(account.account_id, mode).public()}


def edit_limits(
    store: LimitsStore[Any], account_id: str, mode: str, currency: str, changes: Mapping[str, Decimal | None]
) -> dict[str, Any]:
    """The account's limits in `mode` with `currency`'s `changes` made; answers them as shown
    (with the account and mode)."""
    account = home_account(account_id)
    before = store.read(account.account_id, mode)
    after = edited(before, currency, changes)
    store.write(account.account_id, mode, after)
    audit.observe(
        "account", account.account_id, account_id=account.account_id, before=before.public(), after=after.public()
    )
    return {"account_id": account.account_id, "mode": mode, **after.public()}
