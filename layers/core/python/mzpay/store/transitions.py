"""The one shape of a state change in DynamoDB: an entity's update conditioned on the status and
version it was read with (a lost race is a ConditionalCheckFailed, answered 409 invalid_state)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

WRITE_TOKEN = "write_token"


def write_token() -> str:
    """A token a transition writes with its changes, to recognise its own write afterwards: the
    SDK retries a request whose answer was lost, and the retry then fails the condition that the
    first attempt, which did land, has just changed (see `own_write`)."""
    return secrets.token_hex(8)


def own_write(fresh: dict[str, Any] | None, token: str) -> bool:
    """True when `fresh` (the entity read after a lost condition) carries this transition's token."""
    return fresh is not None and fresh.get(WRITE_TOKEN) == token


def versioned_update(
    table_name: str, key: dict[str, str], entity: dict[str, Any], changes: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    """A TransactItem applying `changes` (None removes the attribute) and raising the version, on
    condition that `entity` still has the status and version it was read with; `token` is kept as
    the entity's write_token (see `own_write`)."""
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
                ":expected_status": entity["status"],
                ":expected_version": entity["version"],
            },
        }
    }


def applied(entity: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The entity as `versioned_update` leaves it."""
    after = {**entity, **{k: v for k, v in changes.items() if v is not None}, "version": int(entity["version"]) + 1}
    for name in (k for k, v in changes.items() if v is None):
        after.pop(name, None)
    return after


def claimed(
    table: Any, claim_key: dict[str, str], id_field: str, get: Callable[[str], dict[str, Any] | None]
) -> dict[str, Any] | None:
    """The entity a merchant's id (payment_id, refund_id, payout_id) was claimed for, with the
    claim under `_claim` (its request fingerprint); None when the id was never used."""
    claim = table.get_item(Key=claim_key, ConsistentRead=True).get("Item")
    if claim is None:
        return None
    entity = get(claim[id_field])  # written with the claim, in one transaction
    return None if entity is None else {**entity, "_claim": dict(claim)}


def same_request(existing: dict[str, Any], fingerprint: str, code: str, message: str) -> None:
    """A claimed id sent again must carry the request it was claimed for; else 409 `code`."""
    from mzpay.domain.errors import ServiceError

    if existing["_claim"]["fingerprint"] != fingerprint:
        raise ServiceError(409, code, message)
