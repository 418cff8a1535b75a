"""Token validation on the collection surface: what signing in costs per request.

In-process, against the local OIDC issuer on loopback (devstack/oidc.py):
- cold: a fresh key cache each time, so the JWKS is fetched (HTTP on loopback) and parsed,
  then the RS256 token verified: the first request of an execution environment, or the first
  after the JWKS cache (300 s) expired;
- cached JWKS: the same token verified with the key set already cached: every other request.
Through the local stack over HTTP: a signed-in, licensed route (licence read + token check +
route) next to GET /v1/version (neither), so the difference is what the gate costs end to end.
"""

from __future__ import annotations

import os
import time
from typing import Any

import requests

from bench.stats import latency_summary
from devstack import launcher
from devstack.oidc import OidcIssuer

COLD_ITERATIONS = 100
CACHED_ITERATIONS = 3000
HTTP_WARMUP = 20
HTTP_ITERATIONS = 300
AUDIENCE = "mzpay-collection"


def _in_process() -> list[dict[str, Any]]:
    from mzpay.connectors import oidc as signin

    issuer = OidcIssuer("127.0.0.1", 0, AUDIENCE).start()
    previous = os.environ.get("OIDC_ALLOW_LOOPBACK")
    os.environ["OIDC_ALLOW_LOOPBACK"] = "true"
    try:
        issuer.register_client("mzpay", "bench", ("device:read",), {"account_id": "acc_bench"})
        token = issuer.token_for("mzpay", "bench")
        realm = issuer.realms["mzpay"]
        provider = signin.Provider(realm.issuer, f"{realm.issuer}/jwks", "configured")

        def provider_for(_issuer: str) -> signin.Provider:
            return provider

        def verify(keys: signin.KeySets) -> None:
            signin.verify_access_token(token, provider_for, api_audience=AUDIENCE, key_sets=keys)

        cold: list[float] = []
        for _ in range(COLD_ITERATIONS):
            keys = signin.KeySets()
            started = time.perf_counter_ns()
            verify(keys)
            cold.append((time.perf_counter_ns() - started) / 1e3)
        keys = signin.KeySets()
        verify(keys)
        cached: list[float] = []
        for _ in range(CACHED_ITERATIONS):
            started = time.perf_counter_ns()
            verify(keys)
            cached.append((time.perf_counter_ns() - started) / 1e3)
    finally:
        issuer.stop()
        if previous is None:
            os.environ.pop("OIDC_ALLOW_LOOPBACK", None)
        else:
            os.environ["OIDC_ALLOW_LOOPBACK"] = previous
    return [
        {"name": "token validation, cold (JWKS fetched on loopback)", **_ms(latency_summary(cold, "us"))},
        {"name": "token validation, cached JWKS", **_ms(latency_summary(cached, "us"))},
    ]


def _ms(summary: dict[str, float | int]) -> dict[str, float | int]:
    """Microsecond summary -> the section's millisecond columns."""
    return {key.replace("_us", "_ms"): value / 1000 if key.endswith("_us") else value for key, value in summary.items()}


def _through_stack() -> list[dict[str, Any]]:
    rows = []
    with launcher.running(envs="mz") as stack, requests.Session() as session:
        session.trust_env = False
        url = stack.state["regions"]["mz"]["collection"]
        token = stack.state["demo"]["mz"]["collection_token"]
        cases = [
            ("collection GET /v1/version (no licence, no token)", "/v1/version", {}),
            (
                "collection GET /v1/system/accountopening/checklist (licence + token)",
                "/v1/system/accountopening/checklist",
                {"Authorization": f"Bearer {token}"},
            ),
        ]
        for name, path, headers in cases:
            samples: list[float] = []
            for index in range(HTTP_WARMUP + HTTP_ITERATIONS):
                started = time.perf_counter_ns()
                response = session.get(url + path, headers=headers, timeout=10)
                elapsed = (time.perf_counter_ns() - started) / 1e6
                if response.status_code != 200:
                    raise RuntimeError(f"{name}: {response.status_code} {response.text}")
                if index >= HTTP_WARMUP:
                    samples.append(elapsed)
            rows.append({"name": name, **latency_summary(samples, "ms")})
    return rows


def run() -> list[dict[str, Any]]:
    """Rows of the collection_signin section."""
    return _in_process() + _through_stack()
