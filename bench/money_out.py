"""Refunds and payouts through the local stack: how long creating each takes (the HTTP answer),
and how long a payout takes to settle (created -> paid, through the event stream, the
dispatcher, PayoutSettlementQueue and the settlement function)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import requests
from ulid import ULID

from bench.stats import latency_summary
from devstack import launcher

ENV = "mz"
ITERATIONS = 30
WARMUP = 3
WALLET_OK = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}


def run() -> list[dict[str, Any]]:
    refund_ms: list[float] = []
    payout_ms: list[float] = []
    settle_ms: list[float] = []
    with launcher.running(envs=ENV) as stack, requests.Session() as session:
        session.trust_env = False
        gateway = stack.state["regions"][ENV]["gateway"]
        key = stack.state["demo"][ENV]["test_key"]

        def post(path: str, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
            headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
            started = time.perf_counter()
            response = session.post(gateway + path, json=body, headers=headers, timeout=30)
            took = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                raise RuntimeError(f"{path}: {response.status_code} {response.text}")
            return response.json(), took

        for index in range(ITERATIONS + WARMUP):
            charge, _ = post(
                "/charges",
                {
                    "payment_id": str(ULID()),
                    "money": {"amount": "500.00", "currency": "MZN"},
                    "source": WALLET_OK,
                    "country": "MZ",
                },
            )
            _, refund_took = post(
                "/refunds",
                {
                    "refund_id": str(ULID()),
                    "provider_payment_id": charge["provider_payment_id"],
                    "amount": {"amount": "100.00", "currency": "MZN"},
                },
            )
            payout, payout_took = post(
                "/payouts",
                {"payout_id": str(ULID()), "money": {"amount": "100.00", "currency": "MZN"}, "destination": WALLET_OK},
            )
            created = time.perf_counter()
            while True:
                read = session.get(
                    f"{gateway}/v1/payouts/{payout['provider_payout_id']}",
                    headers={"Authorization": f"Bearer {key}"},
                    timeout=30,
                ).json()
                if read["status"] == "paid":
                    break
                if time.perf_counter() - created > 30 or read["status"] not in ("pending", "in_transit"):
                    raise RuntimeError(f"payout did not settle: {read}")
                time.sleep(0.01)
            if index >= WARMUP:
                refund_ms.append(refund_took)
                payout_ms.append(payout_took)
                settle_ms.append((time.perf_counter() - created) * 1000)
    return [
        {"name": "POST /refunds (simulated provider)", **latency_summary(refund_ms, "ms")},
        {"name": "POST /payouts (answered pending)", **latency_summary(payout_ms, "ms")},
        {"name": "payout answered -> paid (read by polling)", **latency_summary(settle_ms, "ms")},
    ]
