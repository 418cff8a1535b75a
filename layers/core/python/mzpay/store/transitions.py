"""The one shape of a state change in DynamoDB: an entity's update conditioned on the status and
version it was read with (a lost race is a ConditionalCheckFailed, answered 409 invalid_state)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mzpay.domain.entity import Claimed, Entity
from mzpay.domain.errors import ServiceError

WRITE_TOKEN = "write_token"
E = TypeVar("E", bound=Entity)


def write_token() -> str:
    """A token a transition writes with its changes, to recognise its own write afterwards: the
    SDK retries a request whose answer was lost, and the retry then fails the condition that the
    first attempt, which did land, has just changed (see `own_write`)."""
    return secrets.token_hex(8)


def own_write(fresh: Entity | None, token: str) -> bool:
    """True when `fresh` (the entity read after a lost condition) carries this transition's token."""
    return fresh is not None and fresh.write_token == token


def versioned_update(
    table_name: str, key: dict[str, str], entity: Entity, changes: Mapping[str, Any], token: str | None = None
) -> dict[str, Any]:
    """A TransactItem applying `changes` (None removes the attribute) and raising the version, on
    condition that `entity` still has the status and version it was read with; `token` is kept as
    the entity's write_token (see `own_write`)."""
    entity.ensure_fields(changes)
    if token is not None:
        changes = {**changes, WRITE_TOKEN: token}
    removed = [name for name, value in changes.items() if value is None]
    kept = {name: value for name, value in changes.items() if value is not None}
    names = {f"#f{i}": name for i, name in enumerate(kept)} | {f"#r{i}": name for i, name in enumerate(removed)}
    values = {f":v{i}": value for i, value in enumerate(kept.values())}
    expression = "SET " + ", ".join([*(f"#f{i} = :v{i}" for i in range(len(kept))), "#version = #version + :one"])
    if removed:
        expression += " REMOVE " + ", ".join(f"#r{i}" for i in range(len(removed)))
    return {
        "Update": {
            "TableName": table_name,
            "Key": key,
            "UpdateExpression": expression,
            "ConditionExpression": "#status = :expected_status AND #version = :expected_version",
            "ExpressionAttributeNames": {**names, "#status": "status", "#version": "version"},
            "ExpressionAttributeValues": {
                **values,
                ":one": 1,
                ":expected_status": entity.status,
                ":expected_version": entity.version,
            },
        }
    }


def applied(entity: E, changes: Mapping[str, Any], token: str | None = None) -> E:
    """The entity as `versioned_update` leaves it."""
    return entity.changed({**changes, WRITE_TOKEN: token} if token is not None else changes)


def claimed(table: Any, claim_key: dict[str, str], id_field: str, get: Callable[[str], E | None]) -> Claimed[E] | None:
    """The entity a merchant's id (payment_id, refund_id, payout_id) was claimed for, with its
    request's fingerprint; None when the id was never used."""
    claim = table.get_item(Key=claim_key, ConsistentRead=True).get("Item")
    return None if claim is None else claim_of(claim, id_field, get)


def claim_of(claim: Mapping[str, Any], id_field: str, get: Callable[[str], E | None]) -> Claimed[E] | None:
    entity = get(claim[id_field])  # written with the claim, in one transaction
    return None if entity is None else Claimed(entity, claim["fingerprint"])


def same_request(existing: Claimed[Any], fingerprint: str, code: str, message: str) -> None:
    """A claimed id sent again must carry the request it was claimed for; else 409 `code`."""
    if existing.fingerprint != fingerprint:
        raise ServiceError(409, code, message)


def rejudged(read: Callable[[], E], write: Callable[[E], E], lost: type[Exception], what: str) -> E:
    """`write(read())`. When another change lands first (`write` raises `lost`), the entity is
    read again and `write` judges it anew, so a lost race is answered like a later request
    (refused if the move is no longer allowed). 503 processing_error when it keeps losing."""
    for _attempt in range(REJUDGE_ATTEMPTS):
        entity = read()
        try:
            return write(entity)
        except lost:
            continue
    raise ServiceError(503, "processing_error", f"The {what} keeps changing; retry.", headers={"Retry-After": "1"})


REJUDGE_ATTEMPTS = 3
