"""What the gateway's authorizer reads about a credential in one round trip (mzpay.http.merchant_auth):
an API key or an access token with its account, and the presented client certificate's record.
The hash pointers it follows first (a key's hash -> key id and account id, a token's -> client id
and account id) are written once and never changed, so an execution environment remembers them
(Directory.key_access, OAuthStore.token_access); what changes is read every time."""

from __future__ import annotations

from typing import Any

from mzpay.domain.access.client_certs import ClientCertificate
from mzpay.memo import on_reset

POINTERS_KEPT = 10_000  # hash pointers an execution environment remembers (then it starts over)
key_pointers: dict[str, tuple[str, str]] = {}  # key hash -> (key id, account id)
token_pointers: dict[str, tuple[str, str]] = {}  # token hash -> (client id, account id)
on_reset(key_pointers.clear)
on_reset(token_pointers.clear)


def remember_pointer(memo: dict[str, tuple[str, str]], token_hash: str, ids: tuple[str, str]) -> None:
    """Keep `ids` under `token_hash` in `memo` (bounded: past POINTERS_KEPT it starts over)."""
    if len(memo) >= POINTERS_KEPT:
        memo.clear()
    memo[token_hash] = ids


def certificate_in(items: list[dict[str, Any]]) -> ClientCertificate | None:
    """The certificate record among the items of an authorizer's batch, if any."""
    return next((ClientCertificate.from_item(item) for item in items if item["sk"] == "CERT"), None)


def cert_key(fingerprint: str | None) -> list[dict[str, str]]:
    """The key of the certificate record of `fingerprint` (a presented client certificate's), to
    read with the authorizer's batch; none when nothing was presented."""
    return [{"pk": f"CERT#{fingerprint}", "sk": "CERT"}] if fingerprint and len(fingerprint) == 64 else []
