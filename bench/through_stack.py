"""Latency through the local stack: `python -m devstack` in a subprocess on free ports,
spoken to over HTTP with one keep-alive session, one request at a time."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import requests

from bench.stats import latency_summary
from devstack import launcher

ENV = "mz"
WARMUP = 20
ITERATIONS = 300
REQUEST_TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class HttpCase:
    """One request to one API of the running stack. Add a case to CASES to measure it."""

    api: str  # gateway, collection or management (a key of stack.json's regions.<env>)
    method: str
    path: str
    expect_status: int = 200
    headers: dict[str, str] | None = None
    demo_key: str | None = None  # "test_key" or "live_key": send that demo key of stack.json as the bearer

    @property
    def name(self) -> str:
        return f"{self.api} {self.method} {self.path}" + (" (API key)" if self.demo_key else "")

    def request_headers(self, state: dict[str, Any]) -> dict[str, str]:
        headers = dict(self.headers or {})
        if self.demo_key:
            headers["Authorization"] = f"Bearer {state['demo'][ENV][self.demo_key]}"
        return headers


CASES: list[HttpCase] = [
    HttpCase("gateway", "GET", "/health"),
    HttpCase("collection", "GET", "/v1/version"),
    # the warm authenticated path: the gateway authorizer runs for every request (no result cache)
    HttpCase("gateway", "GET", "/v1/api-keys/current", demo_key="test_key"),
]


def measure(
    session: requests.Session, url: str, case: HttpCase, headers: dict[str, str], warmup: int, iterations: int
) -> list[float]:
    """Milliseconds per request over `iterations` timed requests, after `warmup` untimed ones."""
    samples: list[float] = []
    for index in range(warmup + iterations):
        started = time.perf_counter_ns()
        response = session.request(case.method, url, headers=headers, timeout=REQUEST_TIMEOUT_SECONDS)
        elapsed_ms = (time.perf_counter_ns() - started) / 1e6
        if response.status_code != case.expect_status:
            raise RuntimeError(
                f"{case.name}: expected {case.expect_status}, got {response.status_code}: {response.text}"
            )
        if index >= warmup:
            samples.append(elapsed_ms)
    return samples


def run(
    cases: list[HttpCase] | None = None, warmup: int = WARMUP, iterations: int = ITERATIONS
) -> list[dict[str, Any]]:
    """p50/p99 (and friends) in milliseconds of every case through one local stack."""
    rows = []
    with launcher.running(envs=ENV) as stack, requests.Session() as session:
        session.trust_env = False  # no proxy from the environment between us and localhost
        urls = stack.state["regions"][ENV]
        for case in cases or CASES:
            headers = case.request_headers(stack.state)
            samples = measure(session, urls[case.api] + case.path, case, headers, warmup, iterations)
            rows.append({"name": case.name, **latency_summary(samples, "ms")})
    return rows
