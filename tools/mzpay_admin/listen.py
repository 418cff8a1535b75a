"""`mzpay-admin listen`: forward an account's events to a local URL while developing, signed as
webhooks are (`Service-Signature` with the account's webhook secret of the key's mode), so a
receiver on a laptop gets what it would get from the service without a public URL.

It polls the gateway's events API with a merchant key (scope events:read), newest first, and
posts each event it has not seen yet, oldest first, to --forward-to, printing one line per
delivery (time, type, event id, the receiver's status). Events that existed when it started are
not forwarded. Nothing is retried: it is a development tool; the service's own deliveries keep
their retries.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from mzpay.webhooks.signing import sign
from mzpay_admin import __version__
from mzpay_admin.client import ManagementClient

PAGE = 100


@dataclass(frozen=True)
class Listening:
    gateway: str
    key: str
    secret: str
    forward_to: str
    interval: float = 1.0
    max_events: int | None = None  # stop after forwarding this many (tests, scripts)
    timeout: float | None = None  # stop after this many seconds


def _newest_first(client: ManagementClient) -> list[dict[str, Any]]:
    body = client.request("GET", f"/v1/events?limit={PAGE}").body
    return [event for event in body.get("data", []) if isinstance(event, dict)]


def forward(event: dict[str, Any], listening: Listening) -> str:
    """Post one event, signed; the receiver's status, or why it could not be reached."""
    payload = json.dumps(event, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": f"mzpay-admin-listen/{__version__}",
        "Service-Signature": sign(payload, [listening.secret], int(time.time())),
        "Service-Event-Id": str(event.get("id", "")),
    }
    request = urllib.request.Request(listening.forward_to, data=payload, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return str(answer.status)
    except urllib.error.HTTPError as error:
        return str(error.code)
    except (urllib.error.URLError, OSError) as error:
        return f"error: {getattr(error, 'reason', error)}"


def listen(listening: Listening, out: TextIO, sleep: Callable[[float], None] = time.sleep) -> int:
    """Poll and forward until interrupted (or max_events / timeout); the number forwarded."""
    client = ManagementClient(listening.gateway, listening.key)
    seen = {event.get("id") for event in _newest_first(client)}  # what existed before: not forwarded
    out.write(f"listening for events at {listening.gateway}, forwarding to {listening.forward_to} (Ctrl-C stops)\n")
    out.flush()
    forwarded = 0
    started = time.monotonic()
    while listening.max_events is None or forwarded < listening.max_events:
        if listening.timeout is not None and time.monotonic() - started > listening.timeout:
            break
        fresh = [event for event in _newest_first(client) if event.get("id") not in seen]
        for event in reversed(fresh):  # oldest first
            seen.add(event.get("id"))
            status = forward(event, listening)
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.write(f"{stamp}  {event.get('type')}  {event.get('id')}  -> {status}\n")
            out.flush()
            forwarded += 1
            if listening.max_events is not None and forwarded >= listening.max_events:
                break
        else:
            sleep(listening.interval)
    return forwarded
