"""One webhook POST (mzpay.connectors.transport) against real sockets on loopback: what arrives,
what each kind of answer or failure is recorded as, and the addresses never connected to."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mzpay.connectors import transport
from tests.receivers import LoopbackServer, QuietHandler, serving

BODY = b'{"id":"01JEVT","type":"payment.succeeded","data":{"amount":"150.00"}}'
HEADERS = {"Content-Type": "application/json", "User-Agent": "mzpay-webhooks/1", "Service-Event-Id": "01JEVT"}


class Receiver(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(Handler)
        self.requests: list[dict[str, Any]] = []


class Handler(QuietHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.body()
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.path.startswith("/slow"):
            time.sleep(1.5)
        status = int(self.path.rsplit("/", 1)[1]) if self.path.startswith("/status/") else 200
        self.send_response(status)
        if status in (301, 302):
            self.send_header("Location", "http://10.0.0.1/elsewhere")
        self.send_header("Content-Length", "2")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a client that timed out
            self.wfile.write(b"ok")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serving(Receiver(), poll_interval=0.02) as server:
        yield server


def post(url: str, **options: Any) -> transport.PostResult:
    return transport.post(url, BODY, HEADERS, **{"allow_loopback": True, **options})


def test_the_body_and_headers_arrive_as_given(receiver: Receiver) -> None:
    result = post(receiver.url + "/hooks/mzpay?shop=1")
    assert result.status_code == 200 and result.error is None
    assert 0 <= result.latency_ms < 2000
    (request,) = receiver.requests
    assert request["path"] == "/hooks/mzpay?shop=1"
    assert request["body"] == BODY
    assert request["headers"]["Host"] == receiver.url.removeprefix("http://")
    assert {k: request["headers"][k] for k in HEADERS} == HEADERS
    assert request["headers"]["Content-Length"] == str(len(BODY))


@pytest.mark.parametrize("status", [201, 204, 400, 410, 500, 503])
def test_the_receivers_status_is_what_the_attempt_got(receiver: Receiver, status: int) -> None:
    result = post(f"{receiver.url}/status/{status}")
    assert (result.status_code, result.error) == (status, None)


def test_a_redirect_is_an_answer_and_is_never_followed(receiver: Receiver) -> None:
    result = post(f"{receiver.url}/status/302")
    assert (result.status_code, result.error) == (302, None)
    assert len(receiver.requests) == 1


def test_no_answer_within_the_timeout_is_a_timeout(receiver: Receiver) -> None:
    started = time.monotonic()
    result = post(f"{receiver.url}/slow", timeout=0.3)
    assert (result.status_code, result.error) == (None, "timeout")
    assert time.monotonic() - started < 1.2
    assert 250 <= result.latency_ms < 1200


def test_nobody_listening_is_a_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = post(f"http://127.0.0.1:{port}/hook")
    assert (result.status_code, result.error) == (None, "connection_error")


def test_an_unknown_host_is_a_dns_error() -> None:
    assert post("https://no-such-host.invalid/hook").error == "dns_error"


@pytest.mark.parametrize("url", ["ftp://shop.example/hook", "https:///hook", "http://[::1/hook", "nope"])
def test_a_url_we_cannot_post_to_is_invalid(url: str) -> None:
    assert post(url).error == "invalid_url"


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00::1]:8080/hook",
        "http://0.0.0.0/hook",
        "http://[::ffff:192.168.0.1]/hook",
    ],
)
def test_refused_addresses_are_never_connected_to(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_connection(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("connected to a refused address")

    monkeypatch.setattr(transport.socket, "create_connection", no_connection)
    refused = post(url)  # one call: its own latency, not a second call's (which may differ by 1 ms)
    assert refused == transport.PostResult(None, refused.latency_ms, "ssrf_blocked")


def test_loopback_is_refused_unless_allowed(receiver: Receiver) -> None:
    assert post(receiver.url + "/hook", allow_loopback=False).error == "ssrf_blocked"
    assert receiver.requests == []
    assert post(receiver.url.replace("127.0.0.1", "localhost") + "/hook", allow_loopback=False).error == "ssrf_blocked"


def test_a_host_is_refused_when_any_of_its_addresses_is(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", 443))]
    answers.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", 443)))
    monkeypatch.setattr(transport.socket, "getaddrinfo", lambda *a, **k: answers)
    assert post("https://rebind.example/hook").error == "ssrf_blocked"


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def test_the_connection_goes_to_the_vetted_address_not_a_second_lookup(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = receiver.server_address[1]
    lookups: list[str] = []

    def resolve(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        lookups.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(transport.socket, "getaddrinfo", resolve)
    result = post(f"http://merchant.example:{port}/hook")
    assert result.status_code == 200
    names = [host for host in lookups if not _is_literal(host)]
    assert names == ["merchant.example"]  # resolved once; the connection went to what was checked
    assert receiver.requests[0]["headers"]["Host"] == f"merchant.example:{port}"
