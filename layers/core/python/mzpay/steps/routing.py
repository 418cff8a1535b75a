"""Routing by health (docs/connectors.md#routing-by-health): which of an account's routes a new
live charge takes, and what its first answer says of that route's health.

A route's health is read at most once per `route_read_seconds` per execution environment (the
circuit item and the window's counters in two reads), moved on by the pure state machine of
mzpay.domain.payments.circuit and written back only when it moves. Only a charge's FIRST
submission is routed: once a charge was sent, everything after it (status queries, callbacks,
refunds, capture) goes to the route recorded on the payment, so no charge ever reaches two
providers, and a charge whose outcome is unknown is reconciled on its route, never rerouted."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from mzpay import deps
from mzpay.config import settings
from mzpay.connectors.base import Connector, ProviderResult
from mzpay.connectors.registry import LIVE_CONNECTORS, carries
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.circuit import FAILURES, Circuit, Counts, Forced, Route, Thresholds, choose, outcome_of
from mzpay.steps.connectors import no_binding

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    circuit: Circuit
    version: int
    counts: Counts
    read_at: float


_read: dict[tuple[str, str], Health] = {}
_streak: dict[tuple[str, str], int] = {}  # failures in a row this environment saw, per route


def route_thresholds() -> Thresholds:
    """The circuit's thresholds, from the settings (mzpay.config.Settings.route_*)."""
    s = settings()
    return Thresholds(
        s.route_window_seconds,
        s.route_min_volume,
        s.route_failure_rate,
        s.route_cooldown_seconds,
        s.route_probe_charges,
        s.route_consecutive_failures,
    )


def forget() -> None:
    """Forget what this environment read (tests; an operator's change answers with a fresh read)."""
    _read.clear()
    _streak.clear()


def health(route: str, method: str, now: float | None = None, fresh: bool = False, looking: bool = False) -> Health:
    """The route's circuit (moved on to `now`) and its outcomes since the circuit last moved,
    within the window; reread when older than route_read_seconds (or `fresh`). `looking` (an
    operator's read): the circuit as it would move, read afresh and never written (the next charge
    moves it)."""
    now = time.time() if now is None else now
    known = _read.get((route, method))
    if known is not None and not fresh and now - known.read_at < settings().route_read_seconds:
        return known
    store, limits = deps.route_health(), route_thresholds()
    circuit, version = store.circuit(route, method)
    if known is not None and known.circuit.since != circuit.since:
        _streak.pop((route, method), None)  # the circuit moved since: its failures in a row are history
    counts = store.counts(route, method, max(circuit.since, now - limits.window_seconds), now)
    moved = circuit.evaluate(counts, now, limits, _streak.get((route, method), 0))
    if looking:
        return Health(moved, version, counts if moved == circuit or moved.state == "closed" else Counts(), now)
    if moved != circuit and store.save(route, method, moved, version, now_iso()):
        circuit, version = moved, version + 1
        _streak.pop((route, method), None)
        if circuit.state != "closed":
            counts = Counts()  # a fresh window starts with the new state
    elif moved != circuit:  # another environment moved it first: take its word
        circuit, version = store.circuit(route, method)
    known = Health(circuit, version, counts, now)
    _read[(route, method)] = known
    return known


def routes_of(account_id: str, mode: str, method: str, psp_id: str) -> tuple[list[Route], tuple[str, Connector] | None]:
    """The account's eligible routes for `method` to the PSP routing chose: its binding (preference
    0, cost 0) and its further routes whose connector carries that PSP; and the binding's
    connector, built from the one read a charge made before routing by health."""
    bound = deps.bindings().binding(account_id, mode, method)
    if bound is None:
        return [], None
    name, credentials, further = bound
    found = [Route(name)] if carries(name, psp_id) else []
    built = (name, LIVE_CONNECTORS[name].build(credentials)) if found else None
    for extra in deps.bindings().routes(account_id, mode, method) if further else []:
        if extra["psp_id"] != name and carries(extra["psp_id"], psp_id):
            found.append(Route(extra["psp_id"], int(extra["preference"]), int(extra["cost_bps"])))
    return found, built


def route_charge(account_id: str, mode: str, method: str, psp_id: str) -> tuple[Connector, dict[str, str]]:
    """The connector a new live charge goes through and `{route, reason}` (reason `only_route`
    when the account has one route: the payment records routing only when there was a choice).
    409 no_connector_binding when no route carries it."""
    routes, bound = routes_of(account_id, mode, method, psp_id)
    if not routes:
        raise no_binding()
    if len(routes) == 1:
        only = routes[0].route
        connector = bound[1] if bound is not None else connector_on(account_id, mode, method, only)
        return connector, {"route": only, "reason": "only_route"}
    limits = route_thresholds()
    circuits = {route.route: health(route.route, method).circuit for route in routes}
    chosen, reason = choose(routes, circuits, limits)
    circuit = circuits[chosen.route]
    probing = circuit.effective == "half_open" and circuit.forced is None
    if probing and not deps.route_health().take_probe(chosen.route, method, limits.probe_charges):
        spent = {**circuits, chosen.route: Circuit(state="open")}  # its probes are taken: as if open
        chosen, reason = choose(routes, spent, limits)
    if bound is not None and bound[0] == chosen.route:
        return bound[1], {"route": chosen.route, "reason": reason}
    return connector_on(account_id, mode, method, chosen.route), {"route": chosen.route, "reason": reason}


def connector_on(account_id: str, mode: str, method: str, route: str) -> Connector:
    """The connector of `route` for the account's method: its binding's or a further route's."""
    bound = deps.bindings().credentials(account_id, mode, method)
    if bound is not None and bound[0] == route:
        return LIVE_CONNECTORS[route].build(bound[1])
    credentials = deps.bindings().route_credentials(account_id, mode, method, route)
    if credentials is None or route not in LIVE_CONNECTORS:
        raise no_binding()
    return LIVE_CONNECTORS[route].build(credentials)


def observe(route: str, method: str, result: ProviderResult, now: float | None = None) -> str:
    """Count what a charge's first answer says of its route (after the payment was written: a
    failure to count is logged, never the charge's failure); a half-open circuit closes on a
    probe's success and opens again on its failure."""
    outcome = outcome_of(result.status, result.failure_code, result.next_action, result.extra)
    now = time.time() if now is None else now
    try:
        deps.route_health().record(route, method, outcome, now)
        streak = _streak[(route, method)] = _streak.get((route, method), 0) + 1 if outcome in FAILURES else 0
        known = _read.get((route, method))
        if streak:  # after a failure the next charge reads the circuit again (and opens it at the streak)
            _read.pop((route, method), None)
        if known is not None and known.circuit.state == "half_open":
            _observe_probe(route, method, outcome, now)
    except Exception:  # health is advisory; the charge already stands
        logger.warning("route health not recorded", extra={"route": route, "method": method, "outcome": outcome})
    return outcome


def _observe_probe(route: str, method: str, outcome: str, now: float) -> None:
    store = deps.route_health()
    circuit, version = store.circuit(route, method)
    moved = circuit.observed(outcome, now)
    if moved != circuit and store.save(route, method, moved, version, now_iso()):
        _read.pop((route, method), None)


def force(route: str, method: str, forced: Forced | None) -> dict[str, Any]:
    """An operator forces the route `open` or `closed`, or hands it back to its circuit (None),
    which starts in the state it was forced to, from now (a route forced closed and handed back
    is judged afresh; one forced open waits for its cooldown, then probes)."""
    store = deps.route_health()
    for _ in range(5):  # a circuit moved meanwhile: read it again
        circuit, version = store.circuit(route, method)
        changed = replace(circuit, forced=forced)
        if forced is None and circuit.forced is not None:  # handed back: the circuit starts where it was forced
            changed = Circuit(state=circuit.forced, since=time.time())
        if store.save(route, method, changed, version, now_iso()):
            break
    else:
        raise ServiceError(409, "conflict", "The route's circuit kept moving; try again.")
    return public(route, method)


def public(route: str, method: str) -> dict[str, Any]:
    """A route's health as operators see it (GET /v1/route-health)."""
    known = health(route, method, fresh=True, looking=True)
    return {
        "route": route,
        "method": method,
        **known.circuit.public(),
        "effective_state": known.circuit.effective,
        "failure_rate": round(known.counts.failure_rate, 4),
        "counts": known.counts.public(),
    }
