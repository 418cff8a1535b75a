"""Fetching an identity provider's JSON documents (OIDC discovery, JWKS) without letting a
configured URL reach what it must not: https only, every resolved address public (not private,
loopback, link-local...: mzpay.domain.common.network.address_allowed), the connection pinned to a
vetted address, no redirects, a short timeout and a bounded body. Standard library only.

The local stack runs its identity provider on loopback over http: it sets OIDC_ALLOW_LOOPBACK,
which allows loopback addresses, and plain http to them only (never set in template.yaml).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

from mzpay.config import settings
from mzpay.connectors.transport import PinnedHTTPConnection, PinnedHTTPSConnection
from mzpay.domain.common.network import address_allowed

TIMEOUT_SECONDS = 3.0
MAX_BYTES = 512 * 1024


class FetchError(Exception):
    """Why a document could not be fetched (a message for people; `reason` is stable)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def loopback_allowed() -> bool:
    """Only the local stack sets OIDC_ALLOW_LOOPBACK=true (its issuer runs on localhost)."""
    return settings().oidc_allow_loopback


def vetted_addresses(url: str, allow_loopback: bool) -> tuple[str, str, int, list[str]]:
    """(scheme, host, port, addresses) of `url` when it may be fetched, else FetchError."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise FetchError("invalid_url", "not a URL") from exc
    if parts.scheme not in ("https", "http") or not host:
        raise FetchError("invalid_url", "only https URLs are fetched")
    if parts.scheme == "http" and not allow_loopback:
        raise FetchError("invalid_url", "only https URLs are fetched")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        raise FetchError("dns_error", f"the host {host} does not resolve") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses or not all(address_allowed(a, allow_loopback) for a in addresses):
        raise FetchError("address_not_allowed", f"the host {host} resolves to an address that is not public")
    if parts.scheme == "http" and not all(_loopback(a) for a in addresses):
        raise FetchError("invalid_url", "plain http is fetched from loopback only")
    return parts.scheme, host, port, addresses


def _loopback(address: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def fetch_json(url: str, *, timeout: float = TIMEOUT_SECONDS, allow_loopback: bool | None = None) -> dict[str, Any]:
    """GET `url` and parse its JSON object; FetchError for anything else."""
    allow = loopback_allowed() if allow_loopback is None else allow_loopback
    scheme, host, port, addresses = vetted_addresses(url, allow)
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    started = time.monotonic()
    connection_class = PinnedHTTPSConnection if scheme == "https" else PinnedHTTPConnection
    last = FetchError("connection_error", f"{host} could not be reached")
    for address in addresses:
        remaining = timeout - (time.monotonic() - started)
        if remaining <= 0:
            raise FetchError("timeout", f"{host} did not answer within {timeout:g} s")
        connection = connection_class(host, port, address, remaining)
        try:
            connection.request("GET", target, headers={"Accept": "application/json", "Connection": "close"})
            response = connection.getresponse()
            if response.status != 200:
                raise FetchError("http_status", f"{host} answered {response.status}")
            body = response.read(MAX_BYTES + 1)
        except TimeoutError as exc:
            raise FetchError("timeout", f"{host} did not answer within {timeout:g} s") from exc
        except ssl.SSLError as exc:
            raise FetchError("tls_error", f"TLS with {host} failed") from exc
        except (OSError, http.client.HTTPException):
            continue
        finally:
            connection.close()
        if len(body) > MAX_BYTES:
            raise FetchError("too_large", f"the document at {host} is larger than {MAX_BYTES} bytes")
        try:
            document = json.loads(body)
        except ValueError as exc:
            raise FetchError("not_json", f"the document at {host} is not JSON") from exc
        if not isinstance(document, dict):
            raise FetchError("not_json", f"the document at {host} is not a JSON object")
        return document
    raise last
