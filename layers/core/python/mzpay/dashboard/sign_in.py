"""Signing in to the dashboard (docs/dashboard.md, "Signing in"): e-mail and password, then the
TOTP code (or, for a role that needs TOTP and has none yet, its setup), through the user pool;
the session the service holds; sign-out. Attempts are counted per user and per source address
with the gateway's rate-limit counters; every step is on the audit trail with the user named."""

from __future__ import annotations

import time
from dataclasses import replace

from mzpay import deps
from mzpay.domain.access.rate_limits import RateLimits
from mzpay.domain.common import clock
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard import sessions as rules
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports
from mzpay.steps import audit

with deferred_imports():
    from mzpay.cases import account_settings

ATTEMPTS_PER_USER = 10  # sign-in posts (password or code) per e-mail per minute
ATTEMPTS_PER_ADDRESS = 30  # ... per source address per minute (an office shares one)
WINDOW_SECONDS = 60
MAX_EMAIL, MAX_PASSWORD, CODE_LENGTH = 254, 256, 6


def _now() -> int:
    return int(clock.now().timestamp())


def _count_attempt(email: str, source_ip: str) -> None:
    """One sign-in attempt of `email` from `source_ip`; 429 `rate_limited` past either limit."""
    start = int(time.time()) // WINDOW_SECONDS * WINDOW_SECONDS  # the counters expire a minute after `start`
    counters = deps.rate_counters()
    for subject, limit in (
        (f"SIGNIN_USER#{email}", ATTEMPTS_PER_USER),
        (f"SIGNIN_IP#{source_ip}", ATTEMPTS_PER_ADDRESS),
    ):
        if counters.take(subject, "signin", start, RateLimits(per_key=limit, per_account=limit)) is not None:
            raise ServiceError(
                429, "rate_limited", "Too many sign-in attempts: wait a minute.", headers={"Retry-After": "60"}
            )


def _audited(email: str, source_ip: str, account_id: str | None = None) -> None:
    audit.identify("merchant_user", email, source_ip)
    if account_id:
        audit.observe("dashboard_user", email, account_id=account_id)


def _refused() -> ServiceError:
    return ServiceError(401, "sign_in_failed", "The e-mail or password is not right.")


def password(session_id: str, email: str, password: str, source_ip: str, replacing: str | None = None) -> Session:
    """The first step: the session it opens, signed in (a role without TOTP that has none) or
    waiting for the code or for the TOTP setup. 401 `sign_in_failed` for a wrong password and for
    an e-mail that is no dashboard user alike; 403 `ip_not_allowed` for the right password from an
    address the account's dashboard IP allowlist leaves out. `replacing`: the id of the cookie the browser
    still holds, whose session ends here (one browser, one session)."""
    email = email.strip().lower()
    _audited(email, source_ip)
    if replacing and len(replacing) <= 100:
        deps.dashboard_sessions().end(rules.hashed(replacing))
    if not (0 < len(email) <= MAX_EMAIL and 0 < len(password) <= MAX_PASSWORD):
        raise _refused()
    _count_attempt(email, source_ip)
    user = deps.dashboard_users().read(email)
    answer = deps.dashboard_identity().password(email, password)
    if user is None or answer.refused:
        raise _refused()
    _audited(email, source_ip, user.account_id)
    account_settings.require_address_admitted(user.account_id, source_ip)  # its IP allowlist, if set
    now = _now()
    generation = user.generation
    if answer.challenge:
        session = rules.opened(session_id, email, user.account_id, user.role, now, rules.TOTP, generation=generation)
        session = replace(session, challenge=answer.challenge)
    elif roles.needs_totp(user.role):
        secret = deps.dashboard_identity().new_totp_secret(answer.access_token)
        session = rules.opened(session_id, email, user.account_id, user.role, now, rules.SETUP, generation=generation)
        session = replace(session, challenge=answer.access_token, secret=secret)
    else:
        session = rules.opened(session_id, email, user.account_id, user.role, now, generation=generation)
        _signed_in(email)
    deps.dashboard_sessions().open(session)
    return session


def _signed_in(email: str) -> None:
    """The user's last sign-in (the team page shows it)."""
    deps.dashboard_users().signed_in(email, clock.iso(clock.now()))


def code(pending: Session, session_id: str, typed: str, source_ip: str) -> Session:
    """The second step: the TOTP code (or the first code of the TOTP being set up); a right one
    replaces the pending session by a signed-in one under `session_id`. 401 `invalid_code` else."""
    _audited(pending.email, source_ip, pending.account_id)
    typed = typed.strip().replace(" ", "")
    _count_attempt(pending.email, source_ip)
    identity = deps.dashboard_identity()
    if len(typed) != CODE_LENGTH or not typed.isdigit():
        right = False
    elif pending.stage == rules.TOTP:
        right = identity.totp(pending.email, pending.challenge, typed)
    else:
        right = identity.confirm_totp(pending.challenge, typed)
    if not right:
        raise ServiceError(401, "invalid_code", "The code is not right: type the one your app shows now.")
    session = rules.promoted(pending, session_id, _now())
    _signed_in(pending.email)
    store = deps.dashboard_sessions()
    store.end(pending.key)
    store.open(session)
    return session


def current(session_id: str | None) -> Session | None:
    """The session of the cookie's id: held by the service, within its limits (a use recorded at
    most once a minute) and of a user still in its account and not reset since, with the user's
    role as it is now; else None (and the record is deleted)."""
    if not session_id or len(session_id) > 100:
        return None
    store = deps.dashboard_sessions()
    session = store.read(rules.hashed(session_id))
    if session is None:
        return None
    now = _now()
    if rules.expired(session, now):
        store.end(session.key)
        return None
    user = deps.dashboard_users().read(session.email)
    if user is None or user.account_id != session.account_id or session.generation != user.generation:
        store.end(session.key)  # removed from the team, or its password reset since: ended at once
        return None
    if user.role != session.role:  # a role changed applies from the next request
        session = replace(session, role=user.role)
    if session.signed_in and rules.needs_touch(session, now) and not store.touch(session.key, now):
        return None
    return session


def switch_mode(session: Session, mode: str, source_ip: str) -> None:
    """Test or live data from now on (the page shows which, always)."""
    _audited(session.email, source_ip, session.account_id)
    if mode not in rules.MODES:
        raise ServiceError(400, "invalid_request", "mode: test or live.")
    deps.dashboard_sessions().set_mode(session.key, mode)


def sign_out(session: Session | None, source_ip: str) -> None:
    """The session's record deleted: its cookie (or a copy of it) is no session from now on."""
    if session is None:
        return
    _audited(session.email, source_ip, session.account_id)
    deps.dashboard_sessions().end(session.key)
