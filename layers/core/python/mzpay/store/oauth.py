"""OAuth clients, their access tokens and the assertion ids they used, in the tenant directory
(the global table every region reads, written only in the tenant's home region, like API keys).

Items (pk, sk):
  OAUTHCLIENT#<client_id>, CLIENT        the client (status active or revoked; the secret's keyed hash)
  ACCOUNT#<account_id>, OAUTHCLIENT#<id> the account's list of its clients (written with the client)
  OAUTHSECRET#<hash>, CLIENT             the client a secret's keyed hash names (for leak reports)
  TOKEN#<hash>, TOKEN                    an access token (client, account, mode, scopes, expires_at)
  JTI#<client_id>#<sha256(jti)>, JTI     a client assertion's jti, remembered until the assertion expires
Tokens and jti records carry `ttl` (epoch seconds): DynamoDB deletes them once they expired.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mzpay.domain.access.client_certs import ClientCertificate
from mzpay.domain.access.oauth import AccessToken, ClientStatus, OAuthClient
from mzpay.domain.common.bounds import MAX_ID
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import landed, read_keys
from mzpay.store.base import InDirectoryTable, keyed, put_new
from mzpay.store.credentials import cert_key, certificate_in, remember_pointer, token_pointers
from mzpay.store.directory import Account, account_in
from mzpay.store.events import event_puts, update_with_events

MAX_CLIENTS_PER_ACCOUNT = 50
TTL_GRACE_SECONDS = 3600  # records outlive their expiry a little: expiry is checked on read anyway


class ClientChanged(Exception):
    """The client was revoked meanwhile (or already)."""


_client_key = keyed("OAUTHCLIENT", "CLIENT")


def _ttl(expires_at: datetime) -> int:
    return int(expires_at.timestamp()) + TTL_GRACE_SECONDS


class OAuthStore(InDirectoryTable):
    # ------------------------------------------------------------ clients
    def create_client(self, client: OAuthClient) -> None:
        """The client and its place in the account's list, together or not at all."""
        pointer = {
            "pk": f"ACCOUNT#{client.account_id}",
            "sk": f"OAUTHCLIENT#{client.client_id}",
            "client_id": client.client_id,
        }
        items = [{**_client_key(client.client_id), **client.item()}, pointer]
        if client.secret_hash:
            items.append({"pk": f"OAUTHSECRET#{client.secret_hash}", "sk": "CLIENT", "client_id": client.client_id})
        self.client.transact_write_items(TransactItems=[put_new(self.name, item) for item in items])

    def get_client(self, client_id: str) -> OAuthClient | None:
        if not client_id or len(client_id) > MAX_ID:
            return None
        item = self.table.get_item(Key=_client_key(client_id), ConsistentRead=True).get("Item")
        return OAuthClient.from_item(item) if item else None

    def client_by_secret_hash(self, secret_hash: str) -> OAuthClient | None:
        pointer = self.table.get_item(Key={"pk": f"OAUTHSECRET#{secret_hash}", "sk": "CLIENT"}).get("Item")
        client = self.get_client(pointer["client_id"]) if pointer else None
        return client if client is not None and client.secret_hash == secret_hash else None

    def clients_of(self, account_id: str) -> list[OAuthClient]:
        """The account's clients, oldest first."""
        answer = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :sk)",
            ExpressionAttributeValues={":pk": f"ACCOUNT#{account_id}", ":sk": "OAUTHCLIENT#"},
            ConsistentRead=True,
            Limit=MAX_CLIENTS_PER_ACCOUNT,
        )
        keys = [_client_key(item["client_id"]) for item in answer.get("Items", [])]
        items = read_keys(self.client, self.name, keys)
        return sorted((OAuthClient.from_item(item) for item in items), key=lambda c: c.client_id)

    def revoke_client(
        self, client: OAuthClient, now: str, events: list[Event] | None = None, events_table: str = ""
    ) -> OAuthClient:
        """active -> revoked, once (ClientChanged when it is revoked already), with `events` in
        the same transaction."""
        update = {
            "TableName": self.name,
            "Key": _client_key(client.client_id),
            "UpdateExpression": "SET #s = :revoked, revoked_at = :now",
            "ConditionExpression": "#s = :active",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {
                ":revoked": ClientStatus.REVOKED,
                ":now": now,
                ":active": ClientStatus.ACTIVE,
            },
        }
        update_with_events(self.client, update, events_table, events or [], ClientChanged)
        return OAuthClient(**{**client.__dict__, "status": ClientStatus.REVOKED, "revoked_at": now})

    def token_access(self, token_hash: str, fingerprint: str | None = None) -> TokenAccess | None:
        """The access token of `token_hash` with its client and account (and the record of the
        presented certificate's `fingerprint`), read consistently: ONE BatchGetItem when this
        environment has seen the token before (its client and account never change, so they are
        remembered; the token, deleted when revoked, the client and the account are read every
        time), else the token first. None: no such token (never issued, expired away, revoked)."""
        ids = token_pointers.get(token_hash)
        if ids is None:
            token = self.token_by_hash(token_hash)
            if token is None:
                return None
            remember_pointer(token_pointers, token_hash, (token.client_id, token.account_id))
            keys = [_client_key(token.client_id), {"pk": f"ACCOUNT#{token.account_id}", "sk": "ACCOUNT"}]
            items = read_keys(self.client, self.name, keys + cert_key(fingerprint))
            return TokenAccess(token, _client_in(items), account_in(items), certificate_in(items))
        client_id, account_id = ids
        keys = [
            {"pk": f"TOKEN#{token_hash}", "sk": "TOKEN"},
            _client_key(client_id),
            {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"},
        ]
        items = read_keys(self.client, self.name, keys + cert_key(fingerprint))
        stored = next((item for item in items if item["sk"] == "TOKEN"), None)
        if stored is None:
            return None
        return TokenAccess(_token(stored), _client_in(items), account_in(items), certificate_in(items))

    # ------------------------------------------------------------ tokens and assertions
    def put_token(self, token: AccessToken, expires_at: datetime) -> None:
        fields = {name: value for name, value in token.__dict__.items() if value is not None}
        item = {"pk": f"TOKEN#{token.token_hash}", "sk": "TOKEN", **fields, "ttl": _ttl(expires_at)}
        self.put_new_item(item)

    def token_by_hash(self, token_hash: str) -> AccessToken | None:
        item = self.table.get_item(Key={"pk": f"TOKEN#{token_hash}", "sk": "TOKEN"}, ConsistentRead=True).get("Item")
        return _token(item) if item is not None else None

    def revoke_token(self, token: AccessToken, events: list[Event], events_table: str) -> bool:
        """Delete the token with `events`, in one transaction; False when it is gone already."""
        delete = {
            "TableName": self.name,
            "Key": {"pk": f"TOKEN#{token.token_hash}", "sk": "TOKEN"},
            "ConditionExpression": "attribute_exists(pk)",
        }
        return landed(
            lambda: self.client.transact_write_items(
                TransactItems=[{"Delete": delete}, *event_puts(events_table, events)]
            )
        )

    def claim_jti(self, client_id: str, jti: str, expires_at: datetime) -> bool:
        """Remember a client assertion's jti until it expires: True the first time, False when
        it was used before (a conditional write: of two racing uses, one wins)."""
        digest = hashlib.sha256(jti.encode()).hexdigest()
        return landed(
            lambda: self.put_new_item({"pk": f"JTI#{client_id}#{digest}", "sk": "JTI", "ttl": _ttl(expires_at)})
        )


@dataclass(frozen=True)
class TokenAccess:
    """An access token (deleted when revoked), its client and account, and the presented
    certificate's record (store.credentials)."""

    token: AccessToken
    client: OAuthClient | None
    account: Account | None
    certificate: ClientCertificate | None


def _token(item: dict[str, Any]) -> AccessToken:
    names = AccessToken.__dataclass_fields__
    fields = {name: item[name] for name in names if name in item}  # tokens issued before cnf have none
    return AccessToken(**fields | {"scopes": list(item["scopes"])})


def _client_in(items: list[dict[str, Any]]) -> OAuthClient | None:
    return next((OAuthClient.from_item(item) for item in items if item["sk"] == "CLIENT"), None)
