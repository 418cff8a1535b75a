"""The tenant directory: accounts and API-key lookups, in a DynamoDB global table replicated to
every region. It says where a tenant lives; it holds no payment data.

Items (pk, sk):
  ACCOUNT#<id>, ACCOUNT    the account: name, home_region, status, reason, version
  KEY#<key_id>, KEY        an API key's properties and the keyed hash of its secret
  KEYHASH#<hash>, KEY      pointer from the hash to the key id (what the authorizer looks up)
  ACCOUNT#<account>, APIKEY#<key_id>   the account's list of its keys (written with the key; keys
                           made before it existed are not listed)
  ACCOUNT#<platform>, CONNECTED#<account>   a connection: the platform may act for the account
  ACCOUNT#<account>, PLATFORM#<platform>    its mirror (which platforms may act for an account)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mzpay.domain.access.client_certs import ClientCertificate
from mzpay.domain.access.keys import KeyStatus
from mzpay.domain.common.bounds import MAX_ID
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import stored_fields
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.webhooks.events import Event
from mzpay.store.account_names import name_item
from mzpay.store.aws import is_conditional_failure, landed, query_all, read_keys
from mzpay.store.base import InDirectoryTable, put_new
from mzpay.store.credentials import cert_key, certificate_in, key_pointers, remember_pointer
from mzpay.store.events import update_with_events


@dataclass
class Account:
    account_id: str
    name: str
    home_region: str
    status: str
    reason: str
    created_at: str
    updated_at: str
    version: int = 1
    mtls_required: bool = False  # every request needs a client certificate of the account
    partner: bool = False  # a partner agent network: it may take cash deposits (set by operators)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Account:
        return cls(
            **stored_fields(cls, item)
            | {
                "reason": item.get("reason", ""),
                "version": int(item.get("version", 1)),
                "mtls_required": bool(item.get("mtls_required", False)),
                "partner": bool(item.get("partner", False)),
            }
        )

    def public(self) -> dict[str, Any]:
        return {
            "id": self.account_id,
            "name": self.name,
            "region": self.home_region,
            "status": self.status,
            "reason": self.reason,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass
class ApiKey:
    key_id: str
    account_id: str
    home_region: str
    mode: str
    scopes: list[str]
    status: str
    key_hash: str
    hint: str  # prefix, mode and last four characters: safe to show
    created_at: str
    expires_at: str | None = None
    ip_allowlist: list[str] = field(default_factory=list)
    allowed_customers: list[str] = field(default_factory=list)
    rolled_to: str | None = None
    last_used_at: str | None = None  # written by the authorizer, at most hourly (domain.access.keys.use_to_record)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> ApiKey:
        lists = ("scopes", "ip_allowlist", "allowed_customers")  # a set or absent as stored: a list
        return cls(**stored_fields(cls, item) | {name: list(item.get(name) or []) for name in lists})

    def item(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if v is not None}
        return {"pk": f"KEY#{self.key_id}", "sk": "KEY", **data}

    def public(self) -> dict[str, Any]:
        """What the owner and operators may see: never the hash."""
        return {
            "id": self.key_id,
            "account_id": self.account_id,
            "mode": self.mode,
            "scopes": self.scopes,
            "status": self.status,
            "hint": self.hint,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "ip_allowlist": self.ip_allowlist,
            "allowed_customers": self.allowed_customers,
            "rolled_to": self.rolled_to,
        }


@dataclass(frozen=True)
class Connection:
    """A platform account may act for a connected account (same region), made by an operator."""

    platform_account_id: str
    connected_account_id: str
    region: str
    created_at: str

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Connection:
        return cls(item["platform_account_id"], item["connected_account_id"], item["region"], item["created_at"])

    def items(self) -> list[dict[str, Any]]:
        """The connection item and its mirror."""
        data = dict(self.__dict__)
        return [
            {"pk": f"ACCOUNT#{self.platform_account_id}", "sk": f"CONNECTED#{self.connected_account_id}", **data},
            {"pk": f"ACCOUNT#{self.connected_account_id}", "sk": f"PLATFORM#{self.platform_account_id}", **data},
        ]

    def public(self) -> dict[str, Any]:
        return {
            "platform_account_id": self.platform_account_id,
            "connected_account_id": self.connected_account_id,
            "region": self.region,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class KeyAccess:  # an API key, its account and the presented certificate's record (store.credentials)
    key: ApiKey
    account: Account | None
    certificate: ClientCertificate | None


def account_in(items: list[dict[str, Any]]) -> Account | None:
    return next((Account.from_item(item) for item in items if item["sk"] == "ACCOUNT"), None)


class AlreadyConnected(Exception):
    """The connection exists already."""


class Directory(InDirectoryTable):
    """Repository of the directory table (conditional writes; one transaction per change)."""

    # ------------------------------------------------------------------ accounts
    def create_account(self, account: Account) -> None:
        # mtls_required (PUT /v1/mtls) and partner (operators) are written only once set
        fields = {k: v for k, v in account.__dict__.items() if k not in ("mtls_required", "partner") or v}
        item = {"pk": f"ACCOUNT#{account.account_id}", "sk": "ACCOUNT", **fields}
        named = name_item(account.account_id, account.name, account.home_region)  # findable by name, at once
        created = {"TableName": self.name, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}
        self.client.transact_write_items(
            TransactItems=[{"Put": created}, {"Put": {"TableName": self.name, "Item": named}}]
        )

    def get_account(self, account_id: str) -> Account | None:
        if len(account_id) > MAX_ID:  # no such id was ever made: DynamoDB would refuse the key
            return None
        item = self.table.get_item(Key={"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"}, ConsistentRead=True).get(
            "Item"
        )
        return Account.from_item(item) if item else None

    def change_account_status(self, account: Account, status: str, reason: str, now: datetime) -> Account:
        """Move `account` to `status`, conditioned on the status and version it was read with:
        a concurrent change makes this one 409 invalid_state."""
        try:
            self.table.update_item(
                Key={"pk": f"ACCOUNT#{account.account_id}", "sk": "ACCOUNT"},
                UpdateExpression="SET #s = :to, reason = :reason, updated_at = :now, version = version + :one",
                ConditionExpression="#s = :from AND version = :version",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={
                    ":to": status,
                    ":reason": reason,
                    ":now": iso(now),
                    ":one": 1,
                    ":from": account.status,
                    ":version": account.version,
                },
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise ServiceError(409, "invalid_state", "The account changed meanwhile; read it and retry.") from exc
            raise
        return Account(
            **{
                **account.__dict__,
                "status": status,
                "reason": reason,
                "updated_at": iso(now),
                "version": account.version + 1,
            }
        )

    # ------------------------------------------------------------------ connections
    def connect(self, connection: Connection) -> None:
        """The connection and its mirror, created once, and only while both accounts exist in the
        connection's region (checked in the same transaction). AlreadyConnected if it exists;
        ServiceError 409 invalid_state if an account vanished or moved meanwhile."""
        checks = [
            {
                "ConditionCheck": {
                    "TableName": self.name,
                    "Key": {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"},
                    "ConditionExpression": "attribute_exists(pk) AND home_region = :region",
                    "ExpressionAttributeValues": {":region": connection.region},
                }
            }
            for account_id in (connection.platform_account_id, connection.connected_account_id)
        ]
        puts = [put_new(self.name, item) for item in connection.items()]
        try:
            self.client.transact_write_items(TransactItems=[*puts, *checks])
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            reasons = getattr(exc, "response", {}).get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                raise AlreadyConnected() from exc
            raise ServiceError(409, "invalid_state", "An account changed meanwhile; read it and retry.") from exc

    def disconnect(self, platform_account_id: str, connected_account_id: str) -> bool:
        """Remove the connection and its mirror; False if there was none (a concurrent removal)."""
        keys = [
            {"pk": f"ACCOUNT#{platform_account_id}", "sk": f"CONNECTED#{connected_account_id}"},
            {"pk": f"ACCOUNT#{connected_account_id}", "sk": f"PLATFORM#{platform_account_id}"},
        ]
        return landed(
            lambda: self.client.transact_write_items(
                TransactItems=[
                    {"Delete": {"TableName": self.name, "Key": key, "ConditionExpression": "attribute_exists(pk)"}}
                    for key in keys
                ]
            )
        )

    def connections(self, platform_account_id: str) -> list[Connection]:
        """The accounts `platform_account_id` may act for (one Query; a connection's a small item)."""
        from boto3.dynamodb.conditions import Key

        partition = Key("pk").eq(f"ACCOUNT#{platform_account_id}") & Key("sk").begins_with("CONNECTED#")
        items = query_all(self.table, KeyConditionExpression=partition, ConsistentRead=True)
        return [Connection.from_item(item) for item in items]

    def acting_target(self, platform_account_id: str, account_id: str) -> tuple[bool, Account | None]:
        """(is `account_id` connected to the platform, the account): one BatchGetItem, consistent."""
        keys = [
            {"pk": f"ACCOUNT#{platform_account_id}", "sk": f"CONNECTED#{account_id}"},
            {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"},
        ]
        items = read_keys(self.client, self.name, keys)
        connected = any(item["sk"] == f"CONNECTED#{account_id}" for item in items)
        account = next((Account.from_item(item) for item in items if item["sk"] == "ACCOUNT"), None)
        return connected, account

    # ------------------------------------------------------------------ keys
    def create_key(self, key: ApiKey) -> None:
        """The key and its hash pointer, together or not at all."""
        self.client.transact_write_items(
            TransactItems=[
                put_new(self.name, key.item()),
                put_new(self.name, _pointer(key)),
                put_new(self.name, _listed(key)),
            ]
        )

    def account_keys(self, account_id: str, limit: int = 100) -> list[ApiKey]:
        """The account's keys, newest first (`limit` at most): its list's entries, then the keys."""
        entries = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :sk)",
            ExpressionAttributeValues={":pk": f"ACCOUNT#{account_id}", ":sk": "APIKEY#"},
            ScanIndexForward=False,
            Limit=limit,
            ConsistentRead=True,
        ).get("Items", [])
        keys = [{"pk": f"KEY#{entry['key_id']}", "sk": "KEY"} for entry in entries]
        return [ApiKey.from_item(item) for item in read_keys(self.client, self.name, keys)]

    def get_key(self, key_id: str) -> ApiKey | None:
        if len(key_id) > MAX_ID:
            return None
        item = self.table.get_item(Key={"pk": f"KEY#{key_id}", "sk": "KEY"}, ConsistentRead=True).get("Item")
        return ApiKey.from_item(item) if item else None

    def key_by_hash(self, key_hash: str) -> ApiKey | None:
        pointer = self.table.get_item(Key={"pk": f"KEYHASH#{key_hash}", "sk": "KEY"}).get("Item")
        key = self.get_key(pointer["key_id"]) if pointer is not None else None
        return key if key is not None and key.key_hash == key_hash else None

    def key_access(self, key_hash: str, fingerprint: str | None = None) -> KeyAccess | None:
        """Key, account, certificate record: ONE consistent BatchGetItem (store.credentials)."""
        ids = key_pointers.get(key_hash)
        if ids is None:
            pointer = self.table.get_item(Key={"pk": f"KEYHASH#{key_hash}", "sk": "KEY"}).get("Item")
            if pointer is None:
                return None
            ids = (pointer["key_id"], pointer["account_id"])
            remember_pointer(key_pointers, key_hash, ids)
        keys = [{"pk": f"KEY#{ids[0]}", "sk": "KEY"}, {"pk": f"ACCOUNT#{ids[1]}", "sk": "ACCOUNT"}]
        items = read_keys(self.client, self.name, keys + cert_key(fingerprint))
        found = next((ApiKey.from_item(item) for item in items if item["sk"] == "KEY"), None)
        if found is None or found.key_hash != key_hash or found.account_id != ids[1]:
            return None
        return KeyAccess(found, account_in(items), certificate_in(items))

    def record_key_use(self, key: ApiKey, at: str, before: str) -> None:
        """The key's last use is `at`, unless it is already recorded after `before` (another
        request of the hour wrote it: nothing to do)."""
        try:
            self.table.update_item(
                Key={"pk": f"KEY#{key.key_id}", "sk": "KEY"},
                UpdateExpression="SET last_used_at = :at",
                ConditionExpression=(
                    "attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at <= :before)"
                ),
                ExpressionAttributeValues={":at": at, ":before": before},
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise

    def roll_key(self, old: ApiKey, new: ApiKey, old_expires_at: str) -> None:
        """Old key -> rolled (valid until `old_expires_at`), new key created: one transaction,
        conditioned on the old key still being active (else 409 already_rolled)."""
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.name,
                            "Key": {"pk": f"KEY#{old.key_id}", "sk": "KEY"},
                            "UpdateExpression": "SET #s = :rolled, expires_at = :until, rolled_to = :new",
                            "ConditionExpression": "#s = :active",
                            "ExpressionAttributeNames": {"#s": "status"},
                            "ExpressionAttributeValues": (
                                {
                                    ":rolled": KeyStatus.ROLLED,
                                    ":until": old_expires_at,
                                    ":new": new.key_id,
                                    ":active": KeyStatus.ACTIVE,
                                }
                            ),
                        }
                    },
                    put_new(self.name, new.item()),
                    put_new(self.name, _pointer(new)),
                    put_new(self.name, _listed(new)),
                ]
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise ServiceError(409, "already_rolled", "This key was already rolled or revoked.") from exc
            raise

    def revoke_key(self, key: ApiKey, events: list[Event] | None = None, events_table: str = "") -> ApiKey:
        """The key revoked (409 invalid_state when it is already), with `events` (to
        `events_table`, the region's events table) in the same transaction."""
        update = {
            "TableName": self.name,
            "Key": {"pk": f"KEY#{key.key_id}", "sk": "KEY"},
            "UpdateExpression": "SET #s = :revoked",
            "ConditionExpression": "#s <> :revoked",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":revoked": KeyStatus.REVOKED},
        }
        update_with_events(
            self.client,
            update,
            events_table,
            events or [],
            lambda: ServiceError(409, "invalid_state", "This key is already revoked."),
        )
        return ApiKey(**{**key.__dict__, "status": KeyStatus.REVOKED})


def _pointer(key: ApiKey) -> dict[str, Any]:
    return {"pk": f"KEYHASH#{key.key_hash}", "sk": "KEY", "key_id": key.key_id, "account_id": key.account_id}


def _listed(key: ApiKey) -> dict[str, Any]:
    return {"pk": f"ACCOUNT#{key.account_id}", "sk": f"APIKEY#{key.key_id}", "key_id": key.key_id}
