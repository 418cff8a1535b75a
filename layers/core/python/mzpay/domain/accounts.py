"""Accounts: one tenant, homed in one service region, in one of a few states."""

from __future__ import annotations

from mzpay.domain.errors import ServiceError


class AccountStatus:
    ACTIVE = "active"
    SUSPENDED = "suspended"


# (from, action) -> to. Anything else is invalid_state.
TRANSITIONS: dict[tuple[str, str], str] = {
    (AccountStatus.ACTIVE, "suspend"): AccountStatus.SUSPENDED,
    (AccountStatus.SUSPENDED, "reactivate"): AccountStatus.ACTIVE,
}

MAX_NAME_LENGTH = 200
MAX_REASON_LENGTH = 500


def next_status(current: str, action: str) -> str:
    """The status after `action`, or DomainError invalid_state."""
    try:
        return TRANSITIONS[(current, action)]
    except KeyError:
        raise ServiceError(409, "invalid_state", f"Cannot {action} an account that is {current}.") from None
