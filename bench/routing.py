"""Routing by health, in process (gateway payments function's code, in-process moto, warm): what
choosing a live charge's route adds to the charge, against connector_for (how a live charge found
its connector before). The health read is counted apart: an execution environment pays it at most
once per route_read_seconds per route (docs/connectors.md "Routing by health"), and counting an
outcome is one UpdateItem after the payment is written. In-process moto is far slower than
DynamoDB per request: the rows that read the table measure mostly moto."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from bench.payments import _bench_stack
from bench.stats import latency_summary

ITERATIONS = 200
WARMUP = 10
MPESA = {"api_key": "k", "public_key": "p", "service_provider_code": "171717"}
PAYSUITE = {"api_token": "t", "webhook_secret": "w"}


def _timed(call: Callable[[], Any], before: Callable[[], None] | None = None) -> list[float]:
    taken = []
    for index in range(ITERATIONS + WARMUP):
        if before is not None:
            before()
        started = time.perf_counter()
        call()
        if index >= WARMUP:
            taken.append((time.perf_counter() - started) * 1000)
    return taken


def run() -> list[dict[str, Any]]:
    with _bench_stack() as stack:
        os.environ.update(stack.functions["GatewayPaymentsFunction"].environment)
        from mzpay import deps
        from mzpay.connectors.base import ProviderResult
        from mzpay.steps import routing
        from mzpay.steps.connectors import connector_for

        deps.reset()
        routing.forget()
        now = "2026-11-29T18:00:00Z"
        deps.bindings().bind("acct_one", "live", "mpesa", "vodacom-mpesa", MPESA, now)
        deps.bindings().bind("acct_two", "live", "mpesa", "vodacom-mpesa", MPESA, now)
        deps.bindings().bind_route("acct_two", "live", "mpesa", "paysuite", PAYSUITE, 1, 150, now)
        ok = ProviderResult("succeeded", captured=True)
        rows = {
            "connector_for (before: one binding)": _timed(
                lambda: connector_for("acct_one", "live", "mpesa", "vodacom-mpesa")
            ),
            "route_charge, one route": _timed(
                lambda: routing.route_charge("acct_one", "live", "mpesa", "vodacom-mpesa")
            ),
            "route_charge, two routes, health read cached": _timed(
                lambda: routing.route_charge("acct_two", "live", "mpesa", "vodacom-mpesa")
            ),
            "route_charge, two routes, health read afresh": _timed(
                lambda: routing.route_charge("acct_two", "live", "mpesa", "vodacom-mpesa"), routing.forget
            ),
            "observe: one outcome counted": _timed(lambda: routing.observe("vodacom-mpesa", "mpesa", ok)),
        }
        deps.reset()
    base = latency_summary(rows["connector_for (before: one binding)"], "ms")["p50_ms"]
    found = []
    for name, samples in rows.items():
        summary = latency_summary(samples, "ms")
        found.append({"name": name, **summary, "added_p50_ms": summary["p50_ms"] - base})
    return found
