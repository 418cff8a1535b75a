"""The gateway's authorizer: API keys (checksum, keyed-hash lookup, expiry, IP allowlist) and
OAuth access tokens (keyed-hash lookup, expiry, the client still active), the account's state and
its home region. Run on every request: API Gateway keeps no result (docs/access.md). One DynamoDB
round trip per request once the execution environment has seen the credential (the key or token
with its account, and the presented certificate's record, in one consistent BatchGetItem)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mzpay import deps
from mzpay.deps import settings
from mzpay.domain.access.client_certs import counts, fingerprint_of, thumbprint
from mzpay.domain.access.keys import (
    ACCESS_TOKEN_PREFIX,
    USE_RECORDED_EVERY,
    key_hash,
    key_mode,
    key_use,
    looks_like_key,
    token_mode,
    use_to_record,
)
from mzpay.domain.access.oauth import ClientStatus
from mzpay.domain.accounts.residency import wrong_region
from mzpay.domain.accounts.tenants import AccountStatus, suspended_message
from mzpay.domain.common.clock import iso, parse_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.network import ip_allowed, parse_allowlist
from mzpay.http.authorizers import Unauthorized, allow, bearer_token, client_certificate, refuse, source_ip
from mzpay.http.principal import WWW_AUTHENTICATE
from mzpay.store.secrets import key_pepper

if TYPE_CHECKING:  # the store (and pydantic, through it) loads on the first lookup, not at cold start
    from mzpay.domain.access.client_certs import ClientCertificate
    from mzpay.store.directory import Account, ApiKey


def _unauthenticated(code: str, message: str) -> ServiceError:
    return ServiceError(401, code, message, headers={"WWW-Authenticate": WWW_AUTHENTICATE})


def _suspended(reason: str) -> ServiceError:
    return ServiceError(403, "account_suspended", suspended_message(reason))


CERTIFICATE_REQUIRED = ServiceError(
    401, "client_certificate_required", "A client certificate of this account is required (mutual TLS)."
)


def _certificate_missing(account: Account, record: ClientCertificate | None, now: datetime) -> bool:
    """True when the account requires mutual TLS and the request presented none of its valid
    certificates (`record`: the presented certificate's, read with the key)."""
    if not account.mtls_required:
        return False
    return not counts(record, account.account_id, now)


def _token_certificate_refusal(
    event: dict[str, Any], bound_to: str | None, account: Account, record: ClientCertificate | None, now: datetime
) -> str:
    """Why an access token may not be used with the certificate this request presented, or "".
    A bound token (RFC 8705) needs exactly its certificate, still valid for the account; while
    the account requires mutual TLS, an unbound token (issued before, or over plain HTTP) is
    refused whatever the request presents: the certificate must be proven at /oauth/token."""
    if bound_to is None:
        if account.mtls_required:
            return (
                "This access token is not bound to a client certificate and this account requires mutual "
                "TLS: get a new token at POST /oauth/token presenting one of the account's certificates."
            )
        return ""
    fingerprint = fingerprint_of(client_certificate(event) or "")
    if fingerprint is None or thumbprint(fingerprint) != bound_to:
        return "This access token is bound to a client certificate: present that certificate (mutual TLS)."
    if not counts(record, account.account_id, now):
        return "The client certificate this access token is bound to is no longer valid for this account."
    return ""


def authorize_merchant(event: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """Allow a live key of an active account homed here, with its properties as context; a
    refusal otherwise (see `mzpay.http.authorizers.refuse`)."""
    token = bearer_token(event)
    if token is not None and token.startswith(f"{ACCESS_TOKEN_PREFIX}_"):
        return _authorize_access_token(event, token, now or datetime.now(UTC))
    if token is None or not looks_like_key(token):
        raise Unauthorized()
    if key_mode(token) is None:  # checksum first: a typo never reaches the table
        return refuse(
            event,
            "anonymous",
            _unauthenticated("invalid_api_key", "The API key is malformed or mistyped (its checksum does not match)."),
        )
    access = deps.directory().key_access(key_hash(token, key_pepper()), _fingerprint(event))
    now = now or datetime.now(UTC)
    if access is None:
        raise Unauthorized()
    key = access.key
    use = key_use(key.status, parse_iso(key.expires_at), now)
    if not use.allowed:
        if use.code == "unauthorized":
            raise Unauthorized()
        return refuse(event, key.key_id, _unauthenticated(use.code, "This API key has expired."))
    if key.home_region != settings().service_region:
        return refuse(event, key.key_id, wrong_region(key.home_region, "gateway"))
    if key.ip_allowlist and not ip_allowed(source_ip(event), parse_allowlist(",".join(key.ip_allowlist))):
        return refuse(
            event, key.key_id, ServiceError(403, "ip_not_allowed", "This API key may not be used from this address.")
        )
    account = access.account
    if account is None:
        raise Unauthorized()
    if account.status == AccountStatus.SUSPENDED:
        return refuse(event, key.key_id, _suspended(account.reason))
    if _certificate_missing(account, access.certificate, now):
        return refuse(event, key.key_id, CERTIFICATE_REQUIRED)
    _record_use(key, now)
    return allow(
        event,
        key.key_id,
        {
            "account_id": key.account_id,
            "mode": key.mode,
            "scopes": " ".join(key.scopes),
            "key_id": key.key_id,
            "allowed_customers": ",".join(key.allowed_customers),
            "expires_at": key.expires_at or "",
        },
    )


def _fingerprint(event: dict[str, Any]) -> str | None:
    """The fingerprint of the client certificate the request presented (None: none presented)."""
    presented = client_certificate(event)
    return fingerprint_of(presented) if presented else None


def _record_use(key: ApiKey, now: datetime) -> None:
    """Write the key's last use when it is an hour old or more (the console lists it); a write
    that fails is logged and the request goes on: a key's last use never refuses a request."""
    if not use_to_record(parse_iso(key.last_used_at), now):
        return
    try:
        deps.directory().record_key_use(key, iso(now), iso(now - USE_RECORDED_EVERY))
    except Exception as exc:
        from mzpay.observability import logger

        logger.warning("API key use not recorded", extra={"key_id": key.key_id}, exc_info=exc)


def _authorize_access_token(event: dict[str, Any], token: str, now: datetime) -> dict[str, Any]:
    """An OAuth access token: like an API key of its client's account, mode and granted scopes,
    while the token lives, the client is active and the account is not suspended; a
    certificate-bound token only with its certificate, and an unbound one not while the account
    requires mutual TLS. One DynamoDB round trip once this environment has seen the token (the
    token, its client and account, the presented certificate's record), else two (the token
    first)."""
    if token_mode(token) is None:  # mistyped: no lookup
        raise Unauthorized()
    access = deps.oauth().token_access(key_hash(token, key_pepper()), _fingerprint(event))
    if access is None:
        raise Unauthorized()
    record = access.token
    if now >= (parse_iso(record.expires_at) or now):
        return refuse(
            event,
            record.client_id,
            _unauthenticated("unauthorized", "The access token has expired; get a new one at POST /oauth/token."),
        )
    if record.home_region != settings().service_region:
        return refuse(event, record.client_id, wrong_region(record.home_region, "gateway"))
    client, account = access.client, access.account
    if client is None or client.status != ClientStatus.ACTIVE or account is None:
        raise Unauthorized()  # a revoked client's tokens are as if they never existed
    if client.ip_allowlist and not ip_allowed(source_ip(event), parse_allowlist(",".join(client.ip_allowlist))):
        return refuse(
            event,
            client.client_id,
            ServiceError(403, "ip_not_allowed", "This OAuth client may not be used from this address."),
        )
    if account.status == AccountStatus.SUSPENDED:
        return refuse(
            event, client.client_id, ServiceError(403, "account_suspended", suspended_message(account.reason))
        )
    refusal = _token_certificate_refusal(event, record.bound_to, account, access.certificate, now)
    if refusal:
        return refuse(event, client.client_id, ServiceError(401, "client_certificate_required", refusal))
    return allow(
        event,
        client.client_id,
        {
            "account_id": record.account_id,
            "mode": record.mode,
            "scopes": " ".join(record.scopes),
            "key_id": client.client_id,
            "allowed_customers": "",
            "expires_at": record.expires_at,
        },
    )
