"""The dashboard's users and sessions (AccountsTable, docs/dashboard.md).

Users: pk DASHBOARD_USER#<e-mail, lower case>, sk USER: the one account the user belongs to and
its role; beside it, in the account's partition, pk ACCOUNT#<account_id>, sk
DASHBOARD_USER#<e-mail> (the account's team, for the team page). The accounts table rather than
the directory: the users' Cognito pool is regional, and a user's e-mail is personal data of a
tenant homed in this region, which the directory (a global table) would copy to every region.

The account's dashboard settings (the support role's refund limit): pk ACCOUNT#<account_id>, sk
DASHBOARD_SETTINGS; none until an owner or administrator sets one (the defaults apply).

Sessions: pk DASHBOARD_SESSION#<sha256 of the cookie's id>, sk SESSION, the fields of
mzpay.domain.dashboard.sessions.Session; DynamoDB's TTL removes a record after its end."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mzpay.domain.dashboard.sessions import Session
from mzpay.store.aws import is_conditional_failure
from mzpay.store.base import InAccountsTable, keyed

_user = keyed("DASHBOARD_USER", "USER")
_session = keyed("DASHBOARD_SESSION", "SESSION")


@dataclass(frozen=True)
class DashboardUser:
    email: str
    account_id: str
    role: str
    created_at: str


def user_items(user: DashboardUser) -> list[dict[str, Any]]:
    """The user's item and its account's team entry (what DashboardUsers.add writes)."""
    return [
        {**_user(user.email.lower()), **dataclasses.asdict(user)},
        {"pk": f"ACCOUNT#{user.account_id}", "sk": f"DASHBOARD_USER#{user.email.lower()}", "role": user.role},
    ]


class DashboardUsers(InAccountsTable):
    def add(self, user: DashboardUser) -> None:
        for item in user_items(user):
            self.table.put_item(Item=item)

    def read(self, email: str) -> DashboardUser | None:
        item = self.table.get_item(Key=_user(email.lower()), ConsistentRead=True).get("Item")
        if item is None:
            return None
        return DashboardUser(str(item["email"]), str(item["account_id"]), str(item["role"]), str(item["created_at"]))


class DashboardSettings(InAccountsTable):
    """The account's dashboard settings: the support role's refund limit (an amount in MZN)."""

    @staticmethod
    def _key(account_id: str) -> dict[str, str]:
        return {"pk": f"ACCOUNT#{account_id}", "sk": "DASHBOARD_SETTINGS"}

    def refund_limit(self, account_id: str) -> str | None:
        item = self.table.get_item(Key=self._key(account_id), ConsistentRead=True).get("Item")
        return None if item is None else str(item["support_refund_limit"])

    def set_refund_limit(self, account_id: str, amount: str, by: str, at: str) -> None:
        self.table.put_item(
            Item={**self._key(account_id), "support_refund_limit": amount, "updated_by": by, "updated_at": at}
        )


class DashboardSessions(InAccountsTable):
    def open(self, session: Session) -> None:
        """The record of a new session (its id is random: never an existing one)."""
        self.put_new_item({**_session(session.key), **dataclasses.asdict(session), "ttl": session.ends_at()})

    def read(self, key: str) -> Session | None:
        item = self.table.get_item(Key=_session(key), ConsistentRead=True).get("Item")
        if item is None:
            return None
        fields = {f.name for f in dataclasses.fields(Session)}
        values = {name: item[name] for name in fields if name in item}
        for name in ("created_at", "last_seen"):
            values[name] = int(values[name])
        return Session(**values)

    def touch(self, key: str, now: int) -> bool:
        """Record a use at `now`; False when the record is gone (signed out meanwhile)."""
        try:
            self.table.update_item(
                Key=_session(key),
                UpdateExpression="SET last_seen = :now",
                ConditionExpression="attribute_exists(pk) AND last_seen < :now",
                ExpressionAttributeValues={":now": now},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            return self.read(key) is not None  # another request touched it first: still open
        return True

    def set_mode(self, key: str, mode: str) -> None:
        self.table.update_item(
            Key=_session(key),
            UpdateExpression="SET #mode = :mode",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeNames={"#mode": "mode"},
            ExpressionAttributeValues={":mode": mode},
        )

    def end(self, key: str) -> None:
        """Sign-out (or the end of a pending sign-in): the record deleted."""
        self.table.delete_item(Key=_session(key))
