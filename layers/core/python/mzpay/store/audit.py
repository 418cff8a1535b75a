"""The audit trail in its own table (AuditTable), append-only: records are put on condition that
their id is new and never updated or deleted (the functions' IAM grants PutItem and reads only).

  trail = "audit", audit_id = <ULID>            every record, newest first
  GSI by_account:  account_id, audit_id         a tenant's records
  GSI by_target:   target_key "<type>#<id>", audit_id
  GSI by_actor:    actor_id, audit_id

The request, before and after parts are kept as JSON text (what the record says, exactly)."""

from __future__ import annotations

import json
from typing import Any

from mzpay.domain.operators.audit import AuditFilter, AuditRecord
from mzpay.store.aws import env
from mzpay.store.base import TableStore

TRAIL = "audit"
MAX_QUERIES = 10  # reads per page when filters drop most of what an index returns


class AuditTrail(TableStore):
    @classmethod
    def from_env(cls) -> AuditTrail:
        return cls(env("AUDIT_TABLE"))

    def append(self, record: AuditRecord) -> None:
        self.table.put_item(Item=_item(record), ConditionExpression="attribute_not_exists(audit_id)")

    def get(self, audit_id: str) -> AuditRecord | None:
        item = self.table.get_item(Key={"trail": TRAIL, "audit_id": audit_id}).get("Item")
        return None if item is None else _record(item)

    def continues(self, wanted: AuditFilter, start: dict[str, str]) -> bool:
        """True when `start` (a page token's key) continues the list `wanted` reads."""
        return start_matches(wanted, start)

    def page(
        self, wanted: AuditFilter, size: int, start: dict[str, str] | None
    ) -> tuple[list[AuditRecord], dict[str, str] | None]:
        """Up to `size` records matching `wanted`, newest first, and where the next page starts
        (a start key of the same list: see `continues`)."""
        query = _query(wanted)
        found: list[AuditRecord] = []
        for _ in range(MAX_QUERIES):
            if start is not None:
                query["ExclusiveStartKey"] = start
            query["Limit"] = size - len(found)
            answer = self.table.query(**query)
            found += [_record(item) for item in answer.get("Items", [])]
            start = answer.get("LastEvaluatedKey")
            if start is None or len(found) >= size:
                break
        return found, start


def start_matches(wanted: AuditFilter, start: dict[str, str]) -> bool:
    """True when `start` (a page token's key) continues the list `wanted` reads."""
    query = _query(wanted)
    partition = query["ExpressionAttributeNames"]["#p"]
    expected = {"trail", "audit_id", partition}
    return (
        set(start) == expected
        and start["trail"] == TRAIL
        and start[partition] == query["ExpressionAttributeValues"][":p"]
    )


def _query(wanted: AuditFilter) -> dict[str, Any]:
    low, high = wanted.id_bounds()
    if wanted.target_type is not None and wanted.target_id is not None:
        index, name, value = "by_target", "target_key", f"{wanted.target_type}#{wanted.target_id}"
    elif wanted.account_id is not None:
        index, name, value = "by_account", "account_id", wanted.account_id
    elif wanted.actor is not None:
        index, name, value = "by_actor", "actor_id", wanted.actor
    else:
        index, name, value = "", "trail", TRAIL
    condition = "#p = :p"
    values: dict[str, Any] = {":p": value}
    if low is not None and high is not None:
        condition += " AND audit_id BETWEEN :low AND :high"
        values |= {":low": low, ":high": high}
    elif low is not None:
        condition += " AND audit_id >= :low"
        values[":low"] = low
    elif high is not None:
        condition += " AND audit_id <= :high"
        values[":high"] = high
    names = {"#p": name}
    filters = []
    for field, attribute, given in (
        ("account_id", "account_id", wanted.account_id),
        ("actor_id", "actor_id", wanted.actor),
        ("action", "action", wanted.action),
        ("target_type", "target_type", wanted.target_type),
    ):
        if given is not None and attribute != name:
            names[f"#{field}"] = attribute
            values[f":{field}"] = given
            filters.append(f"#{field} = :{field}")
    query: dict[str, Any] = {
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
        "ScanIndexForward": False,
    }
    if index:
        query["IndexName"] = index
    if filters:
        query["FilterExpression"] = " AND ".join(filters)
    return query


def _item(record: AuditRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        "trail": TRAIL,
        "audit_id": record.audit_id,
        "at": record.at,
        "actor_kind": record.actor_kind,
        "actor_id": record.actor_id,
        "source_ip": record.source_ip,
        "surface": record.surface,
        "action": record.action,
        "method": record.method,
        "path": record.path,
        "status": record.status,
        "request_id": record.request_id,
        "request_json": json.dumps(record.request, separators=(",", ":")),
        "before_json": json.dumps(record.before, separators=(",", ":")),
        "after_json": json.dumps(record.after, separators=(",", ":")),
    }
    if record.target_type is not None:
        item |= {"target_type": record.target_type, "target_id": record.target_id}
        item["target_key"] = f"{record.target_type}#{record.target_id}"
    if record.account_id is not None:
        item["account_id"] = record.account_id
    if record.code is not None:
        item["code"] = record.code
    if record.actor_issuer is not None:
        item["actor_issuer"] = record.actor_issuer
    if record.actor_account_id is not None:
        item["actor_account_id"] = record.actor_account_id
    return item


def _record(item: dict[str, Any]) -> AuditRecord:
    return AuditRecord(
        audit_id=item["audit_id"],
        at=item["at"],
        actor_kind=item["actor_kind"],
        actor_id=item["actor_id"],
        source_ip=item["source_ip"],
        surface=item["surface"],
        action=item["action"],
        method=item["method"],
        path=item["path"],
        target_type=item.get("target_type"),
        target_id=item.get("target_id"),
        account_id=item.get("account_id"),
        request=json.loads(item["request_json"]),
        before=json.loads(item["before_json"]),
        after=json.loads(item["after_json"]),
        status=int(item["status"]),
        code=item.get("code"),
        request_id=item["request_id"],
        actor_issuer=item.get("actor_issuer"),
        actor_account_id=item.get("actor_account_id"),
    )
