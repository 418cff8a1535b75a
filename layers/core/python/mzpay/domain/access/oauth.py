"""OAuth 2.0 client credentials (RFC 6749 4.4) for the gateway: clients, the access tokens they
get at POST /oauth/token, and the rules of a private-key JWT client assertion (RFC 7523).

A client belongs to one account and mode and holds a set of scopes. It authenticates with a
client secret (`mzs_<mode>_...`, stored only as a keyed hash, like an API key) or with a JWT it
signs with a private key whose public half (a JWK set, RS256 or ES256) was registered. A token
(`mzt_<mode>_...`, stored as a keyed hash, TOKEN_LIFETIME_SECONDS) is accepted by the gateway like
an API key of the client's account, mode and granted scopes, as long as the client is active and
the account not suspended. Failures are OAuth's `{error, error_description}`, never problem
documents (the `oauth` surface of mzpay.http.errors)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from mzpay.domain.access.keys import SCOPES
from mzpay.domain.common.entity import stored_fields
from mzpay.domain.common.errors import ServiceError

GRANT_TYPE = "client_credentials"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ALGORITHMS = ("RS256", "ES256")
TOKEN_LIFETIME_SECONDS = 3600
MAX_ASSERTION_SECONDS = 300  # an assertion's exp is at most five minutes ahead
CLOCK_SKEW_SECONDS = 30  # clock skew tolerated on an assertion's exp, nbf and iat
MAX_JTI = 255
MAX_KEYS = 5  # public keys a client may register (rotation: the next key beside the current)
MAX_NAME = 100
REALM = 'Basic realm="mzpay"'
X5T_S256 = "x5t#S256"  # RFC 8705 3.1: the confirmation member naming a certificate's SHA-256 thumbprint
_PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {"RSA": ("kty", "n", "e"), "EC": ("kty", "crv", "x", "y")}


class ClientStatus:
    ACTIVE = "active"
    REVOKED = "revoked"


class AuthMethod:
    SECRET = "client_secret"
    PRIVATE_KEY_JWT = "private_key_jwt"


@dataclass
class OAuthClient:
    client_id: str
    account_id: str
    home_region: str
    mode: str
    scopes: list[str]
    status: str
    auth_method: str
    name: str
    created_at: str
    secret_hash: str | None = None
    secret_hint: str | None = None
    jwks: dict[str, Any] | None = None
    jwks_uri: str | None = None  # where its public keys are published (instead of `jwks`)
    ip_allowlist: list[str] = field(default_factory=list)
    revoked_at: str | None = None

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> OAuthClient:
        data = stored_fields(cls, item)
        data["scopes"] = list(data.get("scopes") or [])
        data["ip_allowlist"] = list(data.get("ip_allowlist") or [])
        return cls(**data)

    def item(self) -> dict[str, Any]:
        return {name: value for name, value in asdict(self).items() if value is not None}

    def public(self) -> dict[str, Any]:
        """What the owner and operators may see: never the secret's hash."""
        return {
            "client_id": self.client_id,
            "account_id": self.account_id,
            "name": self.name,
            "mode": self.mode,
            "scopes": self.scopes,
            "status": self.status,
            "token_endpoint_auth_method": self.auth_method,
            "secret_hint": self.secret_hint,
            "jwks": self.jwks,
            "jwks_uri": self.jwks_uri,
            "ip_allowlist": self.ip_allowlist,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


@dataclass(frozen=True)
class AccessToken:
    """An issued token, as stored (its keyed hash, never the token)."""

    token_hash: str
    client_id: str
    account_id: str
    home_region: str
    mode: str
    scopes: list[str]
    expires_at: str
    # RFC 8705: a certificate-bound token's confirmation, {"x5t#S256": <thumbprint>}; None: unbound
    cnf: dict[str, str] | None = None

    @property
    def bound_to(self) -> str | None:
        """The x5t#S256 thumbprint of the certificate this token is bound to, or None."""
        return (self.cnf or {}).get(X5T_S256)


@dataclass(frozen=True)
class TokenRequest:
    """A token request as received (the form's parameters and HTTP Basic credentials)."""

    grant_type: str | None
    scope: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    assertion_type: str | None = None
    assertion: str | None = None
    basic: bool = False  # client_id and client_secret came in an Authorization: Basic header


# ---------------------------------------------------------------- errors (OAuth format)
def oauth_error(status: int, error: str, description: str, **headers: str) -> ServiceError:
    """An OAuth error: the oauth surface writes `{error, error_description}` with
    WWW-Authenticate (every refusal of the token endpoint carries it)."""
    return ServiceError(
        status,
        error,
        description,
        headers={"WWW-Authenticate": f'{REALM}, error="{error}"', "Cache-Control": "no-store", **headers},
    )


def invalid_request(description: str) -> ServiceError:
    return oauth_error(400, "invalid_request", description)


def invalid_client(description: str) -> ServiceError:
    return oauth_error(401, "invalid_client", description)


def certificate_required(description: str) -> ServiceError:
    """The account requires mutual TLS and the token request presented none of its valid
    certificates (the gateway's code, in OAuth's format: an extension error, RFC 6749 8.5)."""
    return oauth_error(401, "client_certificate_required", description)


# ---------------------------------------------------------------- rules
def granted_scopes(requested: str | None, client: OAuthClient) -> list[str]:
    """The token's scopes: those requested (space-separated), each one the client holds; all
    of the client's when none are named. 400 invalid_scope naming the first one not granted."""
    if requested is None or not requested.strip():
        return list(client.scopes)
    wanted = list(dict.fromkeys(requested.split()))
    for scope in wanted:
        if scope not in client.scopes:
            return _refuse_scope(scope)
    return wanted


def _refuse_scope(scope: str) -> list[str]:
    known = scope in SCOPES
    why = "is not granted to this client" if known else "is not a scope of this API"
    raise oauth_error(400, "invalid_scope", f"The scope {scope[:64]} {why}.")


def check_assertion(claims: dict[str, Any], client_id: str, now: datetime) -> datetime:
    """The claims of a verified client assertion (signature, aud and exp already checked by the
    JWT library): iss and sub are the client, exp at most five minutes ahead, a jti. Its expiry
    (how long its jti must be remembered); 401 invalid_client otherwise."""
    if claims.get("iss") != client_id or claims.get("sub") != client_id:
        raise invalid_client("The assertion's iss and sub must both be the client_id.")
    expires = datetime.fromtimestamp(int(claims["exp"]), now.tzinfo)
    if expires - now > timedelta(seconds=MAX_ASSERTION_SECONDS):
        raise invalid_client(f"The assertion's exp is more than {MAX_ASSERTION_SECONDS} seconds ahead.")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > MAX_JTI:
        raise invalid_client(f"The assertion needs a jti (a string of at most {MAX_JTI} characters).")
    return expires


def published_keys(jwks: Any) -> list[dict[str, Any]]:
    """The usable public keys of a JWK set fetched from a client's jwks_uri: each key that would
    be accepted at registration (others, private or of other types, are skipped), at most 10."""
    keys = jwks.get("keys") if isinstance(jwks, dict) else None
    usable = []
    for key in keys if isinstance(keys, list) else []:
        try:
            usable += registered_jwks({"keys": [key]})["keys"]
        except ValueError:
            continue
    return usable[:10]


def registered_jwks(jwks: dict[str, Any]) -> dict[str, Any]:
    """A client's public keys as registered: a JWK set of 1 to MAX_KEYS public RSA (2048 bits or
    more, for RS256) or EC P-256 (ES256) keys; never a private key. ValueError saying why not."""
    keys = jwks.get("keys")
    if not isinstance(keys, list) or not 1 <= len(keys) <= MAX_KEYS:
        raise ValueError(f"jwks: a JWK set with 1 to {MAX_KEYS} keys")
    kept = []
    for index, key in enumerate(keys):
        if not isinstance(key, dict):
            raise ValueError(f"jwks.keys.{index}: a JWK object")
        if "d" in key or any(name in key for name in ("p", "q", "dp", "dq", "qi")):
            raise ValueError(f"jwks.keys.{index}: a private key; register the public key only")
        fields = _PUBLIC_FIELDS.get(str(key.get("kty")), ())
        if not fields or key.get("crv", "P-256") != "P-256" or not all(isinstance(key.get(f), str) for f in fields):
            raise ValueError(f"jwks.keys.{index}: an RSA (RS256) or EC P-256 (ES256) public key")
        if key["kty"] == "RSA" and len(key["n"]) * 6 < 2040:  # base64url: 6 bits a character
            raise ValueError(f"jwks.keys.{index}: an RSA key of at least 2048 bits")
        public = {name: key[name] for name in fields}
        if isinstance(key.get("kid"), str):
            public["kid"] = key["kid"][:128]
        kept.append(public)
    return {"keys": kept}
