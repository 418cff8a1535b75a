"""Warm latency in-process: a function's handler, imported once, called over and over with
API Gateway REST (v1) proxy events."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bench.common import LAYER_PATH, FunctionInfo, patched_environ, template_functions
from bench.events import LambdaContext, rest_event
from bench.stats import latency_summary
from devstack.modules import load_module as load_module_file

WARMUP = 100
ITERATIONS = 2000

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True)
class RouteCase:
    """One route of one function, called in-process. Add a case to CASES to measure it."""

    function: str  # logical id in template.yaml
    method: str
    path: str
    expect_status: int = 200
    resource: str | None = None  # the route's path template when it has path parameters
    headers: dict[str, str] | None = None
    body: str | None = None

    @property
    def name(self) -> str:
        return f"{self.function} {self.method} {self.path}"

    def event(self, index: int) -> dict[str, Any]:
        """The event of call number `index` (each call gets its own request id)."""
        return rest_event(
            self.method,
            self.path,
            request_id=f"bench-{index:08d}",
            resource=self.resource,
            headers=self.headers,
            body=self.body,
        )


CASES: list[RouteCase] = [
    RouteCase("GatewayAccessFunction", "GET", "/health"),
    RouteCase("CollectionSystemFunction", "GET", "/v1/version"),
    RouteCase("ManagementAccountsFunction", "GET", "/health"),
]


def load_module(function: FunctionInfo) -> ModuleType:
    """Import `function`'s handler module under a name of its own (bench_fn_<logical id>),
    so that several functions' app.py live side by side in this process."""
    name = f"bench_fn_{function.logical_id}"
    if name in sys.modules:
        return sys.modules[name]
    if str(LAYER_PATH) not in sys.path:  # stays: the layer's deferred imports need it later
        sys.path.insert(0, str(LAYER_PATH))
    sys.path.insert(0, str(function.code_dir))  # only while importing: every function has an app
    try:
        return load_module_file(function.module_file, name)
    finally:
        sys.path.remove(str(function.code_dir))


def check_response(case: RouteCase, response: dict[str, Any]) -> None:
    """Fail loudly unless the handler answered with the expected status."""
    status = response.get("statusCode") if isinstance(response, dict) else None
    if status != case.expect_status:
        raise RuntimeError(f"{case.name}: expected {case.expect_status}, got {status}: {response!r}")


def measure(case: RouteCase, handler: Handler, warmup: int, iterations: int) -> list[float]:
    """Microseconds per call over `iterations` timed calls, after `warmup` untimed ones.
    Events are built and responses checked outside the timed region."""
    context = LambdaContext(case.function)
    for index in range(warmup):
        check_response(case, handler(case.event(index), context))
    samples: list[float] = []
    for index in range(warmup, warmup + iterations):
        event = case.event(index)
        started = time.perf_counter_ns()
        response = handler(event, context)
        samples.append((time.perf_counter_ns() - started) / 1000)
        check_response(case, response)
    return samples


def run(
    cases: list[RouteCase] | None = None, warmup: int = WARMUP, iterations: int = ITERATIONS
) -> list[dict[str, Any]]:
    """p50/p99 (and friends) in microseconds of every case, each function's module imported once
    with its Lambda-like environment set in os.environ for the import and the calls."""
    functions = {function.logical_id: function for function in template_functions()}
    rows = []
    for case in cases or CASES:
        function = functions[case.function]
        with patched_environ(function.environment):
            handler: Handler = getattr(load_module(function), function.attribute)
            samples = measure(case, handler, warmup, iterations)
        rows.append({"name": case.name, **latency_summary(samples, "us")})
    return rows
