"""What each role of a merchant user may do (docs/dashboard.md, "Roles"): one set of permissions
per role, checked by the dashboard's use cases before they call the gateway's own. Pure."""

from __future__ import annotations

from mzpay.domain.common.errors import ServiceError

OWNER, ADMINISTRATOR, DEVELOPER, FINANCE, SUPPORT = "owner", "administrator", "developer", "finance", "support"
ROLES = (OWNER, ADMINISTRATOR, DEVELOPER, FINANCE, SUPPORT)

READS = frozenset({"balance:read", "payments:read", "collection:read"})
MANAGES = frozenset(
    {
        "refunds:write",
        "payouts:write",
        "disputes:write",  # evidence and acceptance of a dispute (the API's refunds:write routes)
        "reports:read",
        "reports:write",
        "keys:write",
        "webhooks:write",
        "team:write",
        "settings:write",
        "live:write",
    }
)
PERMISSIONS: dict[str, frozenset[str]] = {
    OWNER: READS | MANAGES | {"team:owner"},  # only the owner hands the account to another owner
    ADMINISTRATOR: READS | MANAGES,
    DEVELOPER: READS | {"keys:write", "webhooks:write"},
    FINANCE: READS | {"reports:read", "reports:write"},
    SUPPORT: READS | {"refunds:write:limited"},  # refunds up to the support limit (refund_limits.py)
}
# The permissions that move money or manage keys: a role holding one signs in with TOTP.
SENSITIVE = frozenset(
    {"refunds:write", "refunds:write:limited", "payouts:write", "disputes:write", "keys:write", "team:write"}
)


def is_role(value: str) -> bool:
    return value in PERMISSIONS


def allows(role: str, permission: str) -> bool:
    """`role` holds `permission` (an unknown role holds nothing)."""
    return permission in PERMISSIONS.get(role, frozenset())


def needs_totp(role: str) -> bool:
    """A user of `role` must sign in with a TOTP code (and set one up first when it has none)."""
    return bool(PERMISSIONS.get(role, frozenset()) & SENSITIVE)


def require(role: str, permission: str) -> None:
    """403 `forbidden` unless `role` holds `permission`."""
    if not allows(role, permission):
        raise ServiceError(403, "forbidden", f"The role {role} may not do this ({permission}).")
