"""The rules of an account's team (docs/dashboard.md, "Team"): who may invite, change or remove
whom, the invitations' and password resets' one-time tokens, the pool's password policy. Pure:
the clock is the caller's (epoch seconds)."""

from __future__ import annotations

import hashlib
import re
import secrets

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles

QUEUE_KIND = "dashboard_user"  # a dashboard user's e-mail on the notification queue (mzpay.cases.notifications)
INVITATION, PASSWORD_RESET = "invitation", "password_reset"  # which e-mail (its `notice`)
INVITATION_SECONDS = 72 * 3600  # an invitation's link works for 72 hours
RESET_SECONDS = 3600  # a password reset's link, one hour
MAX_EMAIL, MAX_PASSWORD, MIN_PASSWORD = 254, 256, 12
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def new_token() -> str:
    """A link's token: 256 random bits (only its SHA-256 is stored)."""
    return secrets.token_urlsafe(32)


def hashed(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def well_formed_token(token: str) -> bool:
    return 20 <= len(token) <= 100 and re.fullmatch(r"[A-Za-z0-9_-]+", token) is not None


def address(typed: str) -> str:
    """The e-mail typed, lower case; 400 `invalid_email` unless it is one of at most 254 characters."""
    email = typed.strip().lower()
    if not (0 < len(email) <= MAX_EMAIL) or not EMAIL.match(email):
        raise ServiceError(400, "invalid_email", "Type an e-mail address of at most 254 characters.")
    return email


def check_password(password: str) -> None:
    """The pool's policy (stacks/dashboard.yaml): 12 to 256 characters, upper and lower case, a
    digit; 400 `weak_password` otherwise (checked before anything is claimed or created)."""
    strong = (
        MIN_PASSWORD <= len(password) <= MAX_PASSWORD
        and any(c.islower() for c in password)
        and any(c.isupper() for c in password)
        and any(c.isdigit() for c in password)
    )
    if not strong:
        raise ServiceError(
            400,
            "weak_password",
            "The password needs 12 to 256 characters with upper and lower case letters and a digit.",
        )


def check_role(role: str) -> str:
    if not roles.is_role(role):
        raise ServiceError(400, "invalid_role", "Choose one of the roles.")
    return role


def may_grant(actor_role: str, role: str) -> None:
    """`actor_role` (holding team:write) may invite to or set `role`: an owner only by an owner
    (`team:owner`). 403 `forbidden` otherwise."""
    roles.require(actor_role, "team:write")
    if role == roles.OWNER:
        roles.require(actor_role, "team:owner")


def may_change(actor_email: str, actor_role: str, target_email: str, target_role: str) -> None:
    """`actor` may change or remove the user `target`: never itself (an owner keeps the account),
    and an owner only by an owner. 403 `forbidden` otherwise."""
    roles.require(actor_role, "team:write")
    if target_email == actor_email:
        raise ServiceError(403, "forbidden", "Nobody changes or removes their own membership here.")
    if target_role == roles.OWNER:
        roles.require(actor_role, "team:owner")
