"""Per-tenant rate limits against in-process moto: one conditional write counts a request against
its key and its account, so racing requests admit exactly the limit; a fault of the counter
store lets requests through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.exceptions import ReadTimeoutError

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import rate_limits
from mzpay.domain.access.principal import Principal
from mzpay.domain.access.rate_limits import RateLimits
from mzpay.domain.common.errors import ServiceError
from mzpay.store import aws
from tests.integration.races import race
from tests.integration.support import dynamodb_requests, function_stack

ACCOUNT = "01JACCOUNT0000000000000000"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("GatewayPaymentsFunction", monkeypatch) as provisioned:
        yield provisioned


def caller(key_id: str) -> Principal:
    return Principal(ACCOUNT, "test", frozenset(), key_id, frozenset(), None, ACCOUNT)


def outcomes(results: list[tuple[str, object]]) -> list[str]:
    return sorted(
        "ok" if kind == "ok" else f"{value.status} {value.code}"  # type: ignore[attr-defined]
        for kind, value in results
    )


def test_racing_requests_of_one_key_admit_exactly_its_limit(stack: ProvisionedStack) -> None:
    deps.rate_counters().write_override(ACCOUNT, RateLimits(per_key=5, per_account=100), "2026-01-01T00:00:00Z")
    second = 1_900_000_000
    with atomic_dynamodb():
        results = race(12, lambda _: deps.rate_counters().take(ACCOUNT, "KEY1", second, RateLimits(5, 100)))
    assert sorted(str(value) for _, value in results) == ["None"] * 5 + ["key"] * 7


def test_the_account_limit_spans_its_keys(stack: ProvisionedStack) -> None:
    second = 1_900_000_001
    limits = RateLimits(per_key=10, per_account=6)
    with atomic_dynamodb():
        results = race(10, lambda i: deps.rate_counters().take(ACCOUNT, f"KEY{i % 2}", second, limits))
    assert sorted(str(value) for _, value in results) == ["None"] * 6 + ["account"] * 4
    assert deps.rate_counters().take(ACCOUNT, "KEY0", second + 1, limits) is None  # a new window


def test_over_the_limit_is_429_rate_limited_with_retry_after(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps.rate_counters().write_override(ACCOUNT, RateLimits(per_key=2, per_account=100), "2026-01-01T00:00:00Z")
    monkeypatch.setattr(rate_limits, "window", lambda now: 1_900_000_005)  # one window for the whole race
    with atomic_dynamodb():
        results = race(6, lambda _: rate_limits.enforce(caller("KEY9")))
    assert outcomes(results) == ["429 rate_limited"] * 4 + ["ok"] * 2
    refused = next(value for kind, value in results if kind == "error")
    assert isinstance(refused, ServiceError)
    assert (refused.headers, refused.extensions) == ({"Retry-After": "1"}, {"rule": "rate_per_key", "limit": 2})


def test_a_fault_of_the_counter_store_is_a_dependency_fault_answered_503(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    timeout = ReadTimeoutError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")

    def timing_out(*_: object, **__: object) -> None:
        raise timeout

    monkeypatch.setattr(deps.rate_counters(), "take", timing_out)
    with pytest.raises(ReadTimeoutError):
        rate_limits.enforce(caller("KEY1"))
    assert aws.is_dependency_fault(timeout)  # so the handler answers 503 + Retry-After, not 500
    assert rate_limits.enforce(None) is None  # not a merchant route: never counted


# ---------------------------------------------------------------- leases
def test_racing_leases_count_exactly_the_limit_and_never_more(stack: ProvisionedStack) -> None:
    second = 1_900_000_010
    limits = RateLimits(per_key=40, per_account=100)
    with atomic_dynamodb():
        results = race(12, lambda _: deps.rate_counters().lease(ACCOUNT, "KEYL", second, limits, 7))
    granted = [value for _, value in results]
    assert sum(count for count, _ in granted) == 40  # the last leases get what is left, then none
    assert all(over == "key" for count, over in granted if count == 0)
    assert deps.rate_counters().lease(ACCOUNT, "KEYM", second, limits, 7) == (7, None)  # another key
    assert deps.rate_counters().lease(ACCOUNT, "KEYM", second, RateLimits(40, 47), 7) == (0, "account")


def test_a_busy_key_pays_one_write_per_lease_and_small_limits_one_per_request(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_900_000_020.0]
    monkeypatch.setattr(rate_limits.time, "time", lambda: now[0])
    sent = dynamodb_requests()
    for _ in range(30):  # a first window: nothing known of the key's rate, one write a request
        rate_limits.enforce(caller("KEYB"))
    assert sent.count("UpdateItem") == 30
    now[0] += 1
    sent.clear()
    for _ in range(30):  # the next: leases of 10 (a tenth of the default 100 per key)
        rate_limits.enforce(caller("KEYB"))
    assert sent.count("UpdateItem") == 3

    deps.rate_counters().write_override(ACCOUNT, RateLimits(per_key=5, per_account=100), "2026-01-01T00:00:00Z")
    rate_limits._overrides.clear()
    now[0] += 1
    sent.clear()
    admitted = 0
    for _ in range(8):  # a small limit: leases of one, exact to the request
        try:
            rate_limits.enforce(caller("KEYB"))
            admitted += 1
        except ServiceError as refused:
            assert refused.code == "rate_limited"
    assert admitted == 5


def test_racing_requests_with_leases_never_pass_the_limit(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps.rate_counters().write_override(ACCOUNT, RateLimits(per_key=40, per_account=100), "2026-01-01T00:00:00Z")
    now = [1_900_000_030.0]
    monkeypatch.setattr(rate_limits.time, "time", lambda: now[0])
    for _ in range(40):  # a busy first window, all admitted: the next one leases 4 at a time
        rate_limits.enforce(caller("KEYR"))
    now[0] += 1
    with atomic_dynamodb():
        results = race(60, lambda _: rate_limits.enforce(caller("KEYR")))
    admitted = outcomes(results).count("ok")
    assert 0 < admitted <= 40
    assert deps.rate_counters().take(ACCOUNT, "KEYR", 1_900_000_031, RateLimits(40, 100)) == "key"  # counted: 40


def test_a_busy_accounts_window_is_sharded_and_still_admits_exactly_its_limit(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mzpay.domain.access import rate_limits as rules

    monkeypatch.setattr(rules, "SHARD_WRITES", 2)  # 6 a second: 3 shards of 2
    second = 1_900_000_040
    limits = RateLimits(per_key=10, per_account=6)
    assert rules.shards(limits) == 3
    with atomic_dynamodb():
        results = race(10, lambda i: deps.rate_counters().take(ACCOUNT, f"KEY{i % 2}", second, limits))
    assert sorted(str(value) for _, value in results) == ["None"] * 6 + ["account"] * 4
    counters = deps.rate_counters().counters
    keys = [f"RATE#{ACCOUNT}#{second}", f"RATE#{ACCOUNT}#{second}#1", f"RATE#{ACCOUNT}#{second}#2"]
    totals = [counters.get_item(Key={"pk": pk, "sk": "RATE"}, ConsistentRead=True)["Item"]["total"] for pk in keys]
    assert totals == [2, 2, 2]  # no item counted more than its share


def test_a_key_found_full_is_refused_again_in_its_window_without_a_write(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps.rate_counters().write_override(ACCOUNT, RateLimits(per_key=2, per_account=100), "2026-01-01T00:00:00Z")
    monkeypatch.setattr(rate_limits.time, "time", lambda: 1_900_000_050.0)
    sent = dynamodb_requests()
    refusals = 0
    for _ in range(10):
        try:
            rate_limits.enforce(caller("KEYF"))
        except ServiceError as refused:
            assert (refused.code, refused.extensions) == ("rate_limited", {"rule": "rate_per_key", "limit": 2})
            refusals += 1
    assert refusals == 8
    assert sent.count("UpdateItem") == 3  # two admitted, one found full; the other 7 refused locally
