"""Routing by health, for operators (management API, console): every route's health, forcing a
route open or closed (or back to automatic).
A route's health is installation-wide: every account's live charges on it count, and its
circuit steers every account's new live charges (docs/connectors.md#routing-by-health)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from mzpay.answers import route_health as answers
from mzpay.connectors.registry import LIVE_CONNECTORS
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.circuit import Forced
from mzpay.domain.payments.routing import BINDING_METHODS, PSPS
from mzpay.steps import routing
from mzpay.steps.audit import observe


def routes() -> list[tuple[str, str]]:
    """Every (route, method) a live connector carries: a PSP's own connector for its methods, an
    aggregator for its rails' methods."""
    found = []
    for name, connector in LIVE_CONNECTORS.items():
        rails = connector.rails or (name,)
        for method, (kind, network) in BINDING_METHODS.items():
            if any(rail in PSPS and "live" in PSPS[rail].modes and PSPS[rail].carries(kind, network) for rail in rails):
                found.append((name, method))
    return found


def route_health() -> answers.RouteHealthList:
    return answers.RouteHealthList(routes=[_shown(route, method) for route, method in routes()])


def force_route(route: str, method: str, force: str) -> answers.RouteHealth:
    """Force the route's circuit `open` or `closed`, or hand it back to the circuit (`auto`)."""
    if (route, method) not in routes():
        raise ServiceError(404, "not_found", f"No live connector {route} carries {method}.")
    before = _shown(route, method)
    routing.force(route, method, None if force == "auto" else cast(Forced, force))
    routing.forget()
    after = _shown(route, method)
    observe("route", f"{route}#{method}", before=before.model_dump(), after=after.model_dump())
    return after


def _shown(route: str, method: str) -> answers.RouteHealth:
    shown = routing.public(route, method)
    since = shown["since"]
    shown["since"] = iso(datetime.fromtimestamp(since, UTC)) if since else None
    return answers.RouteHealth.of(shown)
