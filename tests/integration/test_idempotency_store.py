"""Idempotency records (mzpay.store.idempotency) against in-process moto."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from devstack.moto_server import atomic_dynamodb
from mzpay.store import idempotency as idempotency_module
from mzpay.store.idempotency import Claim, IdempotencyStore, IdempotencyUnavailable, Record
from tests.integration.races import race
from tests.integration.support import reset_mzpay_caches

REGION = "af-south-1"
TABLE = "mzpay-mz-IdempotencyTable"
NOW = 1_772_366_400.0  # 2026-03-01T12:00:00Z
PK = "01JACC0000000000000000000A#test#order-1"


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The store's clock, and only its clock (boto3 keeps the real one)."""
    fake = Clock()
    monkeypatch.setattr(idempotency_module, "time", types.SimpleNamespace(time=fake.time))
    return fake


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Iterator[IdempotencyStore]:
    monkeypatch.setenv("IDEMPOTENCY_TABLE", TABLE)
    reset_mzpay_caches()
    with mock_aws():
        boto3.client("dynamodb", region_name=REGION).create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        yield IdempotencyStore.from_env()
        reset_mzpay_caches()


def stored(pk: str = PK) -> dict[str, Any] | None:
    item = boto3.resource("dynamodb", region_name=REGION).Table(TABLE).get_item(Key={"pk": pk}).get("Item")
    return dict(item) if item else None


def in_progress(fingerprint: str, lock_expires_at: float) -> Record:
    return Record(
        status="in_progress",
        fingerprint=fingerprint,
        lock_expires_at=lock_expires_at,
        response_status=None,
        response_headers={},
        response_body=None,
    )


def test_a_first_claim_owns_the_key(store: IdempotencyStore) -> None:
    claim = store.claim(PK, "fp-1", lock_seconds=30)
    assert claim.existing is None
    assert isinstance(claim.token, str) and len(claim.token) == 32
    assert stored() == {
        "pk": PK,
        "status": "in_progress",
        "fingerprint": "fp-1",
        "owner": claim.token,
        "lock_expires_at": 1_772_366_430_000,
        "ttl": 1_772_366_400 + 24 * 3600,
    }


def test_a_second_claim_gets_the_in_progress_record(store: IdempotencyStore) -> None:
    first = store.claim(PK, "fp-1", lock_seconds=30)
    second = store.claim(PK, "fp-2", lock_seconds=30)
    assert second == Claim(token=None, existing=in_progress("fp-1", NOW + 30))
    assert stored()["owner"] == first.token  # type: ignore[index]


def test_claims_of_other_keys_are_independent(store: IdempotencyStore) -> None:
    first = store.claim(PK, "fp-1", lock_seconds=30)
    other = store.claim(PK + "-other", "fp-1", lock_seconds=30)
    assert first.token is not None and other.token is not None and first.token != other.token


def test_a_completed_record_is_returned_to_later_claims(store: IdempotencyStore) -> None:
    claim = store.claim(PK, "fp-1", lock_seconds=30)
    assert claim.token is not None
    headers = {"Content-Type": "application/json", "Location": "/v1/payments/01JPAY"}
    store.complete(PK, claim.token, 201, headers, '{"id":"01JPAY","amount":"150.00"}')
    expected = Record(
        status="completed",
        fingerprint="fp-1",
        lock_expires_at=0.0,
        response_status=201,
        response_headers=headers,
        response_body='{"id":"01JPAY","amount":"150.00"}',
    )
    assert store.claim(PK, "fp-1", lock_seconds=30) == Claim(token=None, existing=expected)
    assert store.claim(PK, "fp-other", lock_seconds=30) == Claim(token=None, existing=expected)
    assert store.read(PK) == expected
    item = stored()
    assert item is not None and "lock_expires_at" not in item and item["owner"] == claim.token


def test_a_completed_record_is_never_taken_over(store: IdempotencyStore, clock: Clock) -> None:
    claim = store.claim(PK, "fp-1", lock_seconds=30)
    assert claim.token is not None
    store.complete(PK, claim.token, 200, {}, "{}")
    clock.now = NOW + 3600
    answer = store.claim(PK, "fp-1", lock_seconds=30)
    assert answer.token is None and answer.existing is not None and answer.existing.status == "completed"


def test_only_the_owner_completes(store: IdempotencyStore) -> None:
    store.claim(PK, "fp-1", lock_seconds=30)
    store.complete(PK, "not-the-owner", 200, {}, "{}")  # ignored, no error
    assert store.read(PK) == in_progress("fp-1", NOW + 30)


def test_release_by_the_owner_deletes_the_record(store: IdempotencyStore) -> None:
    claim = store.claim(PK, "fp-1", lock_seconds=30)
    assert claim.token is not None
    store.release(PK, claim.token)
    assert stored() is None
    assert store.read(PK) is None
    again = store.claim(PK, "fp-2", lock_seconds=30)
    assert again.token is not None and again.existing is None


def test_release_with_another_token_does_nothing(store: IdempotencyStore) -> None:
    claim = store.claim(PK, "fp-1", lock_seconds=30)
    before = stored()
    store.release(PK, "not-the-owner")
    assert stored() == before
    assert before is not None and before["owner"] == claim.token


def test_release_of_a_missing_record_does_nothing(store: IdempotencyStore) -> None:
    store.release(PK, "anything")
    assert stored() is None


def test_an_expired_lock_is_taken_over_and_the_old_owner_loses_it(store: IdempotencyStore, clock: Clock) -> None:
    old = store.claim(PK, "fp-1", lock_seconds=30)
    assert old.token is not None
    clock.now = NOW + 30  # lock_expires_at == now: still held
    assert store.claim(PK, "fp-2", lock_seconds=30) == Claim(None, in_progress("fp-1", NOW + 30))
    clock.now = NOW + 30.001  # one millisecond later it has expired
    new = store.claim(PK, "fp-2", lock_seconds=30)
    assert new.existing is None and new.token is not None and new.token != old.token
    assert store.read(PK) == in_progress("fp-2", NOW + 60.001)
    # the old owner can neither complete nor release what it no longer owns
    store.complete(PK, old.token, 200, {}, "{}")
    store.release(PK, old.token)
    assert store.read(PK) == in_progress("fp-2", NOW + 60.001)
    assert stored()["owner"] == new.token  # type: ignore[index]


def test_concurrent_claims_let_exactly_one_request_run(
    store: IdempotencyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with atomic_dynamodb():
        outcomes = race(20, lambda i: store.claim(PK, f"fp-{i}", lock_seconds=30))
    assert [kind for kind, _ in outcomes] == ["ok"] * 20, outcomes
    claims: list[Claim] = [claim for _, claim in outcomes]
    winners = [i for i, claim in enumerate(claims) if claim.token is not None]
    assert len(winners) == 1, claims
    winner = winners[0]
    assert claims[winner].existing is None
    losers = [claim for i, claim in enumerate(claims) if i != winner]
    assert losers == [Claim(None, in_progress(f"fp-{winner}", NOW + 30))] * 19
    assert stored()["owner"] == claims[winner].token  # type: ignore[index]


def test_an_unreachable_store_is_idempotency_unavailable(store: IdempotencyStore) -> None:
    missing = IdempotencyStore("no-such-table")
    with pytest.raises(IdempotencyUnavailable, match="ResourceNotFoundException"):
        missing.claim(PK, "fp-1", lock_seconds=30)
    with pytest.raises(IdempotencyUnavailable, match="ResourceNotFoundException"):
        missing.read(PK)
    with pytest.raises(IdempotencyUnavailable, match="ResourceNotFoundException"):
        missing.complete(PK, "token", 200, {}, "{}")
    with pytest.raises(IdempotencyUnavailable, match="ResourceNotFoundException"):
        missing.release(PK, "token")


def test_from_env_needs_the_table_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IDEMPOTENCY_TABLE", raising=False)
    with pytest.raises(RuntimeError, match=r"^IDEMPOTENCY_TABLE is not set for this function$"):
        IdempotencyStore.from_env()
