"""Trusted devices of the collection surface: a device is named by the SHA-256 hex digest of
its IMEI (never the IMEI itself). Pure rules (see docs/collection.md, "Devices")."""

from __future__ import annotations

import re

_SHA256_HEX = re.compile(r"^[0-9a-fA-F]{64}$")


def is_device_id(text: object) -> bool:
    """True for a SHA-256 hex digest (64 hex digits, either case)."""
    return isinstance(text, str) and bool(_SHA256_HEX.fullmatch(text))


def canonical_device_id(text: str) -> str:
    """One spelling per device: hex digests compare in lower case."""
    return text.lower()
