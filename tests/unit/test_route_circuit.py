"""Routing by health: a route's circuit as a pure state machine over a controlled clock, what a
first answer says of its provider, and the router's choice table (docs/connectors.md)."""

from __future__ import annotations

import pytest

from mzpay.domain.payments.circuit import Circuit, Counts, Route, Thresholds, choose, outcome_of

LIMITS = Thresholds(window_seconds=60, min_volume=5, failure_rate=0.5, cooldown_seconds=30, probe_charges=2)


def failing(failed: int, succeeded: int = 0) -> Counts:
    return Counts(success=succeeded, provider_unavailable=failed)


def test_a_closed_circuit_opens_on_a_sustained_failure_rate_with_enough_volume() -> None:
    closed = Circuit(since=0.0)
    assert closed.evaluate(failing(4), 100.0, LIMITS) == closed  # too few outcomes to judge
    assert closed.evaluate(failing(2, 3), 100.0, LIMITS) == closed  # 40 %: below the rate
    opened = closed.evaluate(failing(3, 2), 100.0, LIMITS)  # 60 % of 5
    assert (opened.state, opened.since, opened.probes) == ("open", 100.0, 0)


def test_an_open_circuit_half_opens_after_the_cooldown_and_lets_a_few_probes_through() -> None:
    opened = Circuit(state="open", since=100.0)
    assert opened.evaluate(Counts(), 129.0, LIMITS) == opened
    assert not opened.admits(LIMITS)
    half = opened.evaluate(Counts(), 130.0, LIMITS)
    assert (half.state, half.since) == ("half_open", 130.0)
    assert half.admits(LIMITS)
    assert half.probed().admits(LIMITS)
    assert not half.probed().probed().admits(LIMITS)  # probe_charges = 2


@pytest.mark.parametrize(
    ("outcome", "state"),
    [("success", "closed"), ("provider_unavailable", "open"), ("timeout", "open"), ("provider_error", "open")],
)
def test_a_half_open_circuit_closes_on_a_probes_success_and_reopens_on_its_failure(outcome: str, state: str) -> None:
    half = Circuit(state="half_open", since=130.0, probes=1)
    after = half.observed(outcome, 131.0)
    assert (after.state, after.since, after.probes) == (state, 131.0, 0)


def test_outcomes_move_closed_and_open_circuits_only_through_evaluate() -> None:
    for circuit in (Circuit(), Circuit(state="open", since=5.0)):
        assert circuit.observed("provider_unavailable", 10.0) == circuit
        assert circuit.observed("success", 10.0) == circuit


def test_an_operators_force_overrides_the_state_until_handed_back() -> None:
    forced_open = Circuit(forced="open")
    assert forced_open.effective == "open" and not forced_open.admits(LIMITS)
    forced_closed = Circuit(state="open", since=1.0, forced="closed")
    assert forced_closed.effective == "closed" and forced_closed.admits(LIMITS)


@pytest.mark.parametrize(
    ("status", "failure_code", "next_action", "extra", "outcome"),
    [
        ("succeeded", None, None, {}, "success"),
        ("failed", "insufficient_funds", None, {}, "success"),  # the provider answered: the payer's doing
        ("failed", "provider_auth_failed", None, {}, "success"),  # an account's credentials, not an outage
        ("failed", "provider_unavailable", None, {}, "provider_unavailable"),
        ("pending", None, None, {}, "timeout"),  # no answer at all
        ("pending", None, None, {"http_status": 503}, "provider_error"),
        ("pending", None, None, {"provider_response_code": "INS-9"}, "success"),  # the payer's prompt timed out
        ("requires_action", None, {"type": "poll"}, {}, "success"),
    ],
)
def test_what_a_first_answer_says_of_its_provider(
    status: str, failure_code: str | None, next_action: object, extra: dict[str, object], outcome: str
) -> None:
    assert outcome_of(status, failure_code, next_action, extra) == outcome


DIRECT, AGGREGATOR = Route("vodacom-mpesa"), Route("paysuite", preference=1, cost_bps=150)
OPEN, HALF, CLOSED = Circuit(state="open", since=1.0), Circuit(state="half_open", since=1.0), Circuit()


@pytest.mark.parametrize(
    ("circuits", "route", "reason"),
    [
        ({}, "vodacom-mpesa", "preferred"),
        ({"vodacom-mpesa": OPEN}, "paysuite", "failover:vodacom-mpesa open"),
        ({"vodacom-mpesa": HALF}, "vodacom-mpesa", "half_open_probe"),
        ({"vodacom-mpesa": HALF.probed().probed().probed()}, "paysuite", "failover:vodacom-mpesa open"),
        ({"vodacom-mpesa": OPEN, "paysuite": OPEN}, "vodacom-mpesa", "all_open"),
        ({"vodacom-mpesa": Circuit(forced="open")}, "paysuite", "failover:vodacom-mpesa open"),
        (
            {"vodacom-mpesa": OPEN, "paysuite": Circuit(state="open", forced="closed")},
            "paysuite",
            "failover:vodacom-mpesa open",
        ),
        ({"paysuite": OPEN}, "vodacom-mpesa", "preferred"),
    ],
)
def test_the_routers_choice_table(circuits: dict[str, Circuit], route: str, reason: str) -> None:
    chosen, why = choose([AGGREGATOR, DIRECT], circuits, LIMITS)
    assert (chosen.route, why) == (route, reason)


def test_preference_then_cost_orders_the_routes() -> None:
    cheap, dear = Route("paysuite", preference=0, cost_bps=100), Route("vodacom-mpesa", preference=0, cost_bps=200)
    assert choose([dear, cheap], {}, LIMITS)[0] == cheap
    preferred = Route("paysuite", preference=-1, cost_bps=900)
    assert choose([DIRECT, preferred], {}, LIMITS)[0] == preferred


def test_failures_in_a_row_open_a_closed_circuit_whatever_the_windows_rate() -> None:
    busy = Counts(success=40, provider_unavailable=4)  # a healthy spell still in the window
    assert Circuit().evaluate(busy, 50.0, LIMITS, streak=4) == Circuit()
    assert Circuit().evaluate(busy, 50.0, LIMITS, streak=5).state == "open"  # consecutive_failures = 5
    opened = Circuit(state="open", since=40.0)
    assert opened.evaluate(Counts(), 50.0, LIMITS, streak=9) == opened  # open waits for its cooldown


def test_a_half_open_circuit_whose_probes_never_answered_probes_again_after_the_cooldown() -> None:
    spent = Circuit(state="half_open", since=100.0, probes=2)
    assert spent.evaluate(Counts(), 129.0, LIMITS) == spent and not spent.admits(LIMITS)
    again = spent.evaluate(Counts(), 130.0, LIMITS)
    assert (again.state, again.since, again.probes) == ("half_open", 130.0, 0) and again.admits(LIMITS)
    assert Circuit(state="half_open", since=100.0).evaluate(Counts(), 500.0, LIMITS).since == 100.0  # no probe yet
