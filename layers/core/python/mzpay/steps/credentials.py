"""Revoking a credential (an API key, an OAuth client, an access token) together with its audit
event, in one transaction: `api_key.revoked`, `oauth_client.revoked` or `oauth_token.revoked`,
served by the events API and posted to the account's endpoint for its own events, when it set
one (docs/access.md, "Leaked credentials"). Used by the management API (an operator revokes) and
the secret-scanning receiver (a leak was reported)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.domain.access.keys import KeyStatus
from mzpay.domain.access.oauth import AccessToken, ClientStatus, OAuthClient
from mzpay.domain.common.clock import iso
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.store.directory import ApiKey


def _event(kind: str, account_id: str, mode: str, resource: str, resource_id: str, data: dict[str, Any]) -> Event:
    endpoint = deps.account_endpoints().read(account_id, mode)
    now = iso(datetime.now(UTC))
    return new_event(kind, account_id, mode, resource, resource_id, data, now, endpoint["url"] if endpoint else None)


def _why(reason: str, report: dict[str, str] | None) -> dict[str, Any]:
    return {"reason": reason, "report": report}


def revoke_key(key: ApiKey, reason: str, report: dict[str, str] | None = None) -> ApiKey:
    """The key revoked with api_key.revoked (409 invalid_state when it is already)."""
    after = replace(key, status=KeyStatus.REVOKED)
    event = _event(
        "api_key.revoked",
        key.account_id,
        key.mode,
        "api_key",
        key.key_id,
        {"object": after.public(), **_why(reason, report)},
    )
    return deps.directory().revoke_key(key, [event], deps.events().table.name)


def revoke_client(client: OAuthClient, reason: str, report: dict[str, str] | None = None) -> OAuthClient:
    """The client revoked with oauth_client.revoked (store.oauth.ClientChanged when it is already)."""
    now = iso(datetime.now(UTC))
    after = replace(client, status=ClientStatus.REVOKED, revoked_at=now)
    data = {"object": after.public(), **_why(reason, report)}
    event = _event("oauth_client.revoked", client.account_id, client.mode, "oauth_client", client.client_id, data)
    return deps.oauth().revoke_client(client, now, [event], deps.events().table.name)


def revoke_token(token: AccessToken, reason: str, report: dict[str, str] | None = None) -> bool:
    """The access token deleted with oauth_token.revoked; False when it was gone already."""
    data = {
        "object": {"client_id": token.client_id, "scopes": token.scopes, "expires_at": token.expires_at},
        **_why(reason, report),
    }
    event = _event("oauth_token.revoked", token.account_id, token.mode, "oauth_client", token.client_id, data)
    return deps.oauth().revoke_token(token, [event], deps.events().table.name)
