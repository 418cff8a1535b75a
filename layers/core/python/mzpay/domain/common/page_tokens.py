"""Opaque page tokens: a list's DynamoDB start key as URL-safe base64 of compact JSON. A token is
taken back only when it decodes to a flat object of strings that the list itself accepts, so a
caller can neither craft a key into another list nor make a read fail on a malformed one."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable

from mzpay.domain.common.errors import invalid_field
from mzpay.domain.common.ids import is_ulid

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_TOKEN = 512


def encode(key: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def decode(token: str, valid: Callable[[dict[str, str]], bool]) -> dict[str, str] | None:
    """The start key `token` holds when `valid` accepts it; None for anything else."""
    try:
        key = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if isinstance(key, dict) and all(isinstance(v, str) for v in key.values()) and valid(key):
            return key
    except (ValueError, binascii.Error, KeyError, TypeError):
        pass
    return None


def page_request(limit: str | None, page_token: str | None, partition: str) -> tuple[int, dict[str, str] | None]:
    """A gateway list's `limit` (1 to 100, default 20) and where `page_token` says to continue in
    the list kept under `partition` (whose sort keys are ULIDs); 400 invalid_request otherwise."""
    try:
        size = DEFAULT_LIMIT if limit is None else int(limit)
    except ValueError:
        size = 0
    if not 1 <= size <= MAX_LIMIT:
        raise invalid_field("limit", f"an integer from 1 to {MAX_LIMIT}")
    if page_token is None:
        return size, None
    start = decode(
        page_token[:MAX_TOKEN],
        lambda key: set(key) == {"pk", "sk"} and key["pk"] == partition and is_ulid(key["sk"]),
    )
    if start is None or len(page_token) > MAX_TOKEN:
        raise invalid_field("page_token", "not a page_token this list gave")
    return size, start


def page(data: list[dict[str, object]], last: dict[str, str] | None) -> dict[str, object]:
    """The gateway's list envelope: the page's items and the token of the next page, if any."""
    token = encode(last) if last else None
    return {"object": "list", "data": data, "has_more": token is not None, "next_page_token": token}


def _tag(body: str, binding: dict[str, str], key: bytes) -> bytes:
    signed = body + "|" + json.dumps(binding, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, signed.encode(), hashlib.sha256).digest()[:16]


def seal(position: str, binding: dict[str, str], key: bytes) -> str:
    """A page token for a merchant's list: where the next page starts (`position`, a sort key of
    the list's index), signed with `key` (HMAC-SHA256) together with the `binding` it is valid for
    (account, mode, list, filters: not carried, so the token stays short), so that it can be
    neither altered nor used for another list, account, mode or filter."""
    body = base64.urlsafe_b64encode(position.encode()).decode().rstrip("=")
    return f"{body}.{base64.urlsafe_b64encode(_tag(body, binding, key)).decode().rstrip('=')}"


def unseal(token: str, binding: dict[str, str], key: bytes) -> str:
    """The position a token `seal` made holds, when it was made for `binding` with `key`; 400
    invalid_request naming page_token for any other token."""
    refused = invalid_field("page_token", "not a page_token this list gave for these filters")
    body, _, tag = token.partition(".")
    if len(token) > MAX_TOKEN or not body or not tag:
        raise refused
    try:
        if not hmac.compare_digest(_tag(body, binding, key), base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4))):
            raise refused
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    except (ValueError, binascii.Error) as exc:
        raise refused from exc
