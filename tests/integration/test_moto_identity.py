"""The local stack knows its own moto: another HTTP server already on moto's port is refused
before anything is provisioned into it."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from devstack.stack import PortsTaken, start_moto


class _Other(BaseHTTPRequestHandler):
    """Another program on the port: an HTTP server that knows nothing of the stack's token."""

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_stack_refuses_a_moto_port_another_server_answers_on(tmp_path: Path) -> None:
    other = ThreadingHTTPServer(("127.0.0.1", 0), _Other)
    serving = threading.Thread(target=other.serve_forever, daemon=True)
    serving.start()
    try:
        with pytest.raises(PortsTaken) as refused:
            start_moto("127.0.0.1", other.server_address[1], tmp_path / "moto.log")
        assert str(refused.value).startswith(f"Address already in use: port {other.server_address[1]} (moto)")
    finally:
        other.shutdown()
        other.server_close()


def test_its_own_moto_answers_its_token() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process, changes = start_moto("127.0.0.1", port, None)
    try:
        assert process.poll() is None  # started, identified, serving
    finally:
        process.kill()
        process.wait(10)
        changes.join(10)  # its pipe closed with moto
