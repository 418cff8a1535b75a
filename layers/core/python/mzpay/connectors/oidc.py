"""Sign-in on the collection surface: validating an OIDC access token (docs/collection.md).

A token is accepted when its `iss` is a configured provider's issuer (the stack's bootstrap
provider, or an `oidc` identity provider created through the API), its signature verifies
against a key of that provider's JWKS (fetched by pyjwt's PyJWKClient and cached for
JWKS_LIFESPAN_SECONDS; an unknown `kid` refetches at most once per JWKS_COOLDOWN_SECONDS), it is
not expired, and its `aud` contains this API's audience. A token of a provider created through the
API must name one of the business accounts bound to it (`account_ids`); the bootstrap provider's
may name any account, or none (the installation's administrator).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mzpay.config import settings
from mzpay.connectors.fetch import FetchError, fetch_json
from mzpay.domain.collection.access import CONFIGURED, Identity, InvalidClaims, identity_from_claims
from mzpay.domain.common.errors import ServiceError

JWKS_LIFESPAN_SECONDS = 300
JWKS_COOLDOWN_SECONDS = 30
LEEWAY_SECONDS = 30  # clock skew between the provider and us
MAX_TOKEN_LENGTH = 16 * 1024
WWW_AUTHENTICATE = 'Bearer realm="mzpay-collection"'
_KEY_TYPES = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA",)}
_ALGORITHMS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"})
_MESSAGES = {
    "missing": "An access token is required: Authorization: Bearer <access token>.",
    "malformed": "The access token is not a signed JWT.",
    "unsupported_algorithm": "The access token's signing algorithm is not accepted.",
    "unknown_issuer": "The access token was issued by a provider this service does not trust.",
    "unknown_key": "The access token was signed with a key its provider does not publish.",
    "invalid_signature": "The access token's signature does not verify.",
    "expired": "The access token has expired.",
    "not_yet_valid": "The access token is not valid yet.",
    "wrong_audience": "The access token is not meant for this API.",
    "invalid_claims": "The access token's claims do not name an identity.",
    "unbound_account": "The access token's provider is not trusted for the account it names (or for none).",
}


@dataclass(frozen=True)
class Provider:
    """A provider whose tokens are trusted: its issuer, where its keys are, and which it is."""

    issuer: str
    jwks_uri: str
    name: str  # CONFIGURED for the bootstrap provider, else the identity provider's id
    # The business accounts a registered provider is trusted for (its `account_ids`); None for
    # the bootstrap provider, whose tokens may name any account, or none (the administrator).
    accounts: frozenset[str] | None = None


def unauthorized(reason: str) -> ServiceError:
    """401 unauthorized with a stable `reason` in metadata and an RFC 6750 challenge."""
    challenge = WWW_AUTHENTICATE if reason == "missing" else f'{WWW_AUTHENTICATE}, error="invalid_token"'
    return ServiceError(401, "unauthorized", _MESSAGES[reason], headers={"WWW-Authenticate": challenge}, reason=reason)


def configured_provider() -> Provider | None:
    """The stack's bootstrap provider (OIDC_ISSUER, OIDC_JWKS_URI), if it has one."""
    issuer, jwks_uri = settings().oidc_issuer, settings().oidc_jwks_uri
    return Provider(issuer, jwks_uri, CONFIGURED) if issuer and jwks_uri else None


def audience() -> str:
    return settings().oidc_audience or "mzpay-collection"


def _client_class() -> Any:
    from jwt import PyJWKClient
    from jwt.exceptions import PyJWKClientConnectionError

    class SafeJWKClient(PyJWKClient):  # type: ignore[misc]
        """PyJWKClient whose fetch follows mzpay.connectors.fetch (https, public, 3 s)."""

        def fetch_data(self) -> Any:
            import time

            try:
                data = fetch_json(self.uri)
            except FetchError as exc:
                raise PyJWKClientConnectionError(exc.message) from exc
            self._last_successful_fetch = time.monotonic()
            return data

    return SafeJWKClient


class KeySets:
    """One PyJWKClient per JWKS URL, kept for the life of the execution environment."""

    def __init__(self) -> None:
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def client(self, jwks_uri: str) -> Any:
        with self._lock:
            client = self._clients.get(jwks_uri)
            if client is None:
                client = _client_class()(
                    jwks_uri,
                    cache_jwk_set=True,
                    lifespan=JWKS_LIFESPAN_SECONDS,
                    cooldown_duration=JWKS_COOLDOWN_SECONDS,
                    timeout=3,
                )
                if len(self._clients) >= 64:  # providers come and go; forget the oldest
                    self._clients.pop(next(iter(self._clients)))
                self._clients[jwks_uri] = client
            return client

    def clear(self) -> None:
        with self._lock:
            self._clients.clear()


KEY_SETS = KeySets()


def _compatible(algorithm: str, key_type: str | None) -> bool:
    return any(algorithm.startswith(prefix) for prefix in _KEY_TYPES.get(key_type or "", ()))


def verify_access_token(
    token: str,
    provider_for: Callable[[str], Provider | None],
    *,
    api_audience: str,
    key_sets: KeySets = KEY_SETS,
) -> Identity:
    """The identity a valid access token names; 401 unauthorized (metadata.reason says why),
    or 502 provider_error when the provider's keys cannot be fetched."""
    import jwt
    from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError

    if len(token) > MAX_TOKEN_LENGTH:
        raise unauthorized("malformed")
    try:
        header = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise unauthorized("malformed") from exc
    algorithm = header.get("alg")
    if algorithm not in _ALGORITHMS:
        raise unauthorized("unsupported_algorithm")
    issuer = unverified.get("iss")
    provider = provider_for(issuer) if isinstance(issuer, str) and issuer else None
    if provider is None:
        raise unauthorized("unknown_issuer")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise unauthorized("unknown_key")
    try:
        signing_key = key_sets.client(provider.jwks_uri).get_signing_key(kid)
    except PyJWKClientConnectionError as exc:
        raise ServiceError(
            502,
            "provider_error",
            "The identity provider's signing keys could not be fetched; retry.",
            headers={"Retry-After": "1"},
            issuer=provider.issuer,
        ) from exc
    except (PyJWKClientError, jwt.PyJWTError) as exc:
        raise unauthorized("unknown_key") from exc
    declared = getattr(signing_key, "_jwk_data", {}).get("alg")
    if not _compatible(algorithm, signing_key.key_type) or (declared and declared != algorithm):
        raise unauthorized("unsupported_algorithm")
    try:
        claims = jwt.decode(
            token,
            signing_key.key,
            algorithms=[algorithm],
            audience=api_audience,
            issuer=provider.issuer,
            leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iss", "sub", "aud"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise unauthorized("expired") from exc
    except jwt.ImmatureSignatureError as exc:
        raise unauthorized("not_yet_valid") from exc
    except (jwt.InvalidAudienceError, jwt.MissingRequiredClaimError) as exc:
        reason = "wrong_audience" if isinstance(exc, jwt.InvalidAudienceError) else "invalid_claims"
        if isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim == "aud":
            reason = "wrong_audience"
        raise unauthorized(reason) from exc
    except jwt.InvalidIssuerError as exc:
        raise unauthorized("unknown_issuer") from exc
    except jwt.InvalidSignatureError as exc:
        raise unauthorized("invalid_signature") from exc
    except jwt.PyJWTError as exc:
        raise unauthorized("invalid_claims") from exc
    try:
        identity = identity_from_claims(claims, provider.name)
    except InvalidClaims as exc:
        raise unauthorized("invalid_claims") from exc
    if provider.accounts is not None and identity.account_id not in provider.accounts:
        raise unauthorized("unbound_account")  # a registered provider never speaks for others, nor as administrator
    return identity
