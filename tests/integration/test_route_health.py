"""Routing by health against moto: outcome counters sharded (concurrent writes hit different
items, summed on read), a route's circuit opening, half-opening and closing, and an operator's
force (docs/connectors.md#routing-by-health)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from mzpay import deps
from mzpay.connectors.base import ProviderResult
from mzpay.steps import routing
from tests.integration.support import function_stack


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ROUTE_READ_SECONDS", "0")
    with function_stack("GatewayPaymentsFunction", monkeypatch):
        routing.forget()
        yield
        routing.forget()


def _counter_items(route: str, method: str) -> list[dict[str, object]]:
    table = deps.route_health().table
    found: list[dict[str, object]] = []
    for shard in range(deps.route_health().shards):
        answer = table.query(
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": f"ROUTE_HEALTH#{route}#{method}#{shard}"},
        )
        found += answer["Items"]
    return found


def test_concurrent_outcomes_land_on_different_shards_and_sum_on_read(stack: None) -> None:
    store, now = deps.route_health(), 1_000_005.0
    threads = [
        threading.Thread(target=store.record, args=("vodacom-mpesa", "mpesa", "timeout", now), kwargs={"shard": shard})
        for shard in range(store.shards)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    items = _counter_items("vodacom-mpesa", "mpesa")
    assert len(items) == store.shards  # one item per shard: no single hot item
    assert all(item["timeout"] == 1 for item in items)
    store.record("vodacom-mpesa", "mpesa", "success", now + 20)  # a later bucket, a random shard
    counts = store.counts("vodacom-mpesa", "mpesa", now - 60, now + 20)
    assert (counts.timeout, counts.success) == (store.shards, 1)
    assert store.counts("vodacom-mpesa", "mpesa", now + 15, now + 20).timeout == 0  # outside the window


def test_a_failing_route_opens_half_opens_after_its_cooldown_and_closes_on_a_probes_success(stack: None) -> None:
    store, start = deps.route_health(), 2_000_000.0
    unavailable = ProviderResult("failed", None, "provider_unavailable", "down")
    for _ in range(5):  # route_min_volume: 5, all failed
        store.record("vodacom-mpesa", "mpesa", "provider_unavailable", start)
    opened = routing.health("vodacom-mpesa", "mpesa", now=start + 1)
    assert (opened.circuit.state, opened.circuit.since) == ("open", start + 1)
    assert store.circuit("vodacom-mpesa", "mpesa")[0].state == "open"
    half = routing.health("vodacom-mpesa", "mpesa", now=start + 31)  # route_cooldown_seconds: 30
    assert half.circuit.state == "half_open"
    assert store.take_probe("vodacom-mpesa", "mpesa", 3)
    assert routing.observe("vodacom-mpesa", "mpesa", unavailable, now=start + 32) == "provider_unavailable"
    assert store.circuit("vodacom-mpesa", "mpesa")[0].state == "open"  # the probe failed
    half = routing.health("vodacom-mpesa", "mpesa", now=start + 1_000)
    assert half.circuit.state == "half_open"
    routing.observe("vodacom-mpesa", "mpesa", ProviderResult("succeeded", captured=True), now=start + 1_001)
    assert store.circuit("vodacom-mpesa", "mpesa")[0].state == "closed"


def test_an_operators_look_shows_where_the_circuit_would_move_without_writing_it(stack: None) -> None:
    store, start = deps.route_health(), 2_500_000.0
    for _ in range(5):
        store.record("paysuite", "emola", "provider_unavailable", start)
    looked = routing.health("paysuite", "emola", now=start + 1, fresh=True, looking=True)
    assert (looked.circuit.state, looked.circuit.since, looked.counts.total) == ("open", start + 1, 0)
    stored, version = store.circuit("paysuite", "emola")
    assert (stored.state, version) == ("closed", 0)  # nothing written by the look
    opened = routing.health("paysuite", "emola", now=start + 2)  # a charge's read moves it
    assert (opened.circuit.state, store.circuit("paysuite", "emola")[0].state) == ("open", "open")
    later = routing.health("paysuite", "emola", now=start + 40, fresh=True, looking=True)
    assert (later.circuit.state, store.circuit("paysuite", "emola")[0].state) == ("half_open", "open")


def test_probes_through_a_half_open_circuit_are_limited(stack: None) -> None:
    store, start = deps.route_health(), 3_000_000.0
    for _ in range(5):
        store.record("paysuite", "mpesa", "timeout", start)
    routing.health("paysuite", "mpesa", now=start)
    routing.health("paysuite", "mpesa", now=start + 30)
    taken = [store.take_probe("paysuite", "mpesa", 3) for _ in range(5)]
    assert taken == [True, True, True, False, False]


def test_an_operator_forces_a_route_open_then_hands_it_back(stack: None) -> None:
    routing.force("paysuite", "emola", "open")
    health = routing.health("paysuite", "emola", fresh=True)
    assert (health.circuit.forced, health.circuit.effective) == ("open", "open")
    routing.force("paysuite", "emola", None)  # handed back open: it waits for its cooldown, then probes
    health = routing.health("paysuite", "emola", fresh=True)
    assert (health.circuit.forced, health.circuit.state) == (None, "open")
    routing.force("paysuite", "emola", "closed")
    routing.force("paysuite", "emola", None)  # handed back closed: judged afresh from now
    health = routing.health("paysuite", "emola", fresh=True)
    assert (health.circuit.forced, health.circuit.state, health.counts.total) == (None, "closed", 0)


MPESA = {"api_key": "k", "public_key": "p", "service_provider_code": "171717"}
PAYSUITE = {"api_token": "t", "webhook_secret": "w"}


def test_a_forced_open_route_sends_new_charges_to_the_next_and_payments_keep_to_theirs(stack: None) -> None:
    bindings, now = deps.bindings(), "2026-11-29T18:00:00Z"
    bindings.bind("acct_r", "live", "mpesa", "vodacom-mpesa", MPESA, now)
    bindings.bind_route("acct_r", "live", "mpesa", "paysuite", PAYSUITE, 1, 150, now)
    connector, routed = routing.route_charge("acct_r", "live", "mpesa", "vodacom-mpesa")
    assert routed == {"route": "vodacom-mpesa", "reason": "preferred"}
    assert type(connector).__name__ == "MpesaConnector"
    routing.force("vodacom-mpesa", "mpesa", "open")
    connector, routed = routing.route_charge("acct_r", "live", "mpesa", "vodacom-mpesa")
    assert routed == {"route": "paysuite", "reason": "failover:vodacom-mpesa open"}
    assert type(connector).__name__ == "PaysuiteConnector"
    # a payment keeps to the route it was sent on, whatever the circuits say now
    assert type(routing.connector_on("acct_r", "live", "mpesa", "vodacom-mpesa")).__name__ == "MpesaConnector"
    routing.force("vodacom-mpesa", "mpesa", None)  # handed back open: it waits for its cooldown
    assert routing.route_charge("acct_r", "live", "mpesa", "vodacom-mpesa")[1]["route"] == "paysuite"
    routing.force("vodacom-mpesa", "mpesa", "closed")
    assert routing.route_charge("acct_r", "live", "mpesa", "vodacom-mpesa")[1] == {
        "route": "vodacom-mpesa",
        "reason": "preferred",
    }


def test_an_account_with_one_route_is_routed_as_before(stack: None) -> None:
    deps.bindings().bind("acct_s", "live", "mpesa", "paysuite", PAYSUITE, "2026-11-29T18:00:00Z")
    routing.force("paysuite", "mpesa", "open")  # nothing to fail over to: the one route it has
    assert routing.route_charge("acct_s", "live", "mpesa", "vodacom-mpesa")[1] == {
        "route": "paysuite",
        "reason": "only_route",
    }


def test_failures_in_a_row_open_the_circuit_after_a_busy_healthy_spell(stack: None) -> None:
    store, start = deps.route_health(), 4_000_000.0
    for _ in range(30):
        store.record("vodacom-mpesa", "emola", "success", start)
    unavailable = ProviderResult("failed", None, "provider_unavailable", "down")
    for attempt in range(5):
        assert routing.health("vodacom-mpesa", "emola", now=start + attempt).circuit.state == "closed"
        routing.observe("vodacom-mpesa", "emola", unavailable, now=start + attempt)
    assert routing.health("vodacom-mpesa", "emola", now=start + 5).circuit.state == "open"


def test_a_further_route_needs_the_methods_binding_and_rebinding_keeps_it(stack: None) -> None:
    bindings, now = deps.bindings(), "2026-11-29T18:00:00Z"
    with pytest.raises(LookupError):
        bindings.bind_route("acct_t", "live", "mpesa", "paysuite", PAYSUITE, 1, 0, now)
    assert bindings.routes("acct_t", "live", "mpesa") == []  # nothing written
    bindings.bind("acct_t", "live", "mpesa", "vodacom-mpesa", MPESA, now)
    bindings.bind_route("acct_t", "live", "mpesa", "paysuite", PAYSUITE, 1, 0, now)
    bindings.bind("acct_t", "live", "mpesa", "vodacom-mpesa", MPESA, now)  # rebound: its further route stays
    routes, _ = routing.routes_of("acct_t", "live", "mpesa", "vodacom-mpesa")
    assert [route.route for route in routes] == ["vodacom-mpesa", "paysuite"]
    assert "further_routes" not in bindings.of_account("acct_t")[0]  # the binding's answer is unchanged


def test_concurrent_outcomes_on_random_shards_spread_over_items_and_none_is_lost(stack: None) -> None:
    store, now = deps.route_health(), 5_000_003.0
    threads = [threading.Thread(target=store.record, args=("paysuite", "mpesa", "success", now)) for _ in range(48)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    items = _counter_items("paysuite", "mpesa")
    assert len(items) > store.shards // 2  # 48 writes on 8 shards: never one hot item
    assert sum(int(str(item["success"])) for item in items) == 48
    assert store.counts("paysuite", "mpesa", now, now).success == 48
