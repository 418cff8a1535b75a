"""Account state transitions and webhook secret rolling (pure rules)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mzpay.domain.accounts.tenants import AccountStatus, next_status
from mzpay.domain.webhooks.secrets import ROLL_OVERLAP, SecretVersion, after_roll, generate_secret, valid_versions
from tests.unit.builders import moves, refused

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


# ---------------------------------------------------------------- account status
@pytest.mark.parametrize(
    ("current", "action", "expected"),
    moves(
        {
            AccountStatus.ACTIVE: {"suspend": AccountStatus.SUSPENDED},
            AccountStatus.SUSPENDED: {"reactivate": AccountStatus.ACTIVE},
        }
    ),
)
def test_allowed_transitions(current: str, action: str, expected: str) -> None:
    assert next_status(current, action) == expected


REFUSED_MOVES = {
    "active": {
        "reactivate": "Cannot reactivate an account that is active.",
        "close": "Cannot close an account that is active.",
    },
    "suspended": {"suspend": "Cannot suspend an account that is suspended."},
    "closed": {
        "reactivate": "Cannot reactivate an account that is closed.",
        "suspend": "Cannot suspend an account that is closed.",
    },
}


@pytest.mark.parametrize(("current", "action", "message"), moves(REFUSED_MOVES))
def test_other_transitions_are_invalid_state(current: str, action: str, message: str) -> None:
    error = refused(lambda: next_status(current, action))
    assert (error.status, error.code, error.message, error.errors, error.headers, error.extensions) == (
        409,
        "invalid_state",
        message,
        (),
        {},
        {},
    )
    assert error.__suppress_context__ is True  # the KeyError does not leak into tracebacks


# ---------------------------------------------------------------- webhook secrets
def version(secret_id: str, expires_at: datetime | None, created_days_ago: int = 10) -> SecretVersion:
    return SecretVersion(secret_id, f"ct-{secret_id}", NOW - timedelta(days=created_days_ago), expires_at)


NEW = SecretVersion("new", "ct-new", NOW, None)


def test_generated_secrets_are_prefixed_and_differ() -> None:
    secrets = {generate_secret() for _ in range(100)}
    assert len(secrets) == 100
    assert all(s.startswith("whsec_") and len(s) == len("whsec_") + 43 for s in secrets)


def test_first_roll_keeps_only_the_new_secret() -> None:
    assert after_roll([], NEW, NOW) == [NEW]


def test_roll_puts_the_new_secret_first_and_gives_the_current_one_24_hours() -> None:
    current = version("cur", None)
    assert timedelta(hours=24) == ROLL_OVERLAP
    assert after_roll([current], NEW, NOW) == [
        NEW,
        SecretVersion("cur", "ct-cur", NOW - timedelta(days=10), datetime(2026, 3, 2, 12, 0, 0, tzinfo=UTC)),
    ]


def test_roll_drops_expired_versions_and_keeps_still_valid_previous_ones() -> None:
    current = version("cur", None, created_days_ago=1)
    still_valid = version("prev", NOW + timedelta(hours=3), created_days_ago=2)
    expired = version("old", NOW - timedelta(hours=1), created_days_ago=5)
    expiring_now = version("edge", NOW, created_days_ago=4)  # expires_at == now is no longer valid
    assert after_roll([current, still_valid, expired, expiring_now], NEW, NOW) == [
        NEW,
        SecretVersion("cur", "ct-cur", NOW - timedelta(days=1), NOW + timedelta(hours=24)),
        still_valid,
    ]


def test_two_rolls_in_a_row_keep_both_previous_secrets_for_their_overlap() -> None:
    first = after_roll([version("a", None)], SecretVersion("b", "ct-b", NOW, None), NOW)
    later = NOW + timedelta(hours=1)
    second = after_roll(first, SecretVersion("c", "ct-c", later, None), later)
    assert second == [
        SecretVersion("c", "ct-c", later, None),
        SecretVersion("b", "ct-b", NOW, later + timedelta(hours=24)),
        SecretVersion("a", "ct-a", NOW - timedelta(days=10), NOW + timedelta(hours=24)),
    ]


def test_valid_versions() -> None:
    current = version("cur", None)
    valid = version("prev", NOW + timedelta(seconds=1))
    edge = version("edge", NOW)
    expired = version("old", NOW - timedelta(seconds=1))
    assert valid_versions([current, valid, edge, expired], NOW) == [current, valid]
    assert valid_versions([], NOW) == []
    assert valid_versions([expired, edge], NOW) == []
