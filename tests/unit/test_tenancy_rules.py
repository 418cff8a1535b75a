"""Who may act for whom, and which keys a key may roll (pure rules: mzpay.domain.accounts.tenants,
mzpay.domain.access.keys)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mzpay.domain.access.keys import DEFAULT_SCOPES, SCOPES, KeyGrant, roll_refusal
from mzpay.domain.accounts.tenants import acting_refusal, connection_refusal
from mzpay.domain.common.errors import ServiceError

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
ALL = frozenset(SCOPES)


def answer(error: ServiceError | None) -> tuple[Any, ...] | None:
    return None if error is None else (error.status, error.code, error.message, error.extensions)


def narrower(reason: str, restriction: str) -> tuple[Any, ...]:
    """The refusal to roll a key broader than the caller's own: 403 insufficient_scope naming the
    restriction the key to roll escapes."""
    message = f"This API key {reason} ({restriction}); roll it with a key at least as broad, or ask an operator."
    return (403, "insufficient_scope", message, {"restriction": restriction})


# ---------------------------------------------------------------- acting for a connected account
NOT_FOUND = (404, "not_found", "No such account.", {})


@pytest.mark.parametrize(
    ("connected", "status", "region"),
    [
        (False, "active", "mz"),  # an unrelated account of this region
        (False, None, None),  # an account that does not exist
        (True, None, None),  # a connection left to an account that is gone
        (False, "active", "regional-sa"),  # another region's account
        (True, "active", "regional-sa"),  # even with a connection (never made by the service)
        (False, "suspended", "mz"),  # a suspended unrelated account: never confirm it exists
    ],
)
def test_anything_but_a_connected_account_of_this_region_is_not_found(
    connected: bool, status: str | None, region: str | None
) -> None:
    assert answer(acting_refusal(connected, status, "fraud review", region, "mz")) == NOT_FOUND


def test_a_connected_active_account_of_this_region_may_be_acted_for() -> None:
    assert acting_refusal(True, "active", "", "mz", "mz") is None
    assert acting_refusal(True, "active", "", "regional-sa", "regional-sa") is None


@pytest.mark.parametrize(
    ("reason", "detail"),
    [("KYC review", "This account is suspended: KYC review"), ("", "This account is suspended.")],
)
def test_a_suspended_connected_account_is_account_suspended(reason: str, detail: str) -> None:
    assert answer(acting_refusal(True, "suspended", reason, "mz", "mz")) == (403, "account_suspended", detail, {})


def test_connections_join_two_distinct_accounts_of_one_region() -> None:
    assert connection_refusal("01JA", "01JB", "mz", "mz") is None
    with pytest.raises(ServiceError) as itself:
        connection_refusal("01JA", "01JA", "mz", "mz")
    assert answer(itself.value) == (400, "invalid_request", "An account cannot be connected to itself.", {})
    with pytest.raises(ServiceError) as regions:
        connection_refusal("01JA", "01JB", "mz", "regional-sa")
    assert answer(regions.value) == (
        400,
        "invalid_request",
        "Only accounts of one region can be connected: the platform lives in mz, the account in regional-sa.",
        {},
    )


# ---------------------------------------------------------------- rolling keys
def grant(key_id: str = "target", scopes: frozenset[str] | tuple[str, ...] = DEFAULT_SCOPES, **more: Any) -> KeyGrant:
    return KeyGrant(key_id, frozenset(scopes), **more)


def test_a_key_may_always_roll_itself() -> None:
    narrow = grant("me", ["api_keys:write"], allowed_customers=frozenset({"cus_1"}), expires_at=NOW)
    assert roll_refusal(narrow, narrow) is None


def test_the_escalation_of_issue_11_is_refused_naming_the_first_missing_scope() -> None:
    attacker = grant(
        "me", ["api_keys:write"], allowed_customers=frozenset({"cus_1"}), expires_at=NOW + timedelta(days=1)
    )
    owner = grant("owner", DEFAULT_SCOPES)
    assert answer(roll_refusal(attacker, owner)) == (
        403,
        "insufficient_scope",
        "This API key lacks the scope payments:read.",
        {"missing_scope": "payments:read"},
    )


def test_the_missing_scope_named_is_the_first_in_scope_order() -> None:
    caller = grant("me", ["payments:read", "api_keys:write"])
    target = grant("t", ["accounts:write", "balance:read", "payments:read"])
    assert answer(roll_refusal(caller, target))[3] == {"missing_scope": "balance:read"}  # type: ignore[index]


def test_an_unrestricted_key_may_roll_any_key_with_fewer_scopes() -> None:
    target = grant(
        "t",
        ["payments:read"],
        allowed_customers=frozenset({"cus_1"}),
        ip_allowlist=("10.0.0.0/8",),
        expires_at=NOW,
    )
    assert roll_refusal(grant("me", ALL), target) is None
    assert roll_refusal(grant("me", DEFAULT_SCOPES), grant("t", DEFAULT_SCOPES)) is None  # equal is a subset


@pytest.mark.parametrize(
    ("caller_customers", "target_customers", "allowed"),
    [
        ({"cus_1", "cus_2"}, {"cus_1"}, True),
        ({"cus_1", "cus_2"}, {"cus_1", "cus_2"}, True),
        ({"cus_1"}, {"cus_1", "cus_2"}, False),
        ({"cus_1"}, {"cus_2"}, False),
        ({"cus_1"}, set(), False),  # an unrestricted target reaches every customer
        (set(), {"cus_9"}, True),
    ],
)
def test_a_customer_restricted_key_rolls_only_keys_restricted_to_its_customers(
    caller_customers: set[str], target_customers: set[str], allowed: bool
) -> None:
    caller = grant("me", allowed_customers=frozenset(caller_customers))
    target = grant("t", allowed_customers=frozenset(target_customers))
    expected = (
        None
        if allowed
        else narrower("is restricted to customers the key to roll is not limited to", "allowed_customers")
    )
    assert answer(roll_refusal(caller, target)) == expected


@pytest.mark.parametrize(
    ("caller_list", "target_list", "allowed"),
    [
        (("10.0.0.0/8",), ("10.1.0.0/16", "10.2.3.4"), True),
        (("10.0.0.0/8", "2001:db8::/32"), ("2001:db8:1::/48",), True),
        (("10.0.0.0/8",), ("10.0.0.0/8",), True),
        (("10.0.0.0/16",), ("10.0.0.0/8",), False),
        (("10.0.0.0/8",), ("192.168.0.0/16",), False),
        (("10.0.0.0/8",), ("10.0.0.1", "11.0.0.1"), False),
        (("10.0.0.0/8",), ("::ffff:10.0.0.1",), False),  # another IP version is not inside
        (("10.0.0.0/8",), (), False),  # an unrestricted target may be used from anywhere
        ((), ("10.0.0.0/8",), True),
    ],
)
def test_an_allowlisted_key_rolls_only_keys_confined_inside_its_allowlist(
    caller_list: tuple[str, ...], target_list: tuple[str, ...], allowed: bool
) -> None:
    refusal = roll_refusal(grant("me", ip_allowlist=caller_list), grant("t", ip_allowlist=target_list))
    assert answer(refusal) == (
        None if allowed else narrower("has an IP allowlist the key to roll is not confined to", "ip_allowlist")
    )


@pytest.mark.parametrize(
    ("caller_expiry", "target_expiry", "allowed"),
    [
        (NOW, NOW, True),
        (NOW, NOW - timedelta(seconds=1), True),
        (NOW, NOW + timedelta(seconds=1), False),
        (NOW, None, False),  # a key that never expires outlives the caller
        (None, NOW, True),
    ],
)
def test_an_expiring_key_rolls_only_keys_that_expire_no_later(
    caller_expiry: datetime | None, target_expiry: datetime | None, allowed: bool
) -> None:
    refusal = roll_refusal(grant("me", expires_at=caller_expiry), grant("t", expires_at=target_expiry))
    assert answer(refusal) == (None if allowed else narrower("expires before the key to roll", "expires_at"))


def test_scopes_are_checked_before_restrictions() -> None:
    caller = grant("me", ["api_keys:write"], allowed_customers=frozenset({"cus_1"}))
    assert answer(roll_refusal(caller, grant("t", ["payouts:write"])))[3] == {  # type: ignore[index]
        "missing_scope": "payouts:write"
    }
