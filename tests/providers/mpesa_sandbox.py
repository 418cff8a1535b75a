"""A loopback HTTP server that plays Vodacom M-Pesa's C2B single-stage endpoint for tests.

It holds its own RSA key pair: `public_key` (base64 DER, as the developer portal hands it out)
goes into the connector's credentials, and every bearer token is decrypted with the private
key and compared with `api_key`. The answer is a pure function of the payer number's last
four digits:

| ends in | answer |
|---|---|
| 0000 | 201 INS-0, with conversation and transaction ids derived from the transaction reference |
| 0001 | 422 INS-2006 Insufficient balance |
| 0002 | 401 INS-5 Transaction cancelled by customer |
| 0003 | 201 INS-0, after `slow_seconds` (longer than the client waits) |
| 0004 | 503 with an HTML body and no INS code (the gateway in front of the API) |
| 0005 | 400 INS-2051 Invalid MSISDN |
| 0006 | 409 INS-10 Duplicate Transaction |
| other | 401 INS-6 Transaction Failed |

A token that does not decrypt to `api_key` gets 401 INS-2 Invalid API Key; another path, 404.
HTTP statuses follow the portal's response-code table.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

C2B_PATH = "/ipg/v1x/c2bPayment/singleStage/"

# last four digits -> (HTTP status, output_ResponseCode, output_ResponseDesc)
OUTCOMES: dict[str, tuple[int, str, str]] = {
    "0000": (201, "INS-0", "Request processed successfully"),
    "0001": (422, "INS-2006", "Insufficient balance"),
    "0002": (401, "INS-5", "Transaction cancelled by customer"),
    "0003": (201, "INS-0", "Request processed successfully"),
    "0005": (400, "INS-2051", "Invalid MSISDN"),
    "0006": (409, "INS-10", "Duplicate Transaction"),
}
OTHER = (401, "INS-6", "Transaction Failed")
SLOW = "0003"
UNAVAILABLE = "0004"


def conversation_id(transaction_reference: str) -> str:
    """The sandbox's output_ConversationID for a transaction reference."""
    return hashlib.sha256(b"conversation:" + transaction_reference.encode()).hexdigest()[:32]


def transaction_id(transaction_reference: str) -> str:
    """The sandbox's output_TransactionID for a transaction reference."""
    return hashlib.sha256(b"transaction:" + transaction_reference.encode()).hexdigest()[:10].upper()


@dataclass(frozen=True)
class Received:
    """One request as the sandbox saw it. `api_key` is the decrypted bearer token (None if it
    did not decrypt); `headers` have lower-case names."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    api_key: str | None


@dataclass(frozen=True)
class Answered:
    path: str
    status: int
    body: dict[str, Any] | None


class MpesaSandbox:
    """`with MpesaSandbox(api_key="...") as sandbox:`, or `.start()` / `.stop()`."""

    def __init__(self, api_key: str = "sandbox-api-key", slow_seconds: float = 2.0) -> None:
        self.api_key = api_key
        self.slow_seconds = slow_seconds
        self.requests: list[Received] = []
        self.answers: list[Answered] = []
        self._private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        der = self._private_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.public_key = base64.b64encode(der).decode()
        self._lock = threading.Lock()
        self._answered = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the sandbox is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def credentials(self, **overrides: str) -> dict[str, str]:
        """Connector credentials that this sandbox accepts."""
        return {
            "api_key": self.api_key,
            "public_key": self.public_key,
            "service_provider_code": "171717",
            "base_url": self.base_url,
            "origin": "developer.mpesa.vm.co.mz",
            **overrides,
        }

    def start(self) -> MpesaSandbox:
        sandbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                sandbox._handle(self)

            def do_GET(self) -> None:
                sandbox._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="mpesa-sandbox", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes a slow answer so it does not outlive the test
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> MpesaSandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_answers(self, count: int, timeout: float = 5.0) -> list[Answered]:
        """The answers once `count` were sent (a slow one arrives after the client gave up)."""
        with self._answered:
            if not self._answered.wait_for(lambda: len(self.answers) >= count, timeout):
                raise AssertionError(f"the sandbox sent {len(self.answers)} answers, expected {count}")
            return list(self.answers)

    def _decrypt(self, authorization: str) -> str | None:
        scheme, _, token = authorization.partition(" ")
        if scheme != "Bearer" or not token:
            return None
        try:
            return self._private_key.decrypt(base64.b64decode(token, validate=True), padding.PKCS1v15()).decode()
        except ValueError:  # bad base64, bad padding or bad UTF-8
            return None

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        api_key = self._decrypt(handler.headers.get("Authorization", ""))
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self._lock:
            self.requests.append(Received(handler.command, handler.path, headers, body, api_key))

        if handler.path != C2B_PATH or handler.command != "POST":
            self._send(handler, 404, None)
            return
        if api_key != self.api_key:
            self._send(handler, 401, {"output_ResponseCode": "INS-2", "output_ResponseDesc": "Invalid API Key"})
            return
        fields = body if isinstance(body, dict) else {}
        reference = str(fields.get("input_TransactionReference", ""))
        digits = str(fields.get("input_CustomerMSISDN", ""))[-4:]
        if digits == UNAVAILABLE:
            self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        if digits == SLOW:
            self._stopping.wait(self.slow_seconds)
        status, code, description = OUTCOMES.get(digits, OTHER)
        answer = {
            "output_ConversationID": conversation_id(reference),
            "output_TransactionID": transaction_id(reference) if code == "INS-0" else "N/A",
            "output_ResponseCode": code,
            "output_ResponseDesc": description,
            "output_ThirdPartyReference": str(fields.get("input_ThirdPartyReference", "")),
        }
        self._send(handler, status, answer)

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        answer: dict[str, Any] | None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> None:
        payload = raw if raw is not None else json.dumps(answer).encode() if answer is not None else b""
        with self._answered:
            self.answers.append(Answered(handler.path, status, answer))
            self._answered.notify_all()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:  # the client gave up (timeout test): nobody reads this answer
            pass
