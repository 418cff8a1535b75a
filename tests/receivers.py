"""HTTP servers on loopback that stand for a merchant's webhook endpoint, written once for the
unit, integration and end-to-end tests: each test's receiver says only how it answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import Any, TypeVar

Server = TypeVar("Server", bound=ThreadingHTTPServer)


class LoopbackServer(ThreadingHTTPServer):
    """A server on 127.0.0.1 (a free port unless `port`), each request on its own daemon thread."""

    daemon_threads = True
    path = ""  # where the merchant's endpoint listens

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), handler)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def url(self) -> str:
        """The endpoint's address: the origin and `path`."""
        return self.origin + self.path


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing and answers with `answer`."""

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def answer(self, status: int, headers: dict[str, str] | None = None) -> None:
        """An empty answer with `status` (and `headers`)."""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serving(server: Server, poll_interval: float = 0.05) -> Iterator[Server]:
    """`server` answering on a daemon thread until the block ends; then shut down and closed."""
    Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
