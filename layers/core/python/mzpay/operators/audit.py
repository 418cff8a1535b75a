"""Operators read the audit trail: newest first, filtered by account, actor, action, target and
time; one record by its id."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers.audit_trail import AuditTrailList, AuditTrailRecord
from mzpay.domain.common import page_tokens
from mzpay.domain.common.errors import found, invalid_field
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.operators.audit import AuditFilter


def list_records(wanted: AuditFilter, limit: int, page_token: str | None) -> AuditTrailList:
    """A page of the records `wanted` names (400 invalid_request for a token of another list)."""
    wanted.check()
    trail = deps.audit_trail()
    start = None
    if page_token is not None:
        start = page_tokens.decode(
            page_token[: page_tokens.MAX_TOKEN], lambda key: trail.continues(wanted, key) and is_ulid(key["audit_id"])
        )
        if start is None:
            raise invalid_field("page_token", "not a page_token this list gave")
    records, last = trail.page(wanted, limit, start)
    return AuditTrailList.of(page_tokens.page([record.public() for record in records], last))


def read_record(audit_id: str) -> AuditTrailRecord:
    record = found(deps.audit_trail().get(audit_id) if is_ulid(audit_id) else None, "audit record")
    return AuditTrailRecord.of(record.public())
