"""Name lookups: who holds a wallet or a bank account (NIB), asked of the provider before a
payout. Test mode answers from docs/test-mode.md's magic values; a live lookup needs a
connector that can look names up (none can yet: 422 not_supported). An ambiguous answer lists
candidates; selecting one is a conditional write (only one selection wins)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.ids import is_ulid, new_id
from mzpay.domain.name_lookups import (
    LookupStatus,
    NameLookupRequest,
    ProviderUnavailable,
    candidates,
    ensure_transition,
    simulated_lookup,
    upstream_error,
)
from mzpay.http.principal import Principal, wrong_environment
from mzpay.store.aws import env, is_conditional_failure, table
from mzpay.store.directory import iso


@lru_cache(maxsize=1)
def _table() -> Any:
    return table(env("PAYMENTS_TABLE"))


def _key(lookup_id: str) -> dict[str, str]:
    return {"pk": f"LOOKUP#{lookup_id}", "sk": "LOOKUP"}


def view(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "lookup_id": item["lookup_id"],
        "type": item["type"],
        "status": item["status"],
        "name": item.get("name"),
        "candidates": item.get("candidates") or [],
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def create_lookup(principal: Principal, request: NameLookupRequest) -> dict[str, Any]:
    if principal.mode != "test":
        raise ServiceError(422, "not_supported", "No live provider answers name lookups yet.", rule="operation")
    try:
        status, names = simulated_lookup(request.type, request.identifier)
    except ProviderUnavailable:
        raise upstream_error() from None
    now = iso(datetime.now(UTC))
    item = {
        **_key(lookup_id := new_id()),
        "lookup_id": lookup_id,
        "account_id": principal.acting_account_id,
        "mode": principal.mode,
        "type": request.type,
        "status": status,
        "name": names[0] if status == LookupStatus.RESOLVED else None,
        "candidates": candidates(names),
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }
    _table().put_item(
        Item={k: v for k, v in item.items() if v is not None}, ConditionExpression="attribute_not_exists(pk)"
    )
    return view(item)


def _visible(principal: Principal, lookup_id: str) -> dict[str, Any]:
    item = _table().get_item(Key=_key(lookup_id), ConsistentRead=True).get("Item") if is_ulid(lookup_id) else None
    if item is None or item["account_id"] != principal.acting_account_id:
        raise ServiceError(404, "not_found", "No such name lookup.")
    if item["mode"] != principal.mode:
        raise wrong_environment(principal.mode, item["mode"])
    return dict(item)


def select(principal: Principal, lookup_id: str, candidate_id: str) -> dict[str, Any]:
    """Choose the holder among an ambiguous lookup's candidates (once)."""
    item = _visible(principal, lookup_id)
    ensure_transition(item["status"], "select")
    chosen = next((c for c in item.get("candidates") or [] if c["candidate_id"] == candidate_id), None)
    if chosen is None:
        raise ServiceError(
            400,
            "invalid_request",
            "candidate_id: not a candidate of this lookup.",
            errors=[FieldError("candidate_id", "invalid_value", "not a candidate of this lookup")],
        )
    now = iso(datetime.now(UTC))
    try:
        _table().update_item(
            Key=_key(lookup_id),
            UpdateExpression="SET #status = :selected, #name = :name, #updated = :now, #version = #version + :one",
            ConditionExpression="#status = :ambiguous AND #version = :version",
            ExpressionAttributeNames={
                "#status": "status",
                "#name": "name",
                "#updated": "updated_at",
                "#version": "version",
            },
            ExpressionAttributeValues={
                ":selected": LookupStatus.SELECTED,
                ":ambiguous": LookupStatus.AMBIGUOUS,
                ":name": chosen["name"],
                ":now": now,
                ":one": 1,
                ":version": item["version"],
            },
        )
    except Exception as exc:
        if is_conditional_failure(exc):
            raise ServiceError(409, "invalid_state", "Cannot select a name lookup that is selected.") from exc
        raise
    return view({**item, "status": LookupStatus.SELECTED, "name": chosen["name"], "updated_at": now})
