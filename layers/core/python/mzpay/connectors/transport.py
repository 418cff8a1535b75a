"""One webhook POST: resolve the callback host, refuse addresses that must not be reached (see
mzpay.domain.common.network.address_allowed), connect to a vetted address only (so a DNS answer that
changes between the check and the connection cannot redirect us), never follow redirects, and
give up after the timeout. Standard library only."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from mzpay.domain.common.network import address_allowed
from mzpay.domain.webhooks.rules import INVALID_URL, REQUEST_TIMEOUT_SECONDS, SSRF_BLOCKED

_MAX_RESPONSE_BYTES = 64 * 1024  # we only need the status; read a little so the peer can finish


@dataclass(frozen=True)
class PostResult:
    """What one attempt got: the HTTP status, or the error that kept it from getting one."""

    status_code: int | None
    latency_ms: int
    error: str | None


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to `address` while speaking HTTP to `host` (Host header)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Connects to `address`; TLS verifies the certificate against `host` (SNI too)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=_tls_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = _tls_context().wrap_socket(sock, server_hostname=self.host)


def _addresses(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    timeout: float = REQUEST_TIMEOUT_SECONDS,
    allow_loopback: bool = False,
) -> PostResult:
    """POST `body` to `url`; never raises for what the network or the receiver does."""
    started = time.monotonic()

    def result(status_code: int | None, error: str | None) -> PostResult:
        return PostResult(status_code, int((time.monotonic() - started) * 1000), error)

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return result(None, INVALID_URL)
    if parts.scheme not in ("http", "https") or not host:
        return result(None, INVALID_URL)
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = _addresses(host, port)
    except (OSError, UnicodeError):
        return result(None, "dns_error")
    if not addresses:
        return result(None, "dns_error")
    # Refuse the host when any of its addresses is refused: a round-robin answer cannot sneak one in.
    if not all(address_allowed(a, allow_loopback) for a in addresses):
        return result(None, SSRF_BLOCKED)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    connection_class = PinnedHTTPSConnection if parts.scheme == "https" else PinnedHTTPConnection
    last_error = "connection_error"
    for address in addresses:
        remaining = timeout - (time.monotonic() - started)
        if remaining <= 0:
            return result(None, "timeout")
        connection = connection_class(host, port, address, remaining)
        try:
            try:
                connection.connect()
            except TimeoutError:
                return result(None, "timeout")
            except ssl.SSLError:
                return result(None, "tls_error")
            except OSError:
                last_error = "connection_error"
                continue  # the next address of the host
            connection.request("POST", target, body=body, headers={**headers, "Connection": "close"})
            response = connection.getresponse()
            status = response.status
            elapsed = result(status, None)
            _drain(response, started, timeout)
            return elapsed
        except TimeoutError:
            return result(None, "timeout")
        except ssl.SSLError:
            return result(None, "tls_error")
        except (OSError, http.client.HTTPException):
            return result(None, "connection_error")
        except ValueError:  # UnicodeError included: a host or path http.client cannot write
            return result(None, INVALID_URL)
        finally:
            connection.close()
    return result(None, last_error)


def _drain(response: http.client.HTTPResponse, started: float, timeout: float) -> None:
    """Read a bounded part of the answer within the time left; what is left is dropped."""
    read = 0
    try:
        while read < _MAX_RESPONSE_BYTES and time.monotonic() - started < timeout:
            chunk = response.read1(8192) if hasattr(response, "read1") else response.read(8192)
            if not chunk:
                return
            read += len(chunk)
    except (OSError, http.client.HTTPException):
        return
