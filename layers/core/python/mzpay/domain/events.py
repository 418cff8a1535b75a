"""The event envelope: every state change is one immutable event, ordered per account and mode
(ids are ULIDs). The same envelope is served by the events API and delivered by webhook."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mzpay.domain.ids import new_id

API_VERSION = "2026-11-01"


def new_event(
    event_type: str, account_id: str, mode: str, resource: str, resource_id: str, data: dict[str, Any], now: str
) -> dict[str, Any]:
    """{id, type, created_at, account_id, mode, api_version, resource, resource_id, data}."""
    return {
        "id": new_id(),
        "type": event_type,
        "created_at": now,
        "account_id": account_id,
        "mode": mode,
        "api_version": API_VERSION,
        "resource": resource,
        "resource_id": resource_id,
        "data": data,
    }


ENVELOPE_FIELDS = ("id", "type", "created_at", "account_id", "mode", "api_version", "resource", "resource_id", "data")


def envelope_of(item: Mapping[str, Any]) -> dict[str, Any]:
    """The event envelope of a stored event item, in envelope order (no keys, no delivery target)."""
    return {name: item[name] for name in ENVELOPE_FIELDS}
