"""The operator console's sessions as the service holds them (AccountsTable, pk
CONSOLE_SESSION#<session_id>, sk SESSION: operator, issued_at, last_used, ttl): a signed cookie is
a session only while its record exists (mzpay.domain.operators.console_sessions). Sign-out deletes the
record; DynamoDB's TTL removes a record after the session's 8 hours."""

from __future__ import annotations

from typing import Any

from mzpay.domain.operators.console_sessions import Session
from mzpay.store.aws import is_conditional_failure
from mzpay.store.base import InAccountsTable, keyed

_key = keyed("CONSOLE_SESSION", "SESSION")


class ConsoleSessions(InAccountsTable):
    def open(self, session: Session) -> None:
        """The record of a session just signed in (its id is random: never an existing one)."""
        self.put_new_item(
            {
                **_key(session.session_id),
                "operator": session.operator,
                "issued_at": session.issued_at,
                "last_used": session.issued_at,
                "ttl": session.expires_at(),
            }
        )

    def last_used(self, session: Session) -> int | None:
        """When the session was last used, or None when the service holds no record of it (signed
        out, or never issued by this region's console), or one of another operator."""
        item: dict[str, Any] | None = self.table.get_item(Key=_key(session.session_id), ConsistentRead=True).get("Item")
        if item is None or item.get("operator") != session.operator:
            return None
        return int(item["last_used"])

    def touch(self, session: Session, now: int) -> bool:
        """Record a use at `now`; False when the record is gone (signed out meanwhile)."""
        try:
            self.table.update_item(
                Key=_key(session.session_id),
                UpdateExpression="SET last_used = :now",
                ConditionExpression="attribute_exists(pk) AND last_used < :now",
                ExpressionAttributeValues={":now": now},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return self.last_used(session) is not None  # another request touched it first: still open
        return True

    def end(self, session_id: str) -> None:
        """Sign-out: the record deleted (the cookie is no session from now on)."""
        self.table.delete_item(Key=_key(session_id))
