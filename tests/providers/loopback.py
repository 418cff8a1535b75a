"""What the providers' loopback sandboxes share: a threaded HTTP server on 127.0.0.1 whose every
request goes to the sandbox's `_handle`, started and stopped with the test (`with Sandbox() as s`)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackSandbox:
    """The base of a provider's sandbox: subclasses implement `_handle(handler)`. `_stopping` is
    set when it stops, so a slow answer waiting on it does not outlive the test."""

    thread_name = "sandbox"

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        if self._server is None:
            raise RuntimeError("the sandbox is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        sandbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                sandbox._handle(self)

            def do_GET(self) -> None:
                sandbox._handle(self)

            def do_PUT(self) -> None:
                sandbox._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=self.thread_name, daemon=True
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @staticmethod
    def _request(handler: BaseHTTPRequestHandler) -> tuple[Any, dict[str, str]]:
        """The request's body (parsed JSON, or None) and its headers (lower-case names)."""
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        return body, {name.lower(): value for name, value in handler.headers.items()}

    @staticmethod
    def _write(handler: BaseHTTPRequestHandler, status: int, payload: bytes, content_type: str) -> None:
        """Send one answer; a client that gave up (a timeout test) is not an error."""
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:
            pass
