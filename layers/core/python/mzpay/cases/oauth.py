"""OAuth 2.0 client credentials (docs/access.md, "OAuth clients"): operators create, list and
revoke an account's clients on the management API; a client exchanges its secret or a signed
assertion for an access token at POST /oauth/token, which the gateway accepts like an API key."""

from __future__ import annotations

import hmac
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from mzpay import deps
from mzpay.answers import oauth_clients as answers
from mzpay.answers.access import OAuthToken
from mzpay.deps import settings
from mzpay.domain.access import oauth as rules
from mzpay.domain.access.client_certs import counts, fingerprint_of, thumbprint
from mzpay.domain.access.keys import (
    ACCESS_TOKEN_PREFIX,
    CLIENT_SECRET_PREFIX,
    generate_key,
    granted,
    key_hash,
    redacted,
)
from mzpay.domain.access.oauth import AccessToken, AuthMethod, ClientStatus, OAuthClient, TokenRequest
from mzpay.domain.accounts.residency import wrong_region
from mzpay.domain.accounts.tenants import AccountStatus
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError, ensure_room, invalid_field
from mzpay.domain.common.ids import new_id
from mzpay.steps import credentials
from mzpay.steps.accounts import home_account, served_here
from mzpay.store.oauth import MAX_CLIENTS_PER_ACCOUNT, ClientChanged
from mzpay.store.secrets import key_pepper


def _now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- clients (management API)
JWKS_TTL_SECONDS = 300  # a client's published keys are kept this long
JWKS_REFETCH_SECONDS = 30  # and fetched again sooner, at most this often, for a kid not seen yet
_published: dict[str, tuple[float, list[dict[str, Any]]]] = {}  # jwks_uri -> (fetched at, keys)
deps.on_reset(_published.clear)


def create_client(
    account_id: str,
    mode: str,
    scopes: list[str],
    name: str | None,
    jwks: dict[str, Any] | None,
    ip_allowlist: list[str],
    jwks_uri: str | None = None,
) -> answers.NewOAuthClient:
    """A new client of the account. With `jwks` (its public keys) or `jwks_uri` (where it
    publishes them) it authenticates with private-key JWT assertions; else with a client secret
    that is in this answer and nowhere else."""
    account = home_account(account_id)
    if jwks is not None and jwks_uri is not None:
        raise invalid_field("jwks_uri", "either jwks or jwks_uri, not both")
    if jwks_uri is not None and not _keys_at(jwks_uri, None, refresh=True):
        raise invalid_field("jwks_uri", "it must serve a JWK set with an RSA (RS256) or EC P-256 (ES256) public key")
    ensure_room(
        len(deps.oauth().clients_of(account.account_id)), MAX_CLIENTS_PER_ACCOUNT, "An account", "OAuth clients"
    )
    registered = None
    if jwks is not None:
        try:
            registered = rules.registered_jwks(jwks)
        except ValueError as exc:
            field, _, message = str(exc).partition(": ")
            raise invalid_field(field, message) from exc
    by_key = registered is not None or jwks_uri is not None
    secret = None if by_key else generate_key(mode, CLIENT_SECRET_PREFIX)
    client = OAuthClient(
        client_id=new_id(),
        **granted(account.account_id, account.home_region, mode, scopes),
        status=ClientStatus.ACTIVE,
        auth_method=AuthMethod.PRIVATE_KEY_JWT if by_key else AuthMethod.SECRET,
        name=name or f"{mode} client",
        created_at=iso(_now()),
        secret_hash=key_hash(secret, key_pepper()) if secret else None,
        secret_hint=redacted(secret) if secret else None,
        jwks=registered,
        jwks_uri=jwks_uri,
        ip_allowlist=ip_allowlist,
    )
    deps.oauth().create_client(client)
    shown = client.public() | ({"client_secret": secret} if secret else {})
    return answers.NewOAuthClient.of(shown)


def list_clients(account_id: str) -> answers.OAuthClientList:
    account = home_account(account_id)
    clients = deps.oauth().clients_of(account.account_id)
    return answers.OAuthClientList(data=[answers.OAuthClient.of(client.public()) for client in clients])


def revoke_client(client_id: str) -> answers.OAuthClient:
    """Revoke a client: its tokens stop working at the next request, it gets no new ones."""
    client = served_here(deps.oauth().get_client(client_id), "OAuth client", "management")
    try:
        return answers.OAuthClient.of(credentials.revoke_client(client, "operator").public())
    except ClientChanged as exc:
        raise ServiceError(409, "invalid_state", "This OAuth client is already revoked.") from exc


# ---------------------------------------------------------------- POST /oauth/token
def issue_token(request: TokenRequest, token_url: str, presented_pem: str | None = None) -> OAuthToken:
    """An access token for an authenticated, active client of an active account homed here.
    A request presenting a client certificate (mutual TLS, `presented_pem`) gets a token bound
    to it (RFC 8705: `cnf.x5t#S256`), accepted only with that certificate; the certificate must
    be a valid one of the client's account, and an account that requires mutual TLS gets no
    token without one (401 client_certificate_required)."""
    if not request.grant_type:
        raise rules.invalid_request("grant_type is required (client_credentials).")
    if request.grant_type != rules.GRANT_TYPE:
        raise rules.oauth_error(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported.")
    uses_assertion = request.assertion is not None or request.assertion_type is not None
    if uses_assertion and request.client_secret is not None:
        raise rules.invalid_request("Authenticate the client one way: a client secret or an assertion, not both.")
    now = _now()
    if uses_assertion:
        client = _asserted_client(request, token_url, now)
    elif request.client_id and request.client_secret is not None:
        client = _secret_client(request.client_id, request.client_secret)
    else:
        raise rules.invalid_client(
            "Client authentication is required: HTTP Basic, client_id and client_secret, "
            "or a private_key_jwt assertion."
        )
    if client.home_region != settings().service_region:
        raise wrong_region(client.home_region, "gateway")
    account = deps.directory().get_account(client.account_id)
    if account is None or account.status == AccountStatus.SUSPENDED:
        raise rules.invalid_client("The client's account is suspended.")
    scopes = rules.granted_scopes(request.scope, client)
    cnf = _confirmation(account.account_id, account.mtls_required, presented_pem, now)
    token = generate_key(client.mode, ACCESS_TOKEN_PREFIX)
    expires = now + timedelta(seconds=rules.TOKEN_LIFETIME_SECONDS)
    record = AccessToken(
        token_hash=key_hash(token, key_pepper()),
        client_id=client.client_id,
        account_id=client.account_id,
        home_region=client.home_region,
        mode=client.mode,
        scopes=scopes,
        expires_at=iso(expires),
        cnf=cnf,
    )
    deps.oauth().put_token(record, expires)
    answer: dict[str, Any] = {
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": rules.TOKEN_LIFETIME_SECONDS,
        "scope": " ".join(scopes),
    }
    if cnf is not None:  # the client sees what its token is bound to (the token itself is opaque)
        answer["cnf"] = cnf
    return OAuthToken.of(answer)


def _confirmation(
    account_id: str, mtls_required: bool, presented_pem: str | None, now: datetime
) -> dict[str, str] | None:
    """The bound certificate's confirmation `{"x5t#S256": thumbprint}` (RFC 8705 3.1), or None
    for an unbound token: allowed only when the account does not require mutual TLS and no
    certificate was presented. A presented certificate that is not a valid one of the account
    (another account's, revoked, expired) is refused rather than ignored or bound."""
    fingerprint = fingerprint_of(presented_pem) if presented_pem else None
    if fingerprint is None:
        if mtls_required:
            raise rules.certificate_required(
                "This client's account requires mutual TLS: request the token over TLS presenting one of "
                "the account's client certificates; the token is bound to it."
            )
        return None
    if not counts(deps.client_certs().get(fingerprint), account_id, now):
        raise rules.certificate_required(
            "The client certificate presented is not a valid certificate of this client's account."
        )
    return {rules.X5T_S256: thumbprint(fingerprint)}


def _active(client: OAuthClient | None, method: str) -> OAuthClient:
    if client is None or client.status != ClientStatus.ACTIVE or client.auth_method != method:
        raise rules.invalid_client("Client authentication failed: unknown or revoked client, or another method.")
    return client


def _secret_client(client_id: str, secret: str) -> OAuthClient:
    client = _active(deps.oauth().get_client(client_id), AuthMethod.SECRET)
    if not hmac.compare_digest(key_hash(secret, key_pepper()), client.secret_hash or ""):
        raise rules.invalid_client("Client authentication failed: unknown or revoked client, or another method.")
    return client


def _asserted_client(request: TokenRequest, token_url: str, now: datetime) -> OAuthClient:
    """The client a private-key JWT assertion authenticates (RFC 7523): signed with one of its
    registered keys, aud the token endpoint, exp at most five minutes ahead, a jti never used."""
    import jwt

    if request.assertion_type != rules.JWT_BEARER or not request.assertion:
        raise rules.invalid_client(f"client_assertion_type must be {rules.JWT_BEARER}, with a client_assertion.")
    try:
        header = jwt.get_unverified_header(request.assertion)
        unverified = jwt.decode(request.assertion, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise rules.invalid_client("The client assertion is not a JWT.") from exc
    client_id = unverified.get("sub") if isinstance(unverified.get("sub"), str) else None
    if request.client_id is not None and request.client_id != client_id:
        raise rules.invalid_client("client_id is not the assertion's subject.")
    client = _active(deps.oauth().get_client(client_id or ""), AuthMethod.PRIVATE_KEY_JWT)
    claims = _verified(request.assertion, header, client, token_url)
    expires = rules.check_assertion(claims, client.client_id, now)
    if not deps.oauth().claim_jti(client.client_id, claims["jti"], expires):
        raise rules.invalid_client("This assertion was used before (its jti): sign a new one for each request.")
    return client


def _verified(assertion: str, header: dict[str, Any], client: OAuthClient, token_url: str) -> dict[str, Any]:
    import jwt

    algorithm = header.get("alg")
    if algorithm not in rules.ALGORITHMS:
        raise rules.invalid_client(f"The assertion must be signed with {' or '.join(rules.ALGORITHMS)}.")
    kty = "RSA" if algorithm == "RS256" else "EC"
    if client.jwks_uri is not None:
        published = _keys_at(client.jwks_uri, header.get("kid"))
        if not published:
            raise rules.invalid_client("The client's jwks_uri cannot be fetched or publishes no usable key.")
    else:
        published = (client.jwks or {}).get("keys", [])
    keys = [k for k in published if k["kty"] == kty]
    if header.get("kid") is not None:  # the key of that kid, or any registered without one
        keys = [k for k in keys if k.get("kid") in (None, header["kid"])]
    failure = "The assertion's signature does not verify with the client's registered keys."
    for key in keys:
        try:
            return dict(
                jwt.decode(
                    assertion,
                    jwt.PyJWK(key, algorithm).key,
                    algorithms=[algorithm],
                    audience=token_url,
                    leeway=rules.CLOCK_SKEW_SECONDS,
                    options={"require": ["exp", "iss", "sub", "aud", "jti"]},
                )
            )
        except jwt.InvalidSignatureError:
            continue
        except jwt.ExpiredSignatureError as exc:
            raise rules.invalid_client("The assertion has expired.") from exc
        except jwt.InvalidAudienceError as exc:
            raise rules.invalid_client(f"The assertion's aud must be the token endpoint, {token_url}.") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise rules.invalid_client(f"The assertion lacks the claim {exc.claim}.") from exc
        except jwt.PyJWTError as exc:
            failure = f"The assertion is not valid: {str(exc)[:120]}."
    raise rules.invalid_client(failure)


def _keys_at(url: str, kid: str | None, refresh: bool = False) -> list[dict[str, Any]]:
    """The usable public keys a client publishes at `url` (https, SSRF-guarded, 3 s), kept
    JWKS_TTL_SECONDS; fetched again sooner for a kid not among them (a rotation), at most every
    JWKS_REFETCH_SECONDS. [] when they cannot be fetched and none are kept."""
    from mzpay.connectors.fetch import FetchError, fetch_json

    now = time.monotonic()
    fetched_at, keys = _published.get(url, (0.0, []))
    unknown_kid = kid is not None and all(k.get("kid") not in (None, kid) for k in keys)
    due = now - fetched_at > JWKS_TTL_SECONDS or (unknown_kid and now - fetched_at > JWKS_REFETCH_SECONDS)
    if refresh or due:
        try:
            keys = rules.published_keys(fetch_json(url))
        except FetchError:
            return keys if not refresh and now - fetched_at <= JWKS_TTL_SECONDS else []
        _published[url] = (now, keys)
    return keys
