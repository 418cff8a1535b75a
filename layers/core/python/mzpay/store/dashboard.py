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
from mzpay.store.base import InAccountsTable, keyed, put_new

_user = keyed("DASHBOARD_USER", "USER")
_session = keyed("DASHBOARD_SESSION", "SESSION")
_invitation = keyed("DASHBOARD_INVITATION", "INVITATION")
_reset = keyed("DASHBOARD_RESET", "RESET")
TEAM_USER, TEAM_INVITATION = "DASHBOARD_USER#", "DASHBOARD_INVITE#"  # the account's team entries


def _team(account_id: str, kind: str, email: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": f"{kind}{email.lower()}"}


@dataclass(frozen=True)
class DashboardUser:
    email: str
    account_id: str
    role: str
    created_at: str
    last_sign_in: str = ""  # ISO time of the last completed sign-in ("" before the first)
    generation: int = 0  # a session opened under an older one is ended (a password reset adds one)


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
        return DashboardUser(
            str(item["email"]),
            str(item["account_id"]),
            str(item["role"]),
            str(item["created_at"]),
            str(item.get("last_sign_in", "")),
            int(item.get("generation", 0)),
        )

    def create(self, user: DashboardUser) -> bool:
        """The user's item and team entry, on condition that the e-mail is no user yet (False then)."""
        try:
            self.client.transact_write_items(TransactItems=[put_new(self.name, item) for item in user_items(user)])
        except Exception as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def team(self, account_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The account's team entries: its users' and its open invitations' (e-mail order)."""
        items: list[dict[str, Any]] = []
        query: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :sk)",
            "ExpressionAttributeValues": {":pk": f"ACCOUNT#{account_id}", ":sk": "DASHBOARD_"},
            "ConsistentRead": True,
        }
        while True:
            page = self.table.query(**query)
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        users = [{**i, "email": str(i["sk"])[len(TEAM_USER) :]} for i in items if str(i["sk"]).startswith(TEAM_USER)]
        invited = [i for i in items if str(i["sk"]).startswith(TEAM_INVITATION)]
        return users, invited

    def set_role(self, user: DashboardUser, role: str) -> None:
        """The user's role, in its item and in its account's team entry (one transaction)."""
        self.client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": self.name,
                        "Key": key,
                        "UpdateExpression": "SET #role = :role",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeNames": {"#role": "role"},
                        "ExpressionAttributeValues": {":role": role},
                    }
                }
                for key in (_user(user.email), _team(user.account_id, TEAM_USER, user.email))
            ]
        )

    def remove(self, user: DashboardUser) -> None:
        """The user's item and team entry deleted (its sessions end with the item: sign_in.current)."""
        self.client.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": self.name, "Key": key}}
                for key in (_user(user.email), _team(user.account_id, TEAM_USER, user.email))
            ]
        )

    def signed_in(self, email: str, at: str) -> None:
        """Record a completed sign-in (the team page's "last sign-in")."""
        self.table.update_item(
            Key=_user(email.lower()),
            UpdateExpression="SET last_sign_in = :at",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":at": at},
        )

    def end_sessions(self, email: str) -> None:
        """Every session the user has open ends: its generation moves on (sign_in.current compares)."""
        self.table.update_item(
            Key=_user(email.lower()),
            UpdateExpression="ADD generation :one",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":one": 1},
        )


@dataclass(frozen=True)
class Invitation:
    token_hash: str  # sha256 of the link's token
    email: str
    account_id: str
    role: str
    invited_by: str
    created_at: str
    expires_at: int  # epoch seconds
    status: str = "pending"  # pending | accepted (kept until its TTL)


class DashboardInvitations(InAccountsTable):
    """Invitations: pk DASHBOARD_INVITATION#<sha256 of the token>, sk INVITATION (the link's
    record, TTL at its end), and the account's team entry pk ACCOUNT#<account>, sk
    DASHBOARD_INVITE#<e-mail> (one per e-mail per account: a new one replaces it)."""

    def put(self, invitation: Invitation) -> str | None:
        """Write `invitation` (replacing the e-mail's earlier one of the account, whose link stops
        working); the replaced one's token hash."""
        entry = _team(invitation.account_id, TEAM_INVITATION, invitation.email)
        old = self.table.get_item(Key=entry, ConsistentRead=True).get("Item")
        record = {**_invitation(invitation.token_hash), **dataclasses.asdict(invitation), "ttl": invitation.expires_at}
        self.table.put_item(Item=record)
        self.table.put_item(
            Item={
                **entry,
                "token_hash": invitation.token_hash,
                "role": invitation.role,
                "invited_by": invitation.invited_by,
                "created_at": invitation.created_at,
                "expires_at": invitation.expires_at,
                "ttl": invitation.expires_at,
            }
        )
        if old is not None and old.get("token_hash") != invitation.token_hash:
            self.table.delete_item(Key=_invitation(str(old["token_hash"])))
            return str(old["token_hash"])
        return None

    def read(self, token_hash: str) -> Invitation | None:
        item = self.table.get_item(Key=_invitation(token_hash), ConsistentRead=True).get("Item")
        return None if item is None else _as_invitation(item)

    def entry(self, account_id: str, email: str) -> dict[str, Any] | None:
        """The account's open invitation of `email` (its team entry), or None."""
        return self.table.get_item(Key=_team(account_id, TEAM_INVITATION, email), ConsistentRead=True).get("Item")

    def claim(self, token_hash: str, now: int) -> Invitation | None:
        """Take the invitation for one accept (pending and not expired -> accepted); None when it
        is unknown, expired, revoked or taken already (a racing accept lost here)."""
        try:
            answer = self.table.update_item(
                Key=_invitation(token_hash),
                UpdateExpression="SET #status = :accepted",
                ConditionExpression="attribute_exists(pk) AND #status = :pending AND expires_at > :now",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={":accepted": "accepted", ":pending": "pending", ":now": now},
                ReturnValues="ALL_NEW",
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                return None
            raise
        return _as_invitation(answer["Attributes"])

    def release(self, token_hash: str) -> None:
        """An accept that failed after its claim gives the invitation back."""
        self.table.update_item(
            Key=_invitation(token_hash),
            UpdateExpression="SET #status = :pending",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={":pending": "pending"},
        )

    def accepted(self, invitation: Invitation) -> None:
        """The account's team entry of an accepted invitation goes (the user's takes its place);
        a newer invitation of the e-mail (another token) stays."""
        try:
            self.table.delete_item(
                Key=_team(invitation.account_id, TEAM_INVITATION, invitation.email),
                ConditionExpression="token_hash = :hash",
                ExpressionAttributeValues={":hash": invitation.token_hash},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise

    def revoke(self, account_id: str, email: str) -> bool:
        """The account's invitation of `email` deleted, its link with it; False when there is none."""
        answer = self.table.delete_item(Key=_team(account_id, TEAM_INVITATION, email), ReturnValues="ALL_OLD").get(
            "Attributes"
        )
        if not answer:
            return False
        self.table.delete_item(Key=_invitation(str(answer["token_hash"])))
        return True


def _as_invitation(item: dict[str, Any]) -> Invitation:
    fields = {f.name for f in dataclasses.fields(Invitation)}
    values = {name: item[name] for name in fields if name in item}
    values["expires_at"] = int(values["expires_at"])
    return Invitation(**values)


class DashboardResets(InAccountsTable):
    """Password resets: pk DASHBOARD_RESET#<sha256 of the token>, sk RESET: the user's e-mail and
    the link's end (TTL); deleted by the one reset it allows."""

    def put(self, token_hash: str, email: str, expires_at: int) -> None:
        self.put_new_item({**_reset(token_hash), "email": email, "expires_at": expires_at, "ttl": expires_at})

    def read(self, token_hash: str, now: int) -> str | None:
        """The e-mail of a reset link still valid, else None."""
        item = self.table.get_item(Key=_reset(token_hash), ConsistentRead=True).get("Item")
        if item is None or int(item["expires_at"]) <= now:
            return None
        return str(item["email"])

    def take(self, token_hash: str, now: int) -> str | None:
        """Use the link (deleted, once): its e-mail, or None when unknown, used or expired."""
        try:
            answer = self.table.delete_item(
                Key=_reset(token_hash),
                ConditionExpression="attribute_exists(pk) AND expires_at > :now",
                ExpressionAttributeValues={":now": now},
                ReturnValues="ALL_OLD",
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                return None
            raise
        return str(answer["Attributes"]["email"])


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
        for name in ("created_at", "last_seen", "generation"):
            if name in values:
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
