"""The secret-scanning receiver (docs/access.md, "Leaked credentials"): a signed report of tokens
found in public is checked, each of our live credentials in it is revoked at once with its audit
event, and the answer labels every token true or false positive.

The signature is checked against the provider's published keys (fetched from the configured URL,
kept an hour, fetched again, at most once a minute, for a key identifier not seen yet); a report
that does not verify is 401 invalid_signature and nothing is looked at. A token is judged offline
first (prefix and checksum: anything else is a false positive without a lookup), then by its keyed
hash. A credential of a tenant homed in another region is revoked there: the report, signature
and all, is passed on to that region's receiver, which answers for it (residency: the audit event
lives with the tenant's data)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from mzpay import deps
from mzpay.answers.service import SecretScanningLabels
from mzpay.deps import settings
from mzpay.domain.access import secret_scanning as rules
from mzpay.domain.access.keys import ACCESS_TOKEN_PREFIX, CLIENT_SECRET_PREFIX, KeyStatus, credential, key_hash
from mzpay.domain.access.oauth import ClientStatus
from mzpay.domain.access.secret_scanning import FALSE_POSITIVE, TRUE_POSITIVE, Reported
from mzpay.domain.common.errors import ServiceError, found
from mzpay.steps import credentials
from mzpay.store.oauth import ClientChanged
from mzpay.store.secrets import key_pepper

KEYS_TTL_SECONDS = 3600
REFETCH_AFTER_SECONDS = 60
RETRY_AFTER_SECONDS = 60
_keys: dict[str, tuple[float, dict[str, str]]] = {}  # keys URL -> (fetched at, key id -> PEM)
deps.on_reset(_keys.clear)


def _unavailable(what: str) -> ServiceError:
    return ServiceError(
        503, "service_unavailable", f"{what}; send the report again.", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
    )


def _invalid_signature(detail: str) -> ServiceError:
    return ServiceError(401, "invalid_signature", f"{detail} The report was ignored.")


def provider_key(url: str, key_id: str) -> str | None:
    """The PEM of the provider's key `key_id` (None: the provider publishes no such key)."""
    from mzpay.connectors.fetch import FetchError, fetch_json

    now = time.monotonic()
    fetched_at, keys = _keys.get(url, (0.0, {}))
    stale = now - fetched_at > KEYS_TTL_SECONDS
    if stale or (key_id not in keys and now - fetched_at > REFETCH_AFTER_SECONDS):
        try:
            keys = rules.public_keys(fetch_json(url))
        except (FetchError, ValueError) as exc:
            if stale or key_id not in keys:
                raise _unavailable("The provider's public keys cannot be fetched") from exc
        _keys[url] = (now, keys)
    return keys.get(key_id)


def receive(
    provider: str, body: bytes, key_id: str | None, signature: str | None, forwarded_from: str | None
) -> SecretScanningLabels:
    """POST /secret-scanning/<provider>: the label of each reported token."""
    url = found(settings().secret_scanning_keys_urls.get(provider), "secret-scanning provider")
    if not key_id or not signature or len(key_id) > 256 or len(signature) > 1024:
        raise _invalid_signature(f"The report is not signed ({rules.KEY_ID_HEADER}, {rules.SIGNATURE_HEADER}).")
    public_key = provider_key(url, key_id)
    if public_key is None or not rules.signature_valid(body, signature, public_key):
        raise _invalid_signature("The report's signature does not verify with the provider's keys.")
    try:
        items = rules.parse_report(body)
    except ValueError as exc:
        raise ServiceError(400, "invalid_request", f"The report cannot be read: {exc}.") from exc
    here = settings().service_region
    labels: dict[int, str] = {}
    elsewhere: set[str] = set()
    for index, item in enumerate(items):
        label, region = _judge(provider, item, here)
        labels[index] = label
        if region is not None:
            elsewhere.add(region)
    if elsewhere and forwarded_from is None:  # a passed-on report is never passed on again
        for region in sorted(elsewhere):
            _pass_on(region, provider, body, key_id, signature, here)
    return SecretScanningLabels.model_validate([rules.answer(item, labels[index]) for index, item in enumerate(items)])


def _judge(provider: str, item: Reported, here: str) -> tuple[str, str | None]:
    """(label, the home region when it is not this one) of one reported token; a live credential
    of a tenant homed here is revoked now."""
    found = credential(item.token)
    if found is None:
        return FALSE_POSITIVE, None  # not ours, or mistyped: no lookup
    prefix, _mode = found
    digest = key_hash(item.token, key_pepper())
    report = {"provider": provider, **item.where()}
    if prefix == CLIENT_SECRET_PREFIX:
        client = deps.oauth().client_by_secret_hash(digest)
        if client is None:
            return FALSE_POSITIVE, None
        if client.home_region != here:
            return TRUE_POSITIVE, client.home_region
        if client.status == ClientStatus.ACTIVE:
            with contextlib.suppress(ClientChanged):  # revoked meanwhile
                credentials.revoke_client(client, "secret_scanning", report)
        return TRUE_POSITIVE, None
    if prefix == ACCESS_TOKEN_PREFIX:
        token = deps.oauth().token_by_hash(digest)
        if token is None:
            return FALSE_POSITIVE, None  # expired and gone, or never ours
        if token.home_region != here:
            return TRUE_POSITIVE, token.home_region
        credentials.revoke_token(token, "secret_scanning", report)
        return TRUE_POSITIVE, None
    key = deps.directory().key_by_hash(digest)
    if key is None:
        return FALSE_POSITIVE, None
    if key.home_region != here:
        return TRUE_POSITIVE, key.home_region
    if key.status != KeyStatus.REVOKED:
        try:
            credentials.revoke_key(key, "secret_scanning", report)
        except ServiceError as lost:
            if lost.code != "invalid_state":  # revoked meanwhile
                raise
    return TRUE_POSITIVE, None


def _pass_on(region: str, provider: str, body: bytes, key_id: str, signature: str, here: str) -> None:
    """Send the report to `region`'s receiver, which revokes its tenants' credentials; 503 (the
    provider sends the report again: what was revoked here stays revoked) if it does not answer."""
    import urllib.error
    import urllib.request

    base = settings().peer_region_urls.get(region, {}).get("gateway")
    if not base:
        raise _unavailable(f"Region {region} has no receiver configured")
    headers = {
        "Content-Type": "application/json",
        rules.KEY_ID_HEADER: key_id,
        rules.SIGNATURE_HEADER: signature,
        rules.FORWARDED_HEADER: here,
    }
    request = urllib.request.Request(f"{base}/secret-scanning/{provider}", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            status: Any = answer.status
    except (urllib.error.URLError, OSError) as exc:
        raise _unavailable(f"Region {region} did not take the report") from exc
    if status != 200:
        raise _unavailable(f"Region {region} did not take the report")
