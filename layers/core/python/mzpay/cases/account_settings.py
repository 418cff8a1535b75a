"""A merchant account's own settings (docs/dashboard.md, "Settings"): read, and changed by one of
its people (the dashboard's settings page), on the audit trail with before and after; and whether
its dashboard may be used from an address (its IP allowlist)."""

from __future__ import annotations

from dataclasses import replace

from mzpay import deps
from mzpay.domain.access.principal import Principal
from mzpay.domain.accounts.settings import AccountSettings, SettingsForm, address_refused, admits, parsed
from mzpay.domain.common.clock import now_iso
from mzpay.steps import audit


def read(principal: Principal) -> AccountSettings:
    return deps.account_settings().read(principal.acting_account_id)


def change(principal: Principal, form: SettingsForm, source_ip: str) -> AccountSettings:
    """The settings `form` holds, replacing the account's (400 `validation_error` and nothing
    stored for a field refused: mzpay.domain.accounts.settings.parsed)."""
    store = deps.account_settings()
    before = store.read(principal.acting_account_id)
    audit.observe(
        "account_settings", principal.acting_account_id, account_id=principal.acting_account_id, before=before.public()
    )
    after = replace(parsed(form, source_ip), updated_at=now_iso(), updated_by=principal.key_id)
    store.write(principal.acting_account_id, after)
    audit.observe("account_settings", principal.acting_account_id, after=after.public())
    return after


def require_address_admitted(account_id: str, source_ip: str) -> None:
    """403 `ip_not_allowed` when the account's dashboard IP allowlist leaves `source_ip` out."""
    if not admits(deps.account_settings().read(account_id), source_ip):
        raise address_refused()
