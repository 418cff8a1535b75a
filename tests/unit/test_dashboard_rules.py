"""The dashboard's pure rules (docs/dashboard.md): each role's permissions and which roles sign in
with TOTP, the sessions' idle, absolute and pending limits, the new id on the second factor,
the CSRF comparison and the session cookie's attributes."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard import sessions as rules
from mzpay.http import dashboard

T0 = 1_790_000_000


def test_each_role_holds_its_documented_permissions() -> None:
    assert roles.allows("owner", "team:owner") and not roles.allows("administrator", "team:owner")
    assert roles.PERMISSIONS["administrator"] == roles.PERMISSIONS["owner"] - {"team:owner"}
    reads = {"balance:read", "payments:read", "collection:read"}
    assert roles.PERMISSIONS["developer"] == reads | {"keys:write", "webhooks:write"}
    assert roles.PERMISSIONS["finance"] == reads | {"reports:read", "reports:write"}
    assert roles.PERMISSIONS["support"] == reads | {"refunds:write:limited"}
    assert not roles.allows("support", "keys:write") and not roles.allows("finance", "refunds:write")
    assert [role for role in roles.ROLES if roles.allows(role, "disputes:write")] == ["owner", "administrator"]
    assert all(roles.allows(role, "balance:read") for role in roles.ROLES)
    assert not roles.allows("stranger", "balance:read")


@pytest.mark.parametrize(
    ("role", "totp"),
    [("owner", True), ("administrator", True), ("developer", True), ("support", True), ("finance", False)],
)
def test_roles_that_move_money_or_manage_keys_sign_in_with_totp(role: str, totp: bool) -> None:
    assert roles.needs_totp(role) is totp


def test_a_permission_the_role_lacks_is_403_forbidden() -> None:
    roles.require("finance", "reports:write")
    with pytest.raises(ServiceError) as refused:
        roles.require("finance", "refunds:write")
    assert (refused.value.status, refused.value.code) == (403, "forbidden")


def test_a_session_ends_30_minutes_after_its_last_use_and_12_hours_after_sign_in() -> None:
    session = rules.opened("id", "a@example.co.mz", "acc_1", "owner", T0)
    assert not rules.expired(session, T0 + rules.IDLE_SECONDS - 1)
    assert rules.expired(session, T0 + rules.IDLE_SECONDS)
    used = rules.Session(**{**session.__dict__, "last_seen": T0 + rules.ABSOLUTE_SECONDS - 60})
    assert not rules.expired(used, T0 + rules.ABSOLUTE_SECONDS - 1)
    assert rules.expired(used, T0 + rules.ABSOLUTE_SECONDS)  # used a minute ago, but 12 hours old
    assert session.ends_at() == T0 + rules.ABSOLUTE_SECONDS


def test_a_sign_in_waiting_for_its_code_lasts_five_minutes_and_its_id_is_replaced_once_signed_in() -> None:
    pending = rules.opened("first", "a@example.co.mz", "acc_1", "owner", T0, rules.TOTP)
    assert not pending.signed_in and pending.ends_at() == T0 + rules.PENDING_SECONDS
    assert not rules.expired(pending, T0 + rules.PENDING_SECONDS - 1)
    assert rules.expired(pending, T0 + rules.PENDING_SECONDS)
    signed_in = rules.promoted(pending, "second", T0 + 10)
    assert signed_in.signed_in and signed_in.key == rules.hashed("second") != pending.key
    assert signed_in.csrf != pending.csrf and (signed_in.challenge, signed_in.secret) == ("", "")
    assert (signed_in.created_at, signed_in.last_seen) == (T0 + 10, T0 + 10)


def test_the_record_is_keyed_by_a_hash_of_the_random_id() -> None:
    first, second = rules.new_id(), rules.new_id()
    assert first != second and len(first) >= 43
    assert rules.hashed(first) == rules.hashed(first) and len(rules.hashed(first)) == 64
    assert first not in rules.hashed(first)


def test_a_use_is_recorded_at_most_once_a_minute() -> None:
    session = rules.opened("id", "a@example.co.mz", "acc_1", "owner", T0)
    assert not rules.needs_touch(session, T0 + rules.TOUCH_SECONDS - 1)
    assert rules.needs_touch(session, T0 + rules.TOUCH_SECONDS)


def test_the_session_cookie_is_a_host_cookie_secure_httponly_and_strict() -> None:
    from tests.events import rest_event

    visit = dashboard.Visit(rest_event("GET", "/"), "pt", "")
    visit.set_cookie(rules.COOKIE, "abc", rules.ABSOLUTE_SECONDS)
    parts = [part.strip() for part in str(visit.cookies[0]).split(";")]
    assert rules.COOKIE.startswith("__Host-") and parts[0] == f"{rules.COOKIE}=abc"
    assert {"Path=/", "Secure", "HttpOnly", "SameSite=Strict", f"Max-Age={rules.ABSOLUTE_SECONDS}"} == set(parts[1:])
