"""The dashboard's settings page (docs/dashboard.md, "Settings"): the account's brand colour,
its messages' language and sender name, and its dashboard users' IP allowlist, read and changed
by an owner or administrator (`settings:write`) through mzpay.cases.account_settings; and the
allowlist applied to every dashboard request of the account's users, sign-in included."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mzpay.dashboard.home import acting
from mzpay.domain.common.card_data import holds_card_number
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports

if TYPE_CHECKING:
    from mzpay.domain.accounts.settings import AccountSettings

with deferred_imports():
    from mzpay.cases import access, account_settings
    from mzpay.domain.accounts.settings import SettingsForm

FIELDS = ("brand_colour", "notification_language", "sender_name", "dashboard_ip_allowlist")


def read(session: Session) -> AccountSettings:
    return account_settings.read(acting(session, "settings:write"))


def shown(session: Session, saved: bool) -> dict[str, Any]:
    """The page's context: the settings as the form shows them, and whether a change was saved."""
    settings = read(session)
    values = {
        "brand_colour": settings.brand_colour or "",
        "notification_language": settings.notification_language,
        "sender_name": settings.sender_name or "",
        "dashboard_ip_allowlist": "\n".join(settings.dashboard_ip_allowlist),
    }
    account = access.get_account(session.account_id)  # what GET /v1/accounts/{id} answers operators
    return {"values": values, "settings": settings, "saved": saved, "account": account}


def typed(session: Session | None, fields: dict[str, str]) -> dict[str, Any]:
    """A refused form's context: what was typed again (nothing was stored); for a role that may not
    change the settings, nothing but the refusal."""
    if session is None or not roles.allows(session.role, "settings:write"):
        return {"values": None, "settings": None, "saved": False, "account": None}
    values = {name: fields.get(name, "")[:4000] for name in FIELDS}
    values = {name: "" if holds_card_number(value) else value for name, value in values.items()}  # never shown
    return {"values": values, "settings": None, "saved": False, "account": access.get_account(session.account_id)}


def change(session: Session, fields: dict[str, str], source_ip: str) -> AccountSettings:
    """The form's fields (each as typed; too long ones are refused by the rules, not cut)."""
    form = SettingsForm(**{name: fields.get(name, "") for name in FIELDS})
    return account_settings.change(acting(session, "settings:write"), form, source_ip)


def admit(session: Session, source_ip: str) -> None:
    """403 `ip_not_allowed` when the account's dashboard IP allowlist leaves `source_ip` out."""
    account_settings.require_address_admitted(session.account_id, source_ip)
