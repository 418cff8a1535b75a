"""The local stack's background threads: its own loopback servers (the OIDC issuer, the
secret-scanning keys) and the loops that play managed services (event source mappings, global
table replication)."""

from __future__ import annotations

import logging
import threading
from typing import Any, Self

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

log = logging.getLogger("devstack.threads")


class QuietRequests(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """No access log: every signed-in request of the local stack would print a JWKS line."""


class LoopbackServer:
    """A WSGI application (the subclass, called per request) served on host:port by a daemon
    thread between start() and stop()."""

    thread_name = "loopback"

    def __init__(self, host: str, port: int) -> None:
        self.server: BaseWSGIServer = make_server(host, port, self, threaded=True, request_handler=QuietRequests)
        self._thread: threading.Thread | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        raise NotImplementedError

    def start(self) -> Self:
        self._thread = threading.Thread(target=self.server.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Loop(threading.Thread):
    """A daemon thread calling once() until stop(), like a managed service's poller: a failure is
    logged and the loop goes on (`failure_pause` seconds later). A round that found nothing (once()
    did not answer True) is followed by `pause` seconds of rest, cut short by wake() (something
    new to read: devstack.changes) or stop()."""

    pause = 0.0
    failure_pause = 0.0

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.stopping = threading.Event()
        self.woken = threading.Event()

    def stop(self) -> None:
        self.stopping.set()
        self.woken.set()

    def wake(self) -> None:
        self.woken.set()

    def once(self) -> bool | None:
        """One round; True when it found something (the next round starts at once)."""
        raise NotImplementedError

    def run(self) -> None:
        while not self.stopping.is_set():
            self.woken.clear()  # before the round: a change told during it cuts the rest after it
            busy = False
            try:
                busy = bool(self.once())
            except Exception:  # keep going like the managed service; say why
                if not self.stopping.is_set():
                    log.exception("%s failed", self.name)
                    self.stopping.wait(self.failure_pause)
            if self.pause and not busy:
                self.woken.wait(self.pause)
