"""The gateway account a business collects through (docs/onboarding.md, "From approval to
collecting"): its payment links' checkouts and its customers' transactions are payments of the
gateway account with the business account's own id, in this region. The approval opens it; every
step here is a conditional write keyed by that id, so approving twice, two racing approvals or a
retry after a fault mid-way all end with one account and one first signing secret per mode."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.config import settings
from mzpay.domain.accounts.residency import ensure_home
from mzpay.domain.accounts.tenants import AccountStatus
from mzpay.domain.common.bounds import MAX_NAME
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_id
from mzpay.domain.webhooks.secrets import SecretVersion, generate_secret
from mzpay.store.aws import landed
from mzpay.store.directory import Account

MODES = ("test", "live")


def open_collecting_account(account_id: str, name: str) -> Account:
    """The business's gateway account, created active in this region when it does not exist yet
    (a gateway account with this id that an operator made first is kept: the local demo's), with
    a first webhook signing secret per mode when the account has none (its collection requests'
    callbacks are signed with it). 421 wrong_region when the id's account lives elsewhere."""
    directory = deps.directory()
    account = directory.get_account(account_id)
    if account is None:
        now = iso(datetime.now(UTC))
        new = Account(account_id, name[:MAX_NAME], settings().service_region, AccountStatus.ACTIVE, "", now, now)
        # refused: a racing approval made it first, and that one is the account
        account = new if landed(lambda: directory.create_account(new)) else directory.get_account(account_id) or new
    ensure_home(account.home_region, "collection")
    for mode in MODES:
        _first_secret(account_id, mode)
    return account


def _first_secret(account_id: str, mode: str) -> None:
    """A signing secret for (account, mode) unless it has one; a racing writer's stays."""
    store = deps.webhook_secrets()
    versions, read_version = store.read(account_id, mode)
    if versions:
        return
    secret = SecretVersion(new_id(), store.encrypt(generate_secret(), account_id), datetime.now(UTC), None)
    try:
        store.write(account_id, mode, [secret], read_version)
    except ServiceError as lost:  # 409: another approval wrote its first secret meanwhile
        if lost.status != 409:
            raise
