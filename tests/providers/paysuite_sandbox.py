"""A loopback HTTP server that plays PaySuite's API v1 (paysuite.tech/docs) for tests: payment
requests (POST /api/v1/payments), payment reads (GET /api/v1/payments/{id}) and the signed
webhooks PaySuite posts once the payer paid or failed on its checkout page.

Every request needs `Authorization: Bearer <api_token>` (else 401 {"status": "error", "message":
"Unauthenticated."}). A payment request answers 201 {"status": "success", "data": {id, amount,
reference, status: "pending", checkout_url}}; a reference PaySuite already has is 400
{"status": "error", "message": "The reference has already been taken."}. The payer's phone
number never reaches PaySuite (the payer types it on PaySuite's page), so the amount's cents
decide what the payer does, and the webhook that follows is posted to the request's
`callback_url` (or `webhook_url`), signed with `webhook_secret` (X-Webhook-Signature: hex
HMAC-SHA256 of the raw body):

| cents | the sandbox |
|---|---|
| .00 | payer pays: payment.success |
| .01 | payer's wallet is short: payment.failed, error "Insufficient funds" |
| .02 | answers the request after `slow_seconds` (the client gave up), then payment.success (a late callback) |
| .03 | payment.success, posted twice with the same request_id (a duplicate) |
| .04 | payment.success signed with another secret (a bad signature), then nothing |
| .05 | the gateway's 503 HTML page: no payment is made |
| .06 | 400 {"status": "error", "message": "The amount must be at least 1.00."} (refused; nothing made) |
| .07 | the payer never pays: no webhook; the payment stays "pending" |

A webhook is posted only after the request's answer was sent. GET /api/v1/payments/{id} answers
200 with the payment's status ("pending", "paid", "failed") and, once paid, its `transaction`
{id, method, paid_at}; an unknown id is 404 {"status": "error", "message": "Payment not found."}.
`deliveries` keeps each webhook's HTTP status (None when it got no answer)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.providers.loopback import LoopbackSandbox

API_TOKEN = "paysuite-sandbox-token-0123456789abcdef"
WEBHOOK_SECRET = "paysuite-sandbox-webhook-secret"
PAYMENTS_PATH = "/api/v1/payments"
INSUFFICIENT = "Insufficient funds"
# the amount's cents -> what the sandbox plays (see the module's docstring)
PAID, FAILED, SLOW, DUPLICATE, BAD_SIGNATURE, UNAVAILABLE, REFUSED, NEVER = [
    "00",
    "01",
    "02",
    "03",
    "04",
    "05",
    "06",
    "07",
]


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class SandboxPayment:
    id: str
    amount: Decimal
    reference: str
    status: str = "pending"
    transaction: dict[str, Any] | None = None
    callback_url: str | None = None


@dataclass
class Delivery:
    url: str
    event: dict[str, Any]
    status: int | None
    signature: str
    extra: dict[str, Any] = field(default_factory=dict)


def sign(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class PaysuiteSandbox(LoopbackSandbox):
    """`with PaysuiteSandbox() as sandbox:`; `sandbox.credentials()` binds a connector to it."""

    thread_name = "paysuite-sandbox"

    def __init__(self, slow_seconds: float = 2.0, webhook_url: str | None = None) -> None:
        super().__init__()
        self.api_token, self.webhook_secret = API_TOKEN, WEBHOOK_SECRET
        self.slow_seconds = slow_seconds
        self.webhook_url = webhook_url  # PaySuite's dashboard setting: used when a request names none
        self.requests: list[Received] = []
        self.payments: dict[str, SandboxPayment] = {}  # PaySuite id -> payment
        self.deliveries: list[Delivery] = []
        self._lock = threading.Lock()
        self._delivered = threading.Condition(self._lock)

    @property
    def base_url(self) -> str:
        return self.origin + "/api/v1"

    def credentials(self, **overrides: str) -> dict[str, str]:
        return {
            "api_token": self.api_token,
            "webhook_secret": self.webhook_secret,
            "base_url": self.base_url,
            **overrides,
        }

    def by_reference(self, reference: str) -> SandboxPayment | None:
        with self._lock:
            return next((p for p in self.payments.values() if p.reference == reference), None)

    def wait_for_deliveries(self, count: int, timeout: float = 10.0) -> list[Delivery]:
        with self._delivered:
            if not self._delivered.wait_for(lambda: len(self.deliveries) >= count, timeout):
                raise AssertionError(f"the sandbox posted {len(self.deliveries)} webhooks, expected {count}")
            return list(self.deliveries)

    def deliveries_of(self, reference: str, count: int = 1, timeout: float = 30.0) -> list[Delivery]:
        """The webhooks posted for the payment `reference`, once there are `count`."""

        def mine() -> list[Delivery]:
            return [d for d in self.deliveries if d.event.get("data", {}).get("reference") == reference]

        with self._delivered:
            if not self._delivered.wait_for(lambda: len(mine()) >= count, timeout):
                raise AssertionError(f"the sandbox posted {len(mine())} webhooks for {reference}, expected {count}")
            return mine()

    # ---------------------------------------------------------------- the API
    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        body, headers = self._request(handler)
        path = handler.path.split("?", 1)[0]
        with self._lock:
            self.requests.append(Received(handler.command, path, headers, body if isinstance(body, dict) else None))
        if headers.get("authorization") != f"Bearer {self.api_token}":
            self._send(handler, 401, {"status": "error", "message": "Unauthenticated."})
        elif (path, handler.command) == (PAYMENTS_PATH, "POST"):
            self._create(handler, body if isinstance(body, dict) else {})
        elif path.startswith(PAYMENTS_PATH + "/") and handler.command == "GET":
            self._read(handler, path.rsplit("/", 1)[1])
        else:
            self._send(handler, 404, {"status": "error", "message": "Not found."})

    def _create(self, handler: BaseHTTPRequestHandler, fields: dict[str, Any]) -> None:
        try:
            amount = Decimal(str(fields.get("amount")))
        except ArithmeticError:
            self._send(handler, 400, {"status": "error", "message": "The amount field is required."})
            return
        reference = str(fields.get("reference") or "")
        if not reference:
            self._send(handler, 400, {"status": "error", "message": "The reference field is required."})
            return
        cents = f"{amount:.2f}"[-2:]
        if cents == UNAVAILABLE:
            self._write(handler, 503, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        if cents == REFUSED:
            self._send(handler, 400, {"status": "error", "message": "The amount must be at least 1.00."})
            return
        with self._lock:
            if any(p.reference == reference for p in self.payments.values()):
                taken = True
            else:
                taken = False
                payment = SandboxPayment(str(uuid.uuid4()), amount, reference)
                payment.callback_url = str(fields.get("callback_url") or "") or self.webhook_url
                self.payments[payment.id] = payment
        if taken:
            self._send(handler, 400, {"status": "error", "message": "The reference has already been taken."})
            return
        if cents == SLOW:
            self._stopping.wait(self.slow_seconds)
        answer = {
            "status": "success",
            "data": {
                "id": payment.id,
                "amount": f"{amount:.2f}",
                "reference": reference,
                "status": "pending",
                "checkout_url": f"{self.origin}/checkout/{payment.id}",
            },
        }
        self._send(handler, 201, answer)
        if cents != NEVER:
            threading.Thread(target=self._payer_acts, args=(payment, cents), daemon=True).start()

    def _read(self, handler: BaseHTTPRequestHandler, payment_id: str) -> None:
        with self._lock:
            payment = self.payments.get(payment_id)
        if payment is None:
            self._send(handler, 404, {"status": "error", "message": "Payment not found."})
            return
        data: dict[str, Any] = {
            "id": payment.id,
            "amount": f"{payment.amount:.2f}",
            "reference": payment.reference,
            "status": payment.status,
        }
        if payment.transaction:
            data["transaction"] = payment.transaction
        self._send(handler, 200, {"status": "success", "data": data})

    # ---------------------------------------------------------------- the payer and the webhooks
    def _payer_acts(self, payment: SandboxPayment, cents: str) -> None:
        if cents == FAILED:
            with self._lock:
                payment.status = "failed"
            event = self._event(payment, "payment.failed", {"error": INSUFFICIENT})
        else:
            with self._lock:
                payment.status = "paid"
                payment.transaction = {
                    "id": "tr_" + payment.id.replace("-", "")[:12],
                    "method": "emola",
                    "paid_at": "2026-11-29T10:15:00.000000Z",
                }
            event = self._event(payment, "payment.success", {"transaction": payment.transaction})
        secret = "not-the-" + self.webhook_secret if cents == BAD_SIGNATURE else self.webhook_secret
        for _ in range(2 if cents == DUPLICATE else 1):
            self.post_webhook(payment.callback_url, event, secret)

    def _event(self, payment: SandboxPayment, kind: str, more: dict[str, Any]) -> dict[str, Any]:
        return {
            "event": kind,
            "data": {"id": payment.id, "amount": float(payment.amount), "reference": payment.reference, **more},
            "created_at": 1708235285,
            "request_id": str(uuid.uuid4()),
        }

    def post_webhook(self, url: str | None, event: dict[str, Any], secret: str | None = None) -> int | None:
        """Post `event` to `url` signed with `secret` (the webhook secret by default), as
        PaySuite does; the HTTP status it got (None: no answer)."""
        if not url:
            return None
        raw = json.dumps(event).encode()
        signed = sign(raw, secret or self.webhook_secret)
        headers = {
            "Content-Type": "application/json",
            "X-Webhook-Signature": signed,
            "X-Account-Id": "sandbox-account",
            "User-Agent": "PaySuite-Webhook/1.0",
        }
        request = urllib.request.Request(url, data=raw, method="POST", headers=headers)
        status: int | None
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
            error.close()
        except OSError:
            status = None
        with self._delivered:
            self.deliveries.append(Delivery(url, event, status, signed))
            self._delivered.notify_all()
        return status

    def _send(self, handler: BaseHTTPRequestHandler, status: int, answer: dict[str, Any]) -> None:
        self._write(handler, status, json.dumps(answer).encode(), "application/json")


class CallbackReceiver:
    """Stands for our callback route in tests without a stack: keeps each webhook's raw body and
    signature, answers 200."""

    def __init__(self) -> None:
        self.received: list[tuple[bytes, str]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.arrived:
                    receiver.received.append((raw, self.headers.get("X-Webhook-Signature", "")))
                    receiver.arrived.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/callbacks/paysuite"

    def of(self, reference: str, count: int = 1, timeout: float = 10) -> list[tuple[bytes, str]]:
        def mine() -> list[tuple[bytes, str]]:
            return [(raw, signed) for raw, signed in self.received if reference.encode() in raw]

        with self.arrived:
            assert self.arrived.wait_for(lambda: len(mine()) >= count, timeout), mine()
            return mine()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
