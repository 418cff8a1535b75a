"""The event envelope: every state change is one immutable event, ordered per account and mode
(ids are ULIDs). The same envelope is served by the events API and delivered by webhook."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from mzpay.domain.common.ids import new_id

API_VERSION = "2026-11-01"
ENVELOPE_FIELDS = ("id", "type", "created_at", "account_id", "mode", "api_version", "resource", "resource_id", "data")


@dataclass(frozen=True)
class Event:
    """One immutable event: the envelope, and where the outbox delivers it (`callback_url`, kept
    beside the envelope, never in it), and what the outbox's own steps route it by (`routing`,
    beside the envelope too: a charge of a customer's payment method names the method)."""

    id: str
    type: str
    created_at: str
    account_id: str
    mode: str
    api_version: str
    resource: str
    resource_id: str
    data: dict[str, Any]
    callback_url: str | None = None
    routing: dict[str, str] | None = None

    def envelope(self) -> dict[str, Any]:
        """{id, type, created_at, account_id, mode, api_version, resource, resource_id, data}."""
        return envelope_of(asdict(self))

    def item(self) -> dict[str, Any]:
        """The attributes as stored (no callback_url nor routing when there is none)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Event:
        fields = {name: item[name] for name in ENVELOPE_FIELDS}
        return cls(**fields, callback_url=item.get("callback_url"), routing=item.get("routing"))


def new_event(
    event_type: str,
    account_id: str,
    mode: str,
    resource: str,
    resource_id: str,
    data: dict[str, Any],
    now: str,
    callback_url: str | None = None,
) -> Event:
    return Event(new_id(), event_type, now, account_id, mode, API_VERSION, resource, resource_id, data, callback_url)


class Owned(Protocol):
    """An entity of an account in one mode."""

    @property
    def account_id(self) -> str: ...

    @property
    def mode(self) -> str: ...


def entity_event(
    kind: str, entity: Owned, resource: str, resource_id: str, view: dict[str, Any], now: str, callback_url: str | None
) -> Event:
    """The event `kind` of an account's `entity`, its `view` as the event's object."""
    return new_event(kind, entity.account_id, entity.mode, resource, resource_id, {"object": view}, now, callback_url)


def envelope_of(item: Mapping[str, Any]) -> dict[str, Any]:
    """The event envelope of a stored event item or stream image, in envelope order (no keys,
    no delivery target)."""
    return {name: item[name] for name in ENVELOPE_FIELDS}
