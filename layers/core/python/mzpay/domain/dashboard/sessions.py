"""The dashboard's sessions (docs/dashboard.md, "Sessions"): a random id in a `__Host-` cookie,
the record the service holds keyed by the id's SHA-256 (a leaked table holds no usable cookie).

A session ends 30 minutes after its last use (idle) and 12 hours after sign-in (absolute),
whichever comes first; a sign-in in progress (password given, TOTP code not yet) ends after 5
minutes. Pure: the clock is the caller's (epoch seconds)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace

COOKIE = "__Host-mzpay_dashboard"  # __Host-: Secure, Path=/, no Domain (the browser enforces it)
IDLE_SECONDS = 30 * 60
ABSOLUTE_SECONDS = 12 * 3600
PENDING_SECONDS = 5 * 60
TOUCH_SECONDS = 60  # a use is recorded at most once a minute
SIGNED_IN, TOTP, SETUP = "signed_in", "totp", "setup"  # a session's stage
MODES = ("test", "live")


@dataclass(frozen=True)
class Session:
    """A session as the service holds it. `stage`: signed in, or waiting for the TOTP code
    (`challenge`: Cognito's session) or for the first code of a TOTP being set up (`challenge`:
    the user's access token, `secret`: the secret shown to type into the authenticator)."""

    key: str  # sha256 of the cookie's id
    email: str
    account_id: str
    role: str
    mode: str
    csrf: str
    created_at: int
    last_seen: int
    stage: str = SIGNED_IN
    challenge: str = ""
    secret: str = ""
    generation: int = 0  # the user's when the session opened (a password reset moves the user's on)

    @property
    def signed_in(self) -> bool:
        return self.stage == SIGNED_IN

    def ends_at(self) -> int:
        """When the record may go (DynamoDB's TTL): the absolute end, or the pending sign-in's."""
        return self.created_at + (ABSOLUTE_SECONDS if self.signed_in else PENDING_SECONDS)


def new_id() -> str:
    """A session id: 256 random bits."""
    return secrets.token_urlsafe(32)


def hashed(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


def opened(
    session_id: str, email: str, account_id: str, role: str, now: int, stage: str = SIGNED_IN, generation: int = 0
) -> Session:
    """A new session (test mode first: live actions are a switch away, visibly)."""
    return Session(
        key=hashed(session_id),
        email=email,
        account_id=account_id,
        role=role,
        mode="test",
        csrf=secrets.token_urlsafe(32),
        created_at=now,
        last_seen=now,
        stage=stage,
        generation=generation,
    )


def expired(session: Session, now: int) -> bool:
    """Past its idle or absolute end (a pending sign-in: past its 5 minutes)."""
    if not session.signed_in:
        return now - session.created_at >= PENDING_SECONDS
    return now - session.last_seen >= IDLE_SECONDS or now - session.created_at >= ABSOLUTE_SECONDS


def needs_touch(session: Session, now: int) -> bool:
    return now - session.last_seen >= TOUCH_SECONDS


def promoted(pending: Session, session_id: str, now: int) -> Session:
    """The signed-in session replacing a pending one: a new id (the id known before the second
    factor is worth nothing after it) and a new CSRF token; the challenge and secret dropped."""
    return replace(
        opened(session_id, pending.email, pending.account_id, pending.role, now, generation=pending.generation),
        mode=pending.mode,
    )
