"""Routing by health (docs/connectors.md#routing-by-health): what a charge's first answer says
of its route's health, the circuit of a route as a pure state machine over a clock the caller
passes in, and the router's choice among an account's eligible routes.

A route is a connector carrying a rail for a method: `vodacom-mpesa` (M-Pesa's own connector)
or `paysuite` (the aggregator) for `mpesa`. Its circuit is installation-wide, not per account.

    closed --(min_volume outcomes in the window, failure rate >= failure_rate;
              or consecutive_failures failures in a row seen by one execution environment)--> open
    open --(cooldown_seconds after it opened)--> half_open
    half_open --(a probe succeeds)--> closed;  half_open --(a probe fails)--> open
    half_open --(cooldown_seconds without a probe's outcome)--> half_open, probes let through again

An operator may force a route `open` or `closed`; `auto` hands it back to the circuit."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from mzpay.domain.payments.rules import Status

State = Literal["closed", "open", "half_open"]
Forced = Literal["open", "closed"]
OUTCOMES = ("success", "provider_error", "timeout", "provider_unavailable")
FAILURES = frozenset(OUTCOMES[1:])


@dataclass(frozen=True)
class Thresholds:
    """The circuit's settings (mzpay.config.Settings.route_*)."""

    window_seconds: int = 60
    min_volume: int = 5
    failure_rate: float = 0.5
    cooldown_seconds: int = 30
    probe_charges: int = 3
    consecutive_failures: int = 5


@dataclass(frozen=True)
class Counts:
    """Outcomes of a route in a window, by kind."""

    success: int = 0
    provider_error: int = 0
    timeout: int = 0
    provider_unavailable: int = 0

    @property
    def failed(self) -> int:
        return self.provider_error + self.timeout + self.provider_unavailable

    @property
    def total(self) -> int:
        return self.success + self.failed

    @property
    def failure_rate(self) -> float:
        return self.failed / self.total if self.total else 0.0

    def public(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in OUTCOMES}


@dataclass(frozen=True)
class Circuit:
    """A route's circuit: its state since when (epoch seconds), the probes let through while
    half-open, and an operator's override (None: automatic)."""

    state: State = "closed"
    since: float = 0.0
    probes: int = 0
    forced: Forced | None = None

    @property
    def effective(self) -> State:
        return self.forced or self.state

    def evaluate(self, counts: Counts, now: float, limits: Thresholds, streak: int = 0) -> Circuit:
        """The circuit after time passed and `counts` (outcomes since it last changed) were seen;
        `streak`: the failures in a row an execution environment saw last (an outage right after
        a busy healthy spell opens it without waiting for the window's rate to turn)."""
        sustained = counts.total >= limits.min_volume and counts.failure_rate >= limits.failure_rate
        if self.state == "closed" and (sustained or streak >= limits.consecutive_failures):
            return replace(self, state="open", since=now, probes=0)
        if self.state == "open" and now - self.since >= limits.cooldown_seconds:
            return replace(self, state="half_open", since=now, probes=0)
        if self.state == "half_open" and self.probes and now - self.since >= limits.cooldown_seconds:
            return replace(self, since=now, probes=0)  # its probes' outcomes never came back: probe again
        return self

    def admits(self, limits: Thresholds) -> bool:
        """Whether a new charge may go this way now (half-open: while probes are left)."""
        state = self.effective
        return state == "closed" or (state == "half_open" and self.probes < limits.probe_charges)

    def probed(self) -> Circuit:
        """A probe charge was let through while half-open."""
        return replace(self, probes=self.probes + 1) if self.state == "half_open" else self

    def observed(self, outcome: str, now: float) -> Circuit:
        """A charge's outcome on this route: a half-open circuit closes on a probe's success and
        opens again on its failure; closed and open circuits move only by `evaluate`."""
        if self.state != "half_open":
            return self
        return replace(self, state="open" if outcome in FAILURES else "closed", since=now, probes=0)

    def public(self) -> dict[str, Any]:
        return {"state": self.state, "since": self.since, "probes": self.probes, "forced": self.forced}


def outcome_of(status: str, failure_code: str | None, next_action: Any, extra: dict[str, Any]) -> str:
    """What a charge's first answer says of its provider's health: `provider_unavailable` (it
    said it could not handle the charge), `timeout` (no answer: the outcome is unknown),
    `provider_error` (a 5xx answer) or `success` (it answered, whatever the payer did)."""
    if status == Status.FAILED and failure_code == "provider_unavailable":
        return "provider_unavailable"
    if status == Status.PENDING and next_action is None:
        http_status = extra.get("http_status")
        if isinstance(http_status, int) and http_status >= 500:
            return "provider_error"
        if not extra:
            return "timeout"
    return "success"


@dataclass(frozen=True)
class Route:
    """An eligible route of an account's method: the connector (`route`, a LIVE_CONNECTORS key),
    its operator-set preference (lower first) and cost (basis points; lower first on a tie)."""

    route: str
    preference: int = 0
    cost_bps: int = 0


def choose(routes: list[Route], circuits: dict[str, Circuit], limits: Thresholds) -> tuple[Route, str]:
    """The route a new charge takes and why: the first by (preference, cost) whose circuit
    admits it (`preferred`, or `failover:<route> open`); none admits: the first (`all_open`)."""
    ordered = sorted(routes, key=lambda route: (route.preference, route.cost_bps))
    first = ordered[0]
    for route in ordered:
        circuit = circuits.get(route.route, Circuit())
        if circuit.admits(limits):
            if route is first:
                return route, "half_open_probe" if circuit.effective == "half_open" else "preferred"
            skipped = [r.route for r in ordered[: ordered.index(route)]]
            return route, "failover:" + ",".join(f"{name} open" for name in skipped)
    return first, "all_open"
