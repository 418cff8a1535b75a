"""The one shape of a state change in DynamoDB: an entity's update conditioned on the status and
version it was read with (a lost race is a ConditionalCheckFailed, answered 409 invalid_state)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from mzpay.domain.common.entity import Claimed, Entity
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.expiry import to_resume
from mzpay.store.list_keys import listed_of, with_list_attributes

WRITE_TOKEN = "write_token"
E = TypeVar("E", bound=Entity)
Written = TypeVar("Written")


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
    update = {
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
    return with_list_attributes(update, entity.changed(changes)) if listed_of(entity) is not None else update


@dataclass(frozen=True)
class Queue:
    """An operators' queue in gsi1: the entities whose status is `waiting`, under the partition
    `name`, oldest first (sort key `<created_at>#<id>`); sparse, so reading it never scans."""

    name: str
    waiting: str

    def keys(self, entity: Entity, identity: str) -> dict[str, str]:
        """The index keys of `entity` (whose id is `identity`): none unless it is waiting."""
        if entity.status != self.waiting:
            return {}
        return {"gsi1pk": self.name, "gsi1sk": f"{getattr(entity, 'created_at', '')}#{identity}"}

    def page(
        self, table: Any, size: int, start: dict[str, str] | None
    ) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
        """A page of the queue's items, oldest first, and the key to continue after."""
        from mzpay.store.aws import index_page

        items, last = index_page(table, "gsi1", "gsi1pk", self.name, size, start)
        return items, ({k: last[k] for k in ("pk", "sk", *QUEUE_KEYS)} if last else None)


def queued(update: dict[str, Any], before: Entity, after: Entity, queue: Queue, identity: str) -> dict[str, Any]:
    """`update` (a versioned update of `before` into `after`) also putting the entity in the
    operators' `queue` when it starts waiting, or taking it out when it stops: the queue moves in
    the same conditional write as the status."""
    waiting = queue.waiting
    entering, leaving = after.status == waiting != before.status, before.status == waiting != after.status
    if not (entering or leaving):
        return update
    body = update["Update"]
    if entering:
        keys = queue.keys(after, identity)
        sets = ", ".join(f"#qk{i} = :qk{i}" for i in range(len(keys)))
        body["UpdateExpression"] = body["UpdateExpression"].replace("SET ", f"SET {sets}, ", 1)
        body["ExpressionAttributeValues"].update({f":qk{i}": value for i, value in enumerate(keys.values())})
    else:
        keys = dict.fromkeys(QUEUE_KEYS, "")
        removed = ", ".join(f"#qk{i}" for i in range(len(keys)))
        expression = body["UpdateExpression"]
        body["UpdateExpression"] = (
            expression.replace(" REMOVE ", f" REMOVE {removed}, ", 1)
            if " REMOVE " in expression
            else f"{expression} REMOVE {removed}"
        )
    body["ExpressionAttributeNames"].update({f"#qk{i}": name for i, name in enumerate(keys)})
    return update


QUEUE_KEYS = ("gsi1pk", "gsi1sk")


def with_index_keys(update: dict[str, Any], keys: dict[str, str], indexes: tuple[str, ...]) -> dict[str, Any]:
    """`update` (a versioned_update's Update) also setting the index keys `keys` and removing
    those of `indexes` (gsi1, ...) that `keys` does not have: an item that changes state moves
    in, out of or within its lists in the same write."""
    update = dict(update)
    gone = [f"{index}{part}" for index in indexes for part in ("pk", "sk") if f"{index}{part}" not in keys]
    set_part, _, remove_part = update["UpdateExpression"].partition(" REMOVE ")
    set_part += "".join(f", #i{i} = :i{i}" for i in range(len(keys)))
    removes = [remove_part] if remove_part else []
    removes += [f"#g{i}" for i in range(len(gone))]
    update["UpdateExpression"] = set_part + (" REMOVE " + ", ".join(removes) if removes else "")
    update["ExpressionAttributeNames"] = {
        **update["ExpressionAttributeNames"],
        **{f"#i{i}": name for i, name in enumerate(keys)},
        **{f"#g{i}": name for i, name in enumerate(gone)},
    }
    update["ExpressionAttributeValues"] = {
        **update["ExpressionAttributeValues"],
        **{f":i{i}": value for i, value in enumerate(keys.values())},
    }
    return update


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


def replayed(existing: Claimed[E], fingerprint: str, code: str, message: str, resume: Callable[[E], E]) -> E:
    """A claimed id sent again with its request (else 409 `code`): its entity, `resume`d when its
    creating request left it unsubmitted, so retrying a request that met a fault finishes it
    (409 request_in_progress while that request may still be submitting it)."""
    same_request(existing, fingerprint, code, message)
    leased: Any = existing.entity  # a charge or a refund: an Entity that is also expiry.Leased
    return resume(to_resume(leased))


def rejudged(read: Callable[[], E], write: Callable[[E], Written], lost: type[Exception], what: str) -> Written:
    """`write(read())`: what it wrote (the entity changed, or another one it made). When another
    change lands first (`write` raises `lost`), the entity is read again and `write` judges it
    anew, so a lost race is answered like a later request (refused if the move is no longer
    allowed). 503 processing_error when it keeps losing."""
    for _attempt in range(REJUDGE_ATTEMPTS):
        entity = read()
        try:
            return write(entity)
        except lost:
            continue
    raise ServiceError(503, "processing_error", f"The {what} keeps changing; retry.", headers={"Retry-After": "1"})


REJUDGE_ATTEMPTS = 3
