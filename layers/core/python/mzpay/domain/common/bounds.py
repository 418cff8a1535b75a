"""The documented maximum of every kind of string a request may carry, and the rules every stored
URL and free text pass (docs/conventions.md, "Limits"). Nothing a request stores can outgrow a
DynamoDB item (400 KB) by construction: the largest request body that passes these is far below.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated
from urllib.parse import unquote, urlsplit

from pydantic import Field, StringConstraints

from mzpay.config import settings
from mzpay.domain.common.card_data import holds_card_number, luhn_valid
from mzpay.domain.common.network import address_allowed

__all__ = ["holds_card_number", "luhn_valid"]  # the card-number rule lives in mzpay.domain.common.card_data

MAX_URL = 2048
MAX_ID = 128  # merchant-chosen ids and references of other systems
MAX_CODE = 64  # network names, enum-like values, tokens' kinds
MAX_NAME = 200  # names of people, businesses, things
MAX_TEXT = 500  # descriptions, reasons, free text
MAX_PHONE = 32
MAX_EMAIL = 254  # RFC 5321
MAX_SECRET = 8192
MAX_SUB_OBJECT_KEYS = 20  # the keys of a free-form source sub-object (bank_transfer, reference, ...)

Id = Annotated[str, StringConstraints(max_length=MAX_ID)]
Code = Annotated[str, StringConstraints(max_length=MAX_CODE)]
Name = Annotated[str, StringConstraints(max_length=MAX_NAME)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Phone = Annotated[str, StringConstraints(max_length=MAX_PHONE)]
Email = Annotated[str, StringConstraints(max_length=MAX_EMAIL)]
Url = Annotated[str, StringConstraints(max_length=MAX_URL)]
SubObject = Annotated[dict[Code, Text], Field(max_length=MAX_SUB_OBJECT_KEYS)]

_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f-\x9f\s]")


def allow_loopback() -> bool:
    """Only the local stack sets WEBHOOK_ALLOW_LOOPBACK=true (its receivers run on localhost)."""
    return settings().webhook_allow_loopback


def url_problem(value: str, allow_path: bool = False) -> str | None:
    """Why `value` cannot be stored as a URL the service will call or send a payer to, or None:
    at most 2,048 characters, no whitespace or control characters, http or https with a host
    (or, with `allow_path`, a path on the service's own host: one / that no / or \\ follows,
    neither raw nor percent-encoded), no backslash (browsers read one as /, so `/\\evil.example`
    would leave the host), and no literal IP host that is not public (loopback only where the
    local stack allows it). The send-time SSRF guard still checks what a name resolves to."""
    if len(value) > MAX_URL:
        return f"at most {MAX_URL} characters"
    if _CONTROL_OR_SPACE.search(value):
        return "no whitespace or control characters"
    if "\\" in value:
        return "no backslash"
    if allow_path and value.startswith("/"):
        decoded = _decoded(value)  # a layer that decodes the path must not find a host in it
        if "\\" in decoded or decoded.startswith("//") or _CONTROL_OR_SPACE.match(decoded[1:2]):
            return "a path on this host: one / that no /, \\ or encoded form of them follows"
        return None
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("http", "https") or not host:
        return "an absolute http:// or https:// URL"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: resolved and checked when it is called
    if not address_allowed(address, allow_loopback()):  # the sender's own rule, applied early
        return "a public host (not a loopback, private, link-local or reserved address)"
    return None


def _decoded(value: str) -> str:
    """`value` with its percent-escapes undone until nothing changes (at most a few rounds: a
    double-encoded %255C is still a backslash to a layer that decodes twice)."""
    for _ in range(4):
        once = unquote(value)
        if once == value:
            break
        value = once
    return value
