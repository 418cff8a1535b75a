"""The base of every stored entity with a lifecycle (payment, refund, payout, name lookup):
immutable, changed by versioned writes (see store.transitions), built on first use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, ConfigDict


class Entity(BaseModel):
    """A stored entity with a lifecycle (payment, refund, payout): what a store reads and writes.
    Immutable: a change is `changed(changes)`, the entity as the store's versioned update leaves
    it (the version raised; a change to None removes the attribute). Storage keys (pk, sk, index
    keys) are the store's business and are dropped on reading."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    status: str
    version: int
    write_token: str | None = None  # the last transition's own token (see store.transitions.own_write)

    def changed(self, changes: Mapping[str, Any]) -> Self:
        """The entity after `changes` are applied as one versioned write."""
        self.ensure_fields(changes)
        return self.model_copy(update={**changes, "version": self.version + 1})

    def with_changes(self, changes: Mapping[str, Any]) -> Self:
        """The entity with `changes` and the same version (a preview: the event a change records)."""
        self.ensure_fields(changes)
        return self.model_copy(update=dict(changes))

    @classmethod
    def ensure_fields(cls, changes: Mapping[str, Any]) -> None:
        unknown = set(changes) - set(cls.model_fields)
        if unknown:
            raise ValueError(f"{cls.__name__} has no {', '.join(sorted(unknown))}")

    def item(self) -> dict[str, Any]:
        """The attributes as stored (absent, not null, when unset)."""
        return self.model_dump(exclude_none=True)


class Settling(Entity):
    """An entity whose outcome a provider settles (payment, refund, payout, bill payment): why it
    failed, the sweep's index entry while its outcome is awaited (see domain.payments.expiry) and,
    when the provider never answered, how it was reconciled."""

    failure_code: str | None = None
    failure_message: str | None = None
    due_at: str | None = None
    expiry_shard: str | None = None
    reconciliation: str | None = None  # gave_up: the provider never answered within the horizon
    resolution: dict[str, Any] | None = None  # an operator settled it: outcome, note, by, source_ip, at


E = TypeVar("E", bound=Entity)


def stored_fields(record: Any, item: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of the dataclass `record` that the stored `item` has (its keys left out)."""
    return {field.name: item[field.name] for field in fields(record) if field.name in item}


@dataclass(frozen=True)
class Claimed(Generic[E]):
    """An entity found through the merchant's own id (payment_id, refund_id, payout_id), with the
    fingerprint of the request that claimed the id."""

    entity: E
    fingerprint: str


class Reserved(BaseModel):
    """What an entity took of a total with a ceiling (a daily total, a pilot window), kept with it
    so that what it does not end up taking is given back when it settles."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    amount: str
