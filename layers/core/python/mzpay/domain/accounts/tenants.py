"""Accounts: one tenant, homed in one service region, in one of a few states."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from mzpay.domain.common.errors import ServiceError


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


def suspended_message(reason: str) -> str:
    """The detail of 403 account_suspended (the reason is shown to keys that may act for it)."""
    return f"This account is suspended: {reason}" if reason else "This account is suspended."


def connection_refusal(platform_id: str, connected_id: str, platform_region: str, connected_region: str) -> None:
    """Operators connect two distinct accounts of one region (a platform acts only where its
    connected account's data lives); else 400 invalid_request naming the problem."""
    if platform_id == connected_id:
        raise ServiceError(400, "invalid_request", "An account cannot be connected to itself.")
    if platform_region != connected_region:
        raise ServiceError(
            400,
            "invalid_request",
            f"Only accounts of one region can be connected: the platform lives in {platform_region}, "
            f"the account in {connected_region}.",
        )


def acting_refusal(
    connected: bool, target_status: str | None, target_reason: str, target_region: str | None, service_region: str
) -> ServiceError | None:
    """Why a platform may not act for the account it names with ?account_id=, or None if it may.

    Only an account connected to the caller's account, existing and homed in this region; anything
    else is 404 not_found whatever the reason (never confirm that an account exists). A connected
    account that is suspended is 403 account_suspended: its suspension applies to acting for it.
    """
    if not connected or target_status is None or target_region != service_region:
        return ServiceError(404, "not_found", "No such account.")
    if target_status == AccountStatus.SUSPENDED:
        return ServiceError(403, "account_suspended", suspended_message(target_reason))
    return None


# The two modes of every account's data, and the service regions an account is homed in.
Mode = Literal["test", "live"]
Region = Literal["mz", "regional-sa"]


MAX_FOLDED = 200
_SPACES = re.compile(r"\s+")


def folded(name: str) -> str:
    """`name` as searched: accents dropped, case folded, spaces collapsed ("Loja  Maçã" -> "loja maca")."""
    decomposed = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SPACES.sub(" ", plain.casefold()).strip()[:MAX_FOLDED]
