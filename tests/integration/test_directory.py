"""The tenant directory (accounts, API keys, hash pointers) against in-process moto, including
concurrent writers racing for the same item."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from devstack.moto_server import atomic_dynamodb
from mzpay.domain.access.keys import generate_key, key_hash
from mzpay.domain.common.errors import ServiceError
from mzpay.store.account_names import AccountNames
from mzpay.store.aws import is_conditional_failure
from mzpay.store.directory import ApiKey, Directory
from tests.integration.races import race
from tests.integration.support import directory_table, new_api_key
from tests.unit.builders import account

REGION = "af-south-1"
TABLE = "mzpay-directory"
PEPPER = "test-pepper"
NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def directory(monkeypatch: pytest.MonkeyPatch) -> Iterator[Directory]:
    with directory_table(monkeypatch, TABLE):
        yield Directory.from_env()


def all_items() -> list[dict[str, Any]]:
    table = boto3.resource("dynamodb", region_name=REGION).Table(TABLE)
    response = table.scan(ConsistentRead=True)
    items = response["Items"]
    while "LastEvaluatedKey" in response:
        response = table.scan(ConsistentRead=True, ExclusiveStartKey=response["LastEvaluatedKey"])
        items += response["Items"]
    return items


def items_with_prefix(prefix: str) -> list[dict[str, Any]]:
    return sorted((item for item in all_items() if item["pk"].startswith(prefix)), key=lambda item: item["pk"])


def api_key(key_id: str, account_id: str = "01JACC0000000000000000000A", **changes: Any) -> tuple[ApiKey, str]:
    return new_api_key(key_id, account_id, PEPPER, **changes)


def service_error(call: Callable[..., Any], *args: Any) -> tuple[int, str, str]:
    with pytest.raises(ServiceError) as caught:
        call(*args)
    return (caught.value.status, caught.value.code, caught.value.message)


# ---------------------------------------------------------------- accounts
def test_create_and_get_an_account(directory: Directory) -> None:
    directory.create_account(account())
    assert directory.get_account("01JACC0000000000000000000A") == account()
    assert items_with_prefix("ACCOUNT#") == [
        {
            "pk": "ACCOUNT#01JACC0000000000000000000A",
            "sk": "ACCOUNT",
            "account_id": "01JACC0000000000000000000A",
            "name": "Loja Maputo",
            "home_region": "mz",
            "status": "active",
            "reason": "",
            "created_at": "2026-03-01T10:00:00Z",
            "updated_at": "2026-03-01T10:00:00Z",
            "version": 1,
        }
    ]


def test_an_unknown_account_is_none(directory: Directory) -> None:
    assert directory.get_account("01JNOSUCHACCOUNT0000000000") is None


def test_an_account_id_is_created_once(directory: Directory) -> None:
    directory.create_account(account())
    with pytest.raises(Exception) as caught:
        directory.create_account(account(name="Another business"))
    assert is_conditional_failure(caught.value)  # the account's put, in its creation transaction
    assert directory.get_account("01JACC0000000000000000000A") == account()
    # nothing of the refused creation was written: its name is not findable
    assert AccountNames(directory.name).starting_with(account().home_region, "Another", 5) == []
    assert AccountNames(directory.name).starting_with(account().home_region, account().name, 5) == [
        ("01JACC0000000000000000000A", account().name)
    ]


def test_change_account_status_moves_status_reason_and_version(directory: Directory) -> None:
    directory.create_account(account())
    suspended = directory.change_account_status(account(), "suspended", "fraud review", NOW)
    expected = account(status="suspended", reason="fraud review", updated_at="2026-03-01T12:00:00Z", version=2)
    assert suspended == expected
    assert directory.get_account("01JACC0000000000000000000A") == expected
    later = datetime(2026, 3, 2, 8, 30, 15, 999, tzinfo=UTC)
    reactivated = directory.change_account_status(suspended, "active", "", later)
    assert reactivated == account(updated_at="2026-03-02T08:30:15Z", version=3)
    assert directory.get_account("01JACC0000000000000000000A") == reactivated


def test_change_account_status_with_a_stale_read_is_invalid_state(directory: Directory) -> None:
    directory.create_account(account())
    stale = directory.get_account("01JACC0000000000000000000A")
    assert stale is not None
    directory.change_account_status(stale, "suspended", "first", NOW)
    assert service_error(directory.change_account_status, stale, "suspended", "second", NOW) == (
        409,
        "invalid_state",
        "The account changed meanwhile; read it and retry.",
    )
    assert directory.get_account("01JACC0000000000000000000A") == account(
        status="suspended", reason="first", updated_at="2026-03-01T12:00:00Z", version=2
    )


def test_change_status_of_a_missing_account_is_invalid_state(directory: Directory) -> None:
    assert service_error(directory.change_account_status, account(), "suspended", "", NOW)[:2] == (
        409,
        "invalid_state",
    )
    assert all_items() == []  # the update did not create the item


# ---------------------------------------------------------------- keys
def test_create_key_writes_the_key_and_its_hash_pointer(directory: Directory) -> None:
    key, secret = api_key("01JKEY000000000000000000A1", ip_allowlist=["10.0.0.0/8"], allowed_customers=["cus_1"])
    directory.create_key(key)
    assert directory.get_key("01JKEY000000000000000000A1") == key
    assert directory.key_by_hash(key_hash(secret, PEPPER)) == key
    assert items_with_prefix("KEYHASH#") == [
        {
            "pk": f"KEYHASH#{key.key_hash}",
            "sk": "KEY",
            "key_id": "01JKEY000000000000000000A1",
            "account_id": "01JACC0000000000000000000A",
        }
    ]
    stored = items_with_prefix("KEY#")
    assert stored == [key.item()]
    assert "expires_at" not in stored[0] and "rolled_to" not in stored[0]
    assert secret not in str(all_items())  # only the hash is stored


def test_unknown_keys_and_hashes_are_none(directory: Directory) -> None:
    assert directory.get_key("01JNOSUCHKEY00000000000000") is None
    assert directory.key_by_hash(key_hash(generate_key("test"), PEPPER)) is None


def test_a_key_hash_with_another_pepper_is_not_found(directory: Directory) -> None:
    key, secret = api_key("01JKEY000000000000000000A1")
    directory.create_key(key)
    assert directory.key_by_hash(key_hash(secret, "another-pepper")) is None


def test_a_key_id_or_a_hash_is_created_once(directory: Directory) -> None:
    key, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(key)
    same_id, _ = api_key("01JKEY000000000000000000A1")
    same_hash = replace(key, key_id="01JKEY000000000000000000A2")
    for duplicate in (same_id, same_hash):
        with pytest.raises(Exception) as caught:
            directory.create_key(duplicate)
        assert caught.value.response["Error"]["Code"] == "TransactionCanceledException"  # type: ignore[attr-defined]
    assert sorted((item["pk"], item["sk"]) for item in all_items()) == sorted(
        [
            (f"KEY#{key.key_id}", "KEY"),
            (f"KEYHASH#{key.key_hash}", "KEY"),
            (f"ACCOUNT#{key.account_id}", f"APIKEY#{key.key_id}"),  # the account's list of its keys
        ]
    )


def test_roll_key_marks_the_old_key_rolled_and_creates_the_new_one(directory: Directory) -> None:
    old, old_secret = api_key("01JKEY000000000000000000A1")
    directory.create_key(old)
    new, new_secret = api_key("01JKEY000000000000000000B2", created_at="2026-03-01T12:00:00Z")
    directory.roll_key(old, new, "2026-03-02T12:00:00Z")
    rolled = replace(old, status="rolled", expires_at="2026-03-02T12:00:00Z", rolled_to="01JKEY000000000000000000B2")
    assert directory.get_key(old.key_id) == rolled
    assert directory.key_by_hash(key_hash(old_secret, PEPPER)) == rolled  # still found during the overlap
    assert directory.get_key(new.key_id) == new
    assert directory.key_by_hash(key_hash(new_secret, PEPPER)) == new
    assert len(items_with_prefix("KEY#")) == 2
    assert len(items_with_prefix("KEYHASH#")) == 2
    assert [key.key_id for key in directory.account_keys(old.account_id)] == [new.key_id, old.key_id]  # newest first


def test_rolling_a_rolled_key_is_already_rolled_and_writes_nothing(directory: Directory) -> None:
    old, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(old)
    first, _ = api_key("01JKEY000000000000000000B2")
    directory.roll_key(old, first, "2026-03-02T12:00:00Z")
    before = sorted(all_items(), key=lambda item: item["pk"])
    second, second_secret = api_key("01JKEY000000000000000000C3")
    assert service_error(directory.roll_key, old, second, "2026-03-03T12:00:00Z") == (
        409,
        "already_rolled",
        "This key was already rolled or revoked.",
    )
    assert directory.get_key(second.key_id) is None
    assert directory.key_by_hash(key_hash(second_secret, PEPPER)) is None
    assert sorted(all_items(), key=lambda item: item["pk"]) == before


def test_rolling_a_revoked_key_is_already_rolled(directory: Directory) -> None:
    old, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(old)
    directory.revoke_key(old)
    new, _ = api_key("01JKEY000000000000000000B2")
    assert service_error(directory.roll_key, old, new, "2026-03-02T12:00:00Z")[:2] == (409, "already_rolled")
    assert directory.get_key(new.key_id) is None
    assert sorted(item["pk"] for item in all_items()) == sorted(
        [f"KEY#{old.key_id}", f"KEYHASH#{old.key_hash}", f"ACCOUNT#{old.account_id}"]  # nothing of the new key
    )


def test_revoke_key(directory: Directory) -> None:
    key, secret = api_key("01JKEY000000000000000000A1")
    directory.create_key(key)
    revoked = directory.revoke_key(key)
    assert revoked == replace(key, status="revoked")
    assert directory.get_key(key.key_id) == revoked
    assert directory.key_by_hash(key_hash(secret, PEPPER)) == revoked  # the authorizer decides what revoked means


def test_revoking_twice_is_invalid_state(directory: Directory) -> None:
    key, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(key)
    directory.revoke_key(key)
    assert service_error(directory.revoke_key, key) == (409, "invalid_state", "This key is already revoked.")
    assert directory.get_key(key.key_id) == replace(key, status="revoked")


def test_a_rolled_key_can_be_revoked(directory: Directory) -> None:
    old, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(old)
    new, _ = api_key("01JKEY000000000000000000B2")
    directory.roll_key(old, new, "2026-03-02T12:00:00Z")
    directory.revoke_key(old)
    assert directory.get_key(old.key_id) == replace(
        old, status="revoked", expires_at="2026-03-02T12:00:00Z", rolled_to=new.key_id
    )
    assert directory.get_key(new.key_id) == new


# ---------------------------------------------------------------- races
# Real threads through boto3 and the directory code; moto applies each request atomically, as
# DynamoDB does (see tests/integration/races.py).
def test_concurrent_rolls_of_one_key_leave_exactly_one_new_key(
    directory: Directory, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, _ = api_key("01JKEY000000000000000000A1")
    directory.create_key(old)
    candidates = [api_key(f"01JKEY0000000000000000N{i:03d}") for i in range(10)]

    with atomic_dynamodb():
        outcomes = race(10, lambda i: directory.roll_key(old, candidates[i][0], "2026-03-02T12:00:00Z"))

    winners = [i for i, (kind, _) in enumerate(outcomes) if kind == "ok"]
    assert len(winners) == 1, outcomes
    losers = [value for kind, value in outcomes if kind == "error"]
    assert [(e.status, e.code) for e in losers if isinstance(e, ServiceError)] == [(409, "already_rolled")] * 9
    winner, winner_secret = candidates[winners[0]]
    assert directory.get_key(old.key_id) == replace(
        old, status="rolled", expires_at="2026-03-02T12:00:00Z", rolled_to=winner.key_id
    )
    assert [item["pk"] for item in items_with_prefix("KEY#")] == sorted([f"KEY#{old.key_id}", f"KEY#{winner.key_id}"])
    assert sorted(item["key_id"] for item in items_with_prefix("KEYHASH#")) == sorted([old.key_id, winner.key_id])
    assert directory.key_by_hash(key_hash(winner_secret, PEPPER)) == winner


def test_concurrent_suspensions_of_one_account_read_at_one_version_let_exactly_one_win(
    directory: Directory, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory.create_account(account())
    read = directory.get_account("01JACC0000000000000000000A")
    assert read is not None

    with atomic_dynamodb():
        outcomes = race(10, lambda i: directory.change_account_status(read, "suspended", f"reason {i}", NOW))

    winners = [i for i, (kind, _) in enumerate(outcomes) if kind == "ok"]
    assert len(winners) == 1, outcomes
    losers = [value for kind, value in outcomes if kind == "error"]
    assert [(e.status, e.code) for e in losers if isinstance(e, ServiceError)] == [(409, "invalid_state")] * 9
    expected = account(status="suspended", reason=f"reason {winners[0]}", updated_at="2026-03-01T12:00:00Z", version=2)
    assert outcomes[winners[0]][1] == expected
    assert directory.get_account("01JACC0000000000000000000A") == expected
