"""Webhook delivery latency through the local stack: succeeded charges with a callback_url on a
receiver in this process (loopback), one at a time, each waited for before the next.

The payment.succeeded event is written inside the charge's request, so its latency lies between
two measured bounds: from the charge's answer (the event is already written: a lower bound) and
from the charge's request (before it was written: an upper bound). The path: DynamoDB stream ->
dispatcher -> SQS -> sender -> POST, through moto and the local event source mappings (whose
stream poller idles 0.2 s between empty reads, as Lambda's polls about four times a second).
"""

from __future__ import annotations

import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

from bench.stats import latency_summary
from devstack import launcher

ENV = "mz"
CHARGES = 30
WARMUP = 3
WALLET_OK = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}


class _Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.arrived: dict[str, float] = {}
        self.changed = threading.Condition()

    def wait(self, path: str, timeout: float) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: path in self.arrived, timeout):
                raise RuntimeError(f"no webhook at {path} within {timeout} s")
            return self.arrived[path]


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        arrived = time.perf_counter()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with self.server.changed:
            self.server.arrived.setdefault(self.path, arrived)
            self.server.changed.notify_all()

    def log_message(self, *args: Any) -> None:
        pass


def run() -> list[dict[str, Any]]:
    """p50/p99 of event written -> webhook received, bounded from both sides."""
    from ulid import ULID

    receiver = _Receiver()
    threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    from_answer: list[float] = []
    from_request: list[float] = []
    try:
        with launcher.running(envs=ENV) as stack, requests.Session() as session:
            session.trust_env = False
            gateway = stack.state["regions"][ENV]["gateway"]
            key = stack.state["demo"][ENV]["test_key"]  # the demo account has webhook secrets
            port = receiver.server_address[1]
            for index in range(CHARGES + WARMUP):
                path = f"/hooks/{uuid.uuid4().hex}"
                body = {
                    "payment_id": str(ULID()),
                    "money": {"amount": "150.00", "currency": "MZN"},
                    "source": WALLET_OK,
                    "country": "MZ",
                    "callback_url": f"http://127.0.0.1:{port}{path}",
                }
                headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
                sent = time.perf_counter()
                response = session.post(gateway + "/charges", json=body, headers=headers, timeout=30)
                answered = time.perf_counter()
                if response.status_code != 200 or response.json()["status"] != "succeeded":
                    raise RuntimeError(f"charge: {response.status_code} {response.text}")
                arrived = receiver.wait(path, 30)
                if index >= WARMUP:
                    from_answer.append((arrived - answered) * 1000)
                    from_request.append((arrived - sent) * 1000)
    finally:
        receiver.shutdown()
        receiver.server_close()
    return [
        {"name": "charge answered -> webhook received", **latency_summary(from_answer, "ms")},
        {"name": "charge sent -> webhook received", **latency_summary(from_request, "ms")},
    ]
