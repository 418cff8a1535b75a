"""The dashboard's team (docs/dashboard.md, "Team"): the account's users and invitations, an
invitation sent and accepted, a role changed, a user removed, an invitation revoked, a password
reset. The users live in the region's pool (mzpay.connectors.cognito) and the accounts table
(mzpay.store.dashboard); the e-mails go through the notifications queue to the notification
sender, as every message to a person does (mzpay.cases.notifications). Every change is on the
audit trail with the acting user (or, on the public links, the invited or resetting user)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from mzpay import deps
from mzpay.domain.access.rate_limits import RateLimits
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard import team as rules
from mzpay.domain.dashboard.sessions import Session
from mzpay.steps import audit
from mzpay.store.dashboard import DashboardUser, Invitation

RESETS_PER_USER = 3  # "forgot your password" posts per e-mail per minute
RESETS_PER_ADDRESS = 10  # ... per source address per minute


@dataclass(frozen=True)
class Member:
    email: str
    role: str
    totp: bool
    last_sign_in: str  # ISO time, "" when never
    status: str  # active | invited
    expires_at: str = ""  # an invitation's end (ISO)


def _now() -> int:
    return int(time.time())


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _acting(session: Session, source_ip: str) -> None:
    audit.identify("merchant_user", session.email, source_ip)
    roles.require(session.role, "team:write")


def _not_found() -> ServiceError:
    return ServiceError(404, "not_found", "No such user or invitation in this account.")


def _invalid_link() -> ServiceError:
    return ServiceError(410, "link_invalid", "This link is unknown, used or expired: ask for a new one.")


def members(session: Session) -> list[Member]:
    """The account's users (their MFA status from the pool) then its open invitations."""
    roles.require(session.role, "team:write")
    users, invited = deps.dashboard_users().team(session.account_id)
    identity, store = deps.dashboard_identity(), deps.dashboard_users()
    shown: list[Member] = []
    for entry in sorted(users, key=lambda item: str(item["email"])):
        user = store.read(str(entry["email"]))
        if user is None:
            continue
        shown.append(Member(user.email, user.role, identity.has_totp(user.email), user.last_sign_in, "active"))
    now = _now()
    for entry in sorted(invited, key=lambda item: str(item["sk"])):
        if int(entry["expires_at"]) > now:
            email = str(entry["sk"]).partition("#")[2]
            shown.append(Member(email, str(entry["role"]), False, "", "invited", _iso(int(entry["expires_at"]))))
    return shown


def invite(session: Session, typed_email: str, role: str, language: str, link_base: str, source_ip: str) -> str:
    """Invite `typed_email` as `role` (an owner only by an owner): a new invitation, replacing the
    e-mail's earlier one (a re-send: one invitation, never two users), and its e-mail. Its e-mail."""
    _acting(session, source_ip)
    email = rules.address(typed_email)
    rules.may_grant(session.role, rules.check_role(role))
    existing = deps.dashboard_users().read(email)
    if existing is not None and existing.account_id == session.account_id:  # another account's: told at accept
        raise ServiceError(409, "already_member", "This e-mail already has a dashboard user.")
    token, now = rules.new_token(), _now()
    invitation = Invitation(
        rules.hashed(token),
        email,
        session.account_id,
        role,
        session.email,
        _iso(now),
        now + rules.INVITATION_SECONDS,
    )
    audit.observe("dashboard_invitation", email, account_id=session.account_id)
    deps.dashboard_invitations().put(invitation)
    audit.observe(
        "dashboard_invitation",
        email,
        account_id=session.account_id,
        after={"email": email, "role": role, "expires_at": _iso(invitation.expires_at)},
    )
    _send(
        email,
        session.account_id,
        language,
        f"{link_base}/invitations/{token}",
        rules.INVITATION,
        f"dashboard.invitation:{invitation.token_hash[:32]}",
        inviter=session.email,
        role=role,
    )
    return email


def _send(to: str, account_id: str, language: str, link: str, notice: str, cause: str, **more: str) -> None:
    """The e-mail, queued for the notification sender (sent once per cause)."""
    deps.notification_queue().send(
        {
            "kind": rules.QUEUE_KIND,
            "notice": notice,
            "to": to,
            "account_id": account_id,
            "language": language,
            "link": link,
            "cause": cause,
            **more,
        }
    )


def invitation(token: str) -> Invitation:
    """The pending invitation of a link; 410 `link_invalid` for an unknown, used or expired one."""
    if not rules.well_formed_token(token):
        raise _invalid_link()
    found = deps.dashboard_invitations().read(rules.hashed(token))
    if found is None or found.status != "pending" or found.expires_at <= _now():
        raise _invalid_link()
    return found


def accept(token: str, password: str, source_ip: str) -> Invitation:
    """The invitee's password: the pool's user (no message, the password permanent) and its
    record. The invitation is claimed first (one accept wins a race; the other is 410); a
    password the policy refuses claims nothing; a failure after the claim undoes what it did."""
    if not rules.well_formed_token(token):
        raise _invalid_link()
    pending = deps.dashboard_invitations().read(rules.hashed(token))
    if pending is not None:
        audit.identify("merchant_user", pending.email, source_ip)
        audit.observe("dashboard_user", pending.email, account_id=pending.account_id)
    rules.check_password(password)
    store = deps.dashboard_invitations()
    claimed = store.claim(rules.hashed(token), _now())
    if claimed is None:
        raise _invalid_link()
    identity, users = deps.dashboard_identity(), deps.dashboard_users()
    try:
        if not identity.create_user(claimed.email, password):
            raise ServiceError(409, "already_member", "This e-mail already has a dashboard user.")
        # a generation of its own: a session of an earlier user of the e-mail (removed) stays ended
        user = DashboardUser(claimed.email, claimed.account_id, claimed.role, _iso(_now()), generation=_now())
        if not users.create(user):
            identity.delete_user(claimed.email)
            raise ServiceError(409, "already_member", "This e-mail already has a dashboard user.")
    except Exception:
        store.release(claimed.token_hash)
        raise
    store.accepted(claimed)
    audit.observe(
        "dashboard_user",
        claimed.email,
        account_id=claimed.account_id,
        after={"email": claimed.email, "role": claimed.role, "invited_by": claimed.invited_by},
    )
    return claimed


def _member(session: Session, typed_email: str) -> DashboardUser:
    """A user of the session's account; 404 for anyone else (another account's too)."""
    email = typed_email.strip().lower()
    user = deps.dashboard_users().read(email) if 0 < len(email) <= rules.MAX_EMAIL else None
    if user is None or user.account_id != session.account_id:
        raise _not_found()
    return user


def change_role(session: Session, typed_email: str, role: str, source_ip: str) -> None:
    _acting(session, source_ip)
    user = _member(session, typed_email)
    audit.observe("dashboard_user", user.email, account_id=session.account_id, before={"role": user.role})
    rules.check_role(role)
    rules.may_change(session.email, session.role, user.email, user.role)
    rules.may_grant(session.role, role)
    deps.dashboard_users().set_role(user, role)
    audit.observe("dashboard_user", user.email, account_id=session.account_id, after={"role": role})


def remove(session: Session, typed_email: str, source_ip: str) -> None:
    """The user gone: its record (its sessions end with it: sign_in.current), then its pool user."""
    _acting(session, source_ip)
    user = _member(session, typed_email)
    audit.observe(
        "dashboard_user", user.email, account_id=session.account_id, before={"email": user.email, "role": user.role}
    )
    rules.may_change(session.email, session.role, user.email, user.role)
    deps.dashboard_users().remove(user)
    deps.dashboard_identity().delete_user(user.email)
    audit.observe("dashboard_user", user.email, account_id=session.account_id, after={"removed": True})


def revoke(session: Session, typed_email: str, source_ip: str) -> None:
    """The account's invitation of the e-mail deleted: its link stops working."""
    _acting(session, source_ip)
    email = typed_email.strip().lower()
    invitations = deps.dashboard_invitations()
    entry = invitations.entry(session.account_id, email) if 0 < len(email) <= rules.MAX_EMAIL else None
    if entry is None:
        raise _not_found()
    rules.may_grant(session.role, str(entry["role"]))
    audit.observe("dashboard_invitation", email, account_id=session.account_id, before={"role": entry["role"]})
    if not invitations.revoke(session.account_id, email):
        raise _not_found()
    audit.observe("dashboard_invitation", email, account_id=session.account_id, after={"revoked": True})


# ---------------------------------------------------------------- password reset
def _count_reset(email: str, source_ip: str) -> None:
    start = int(time.time()) // 60 * 60
    counters = deps.rate_counters()
    for subject, limit in ((f"RESET_USER#{email}", RESETS_PER_USER), (f"RESET_IP#{source_ip}", RESETS_PER_ADDRESS)):
        if counters.take(subject, "reset", start, RateLimits(per_key=limit, per_account=limit)) is not None:
            raise ServiceError(429, "rate_limited", "Too many attempts: wait a minute.", headers={"Retry-After": "60"})


def request_reset(typed_email: str, language: str, link_base: str, source_ip: str) -> None:
    """ "Forgot your password": a one-time link by e-mail when the address is a user's. The same
    answer either way (no telling who is a user); counted per e-mail and per address."""
    email = rules.address(typed_email)
    audit.identify("merchant_user", email, source_ip)
    _count_reset(email, source_ip)
    user = deps.dashboard_users().read(email)
    if user is None:
        return
    token, now = rules.new_token(), _now()
    deps.dashboard_resets().put(rules.hashed(token), email, now + rules.RESET_SECONDS)
    _send(
        email,
        user.account_id,
        language,
        f"{link_base}/password-reset/{token}",
        rules.PASSWORD_RESET,
        f"dashboard.password_reset:{rules.hashed(token)[:32]}",
    )


def reset_email(token: str) -> str:
    """The e-mail of a reset link still valid; 410 `link_invalid` else."""
    email = deps.dashboard_resets().read(rules.hashed(token), _now()) if rules.well_formed_token(token) else None
    if email is None:
        raise _invalid_link()
    return email


def reset(token: str, password: str, source_ip: str) -> str:
    """The new password (the link used once): set in the pool, the user's sessions ended. TOTP
    stays as it was: the next sign-in asks for the code. The user's e-mail."""
    email = reset_email(token)
    audit.identify("merchant_user", email, source_ip)
    rules.check_password(password)
    taken = deps.dashboard_resets().take(rules.hashed(token), _now())
    user = deps.dashboard_users().read(taken) if taken else None
    if user is None:
        raise _invalid_link()
    audit.observe("dashboard_user", user.email, account_id=user.account_id)
    deps.dashboard_identity().set_password(user.email, password)
    deps.dashboard_users().end_sessions(user.email)
    audit.observe("dashboard_user", user.email, account_id=user.account_id, after={"password_reset": True})
    return user.email
