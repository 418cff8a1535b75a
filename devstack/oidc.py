"""A small OpenID Connect issuer on loopback, for the local stack and tests (never shipped).

Realms, each an issuer of its own with its own RSA key (`<base>/realms/<name>`):
- `mzpay`: the collection surface's configured (bootstrap) provider (CollectionOidcIssuer);
- `partner`: an issuer the stack does not trust until an identity provider names it.

Per realm: the discovery document (`/.well-known/openid-configuration`), the JWKS (`/jwks`) and
a token endpoint (`/token`) for the client-credentials grant (form-encoded `grant_type`,
`client_id`, `client_secret` or HTTP Basic, `scope`) answering `access_token`, `token_type`
Bearer, `expires_in` and `scope`. The other endpoints the discovery document names (authorize,
userinfo, logout, registration, introspection, revocation) answer 501: this issuer serves
machines only. Tokens are RS256 JWTs: iss, sub (the client id), aud, iat, exp, jti, scope,
client_id and the client's own claims (account_id).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from werkzeug.wrappers import Request, Response

from devstack.threads import LoopbackServer

REALMS = ("mzpay", "partner")
TOKEN_LIFETIME_SECONDS = 3600
UNSERVED = ("authorize", "userinfo", "logout", "register", "introspect", "revoke")


def private_pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _b64(number: int) -> str:
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@dataclass
class Client:
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]
    claims: dict[str, Any] = field(default_factory=dict)


@dataclass
class Realm:
    """One issuer: its key, its clients."""

    name: str
    issuer: str
    key: rsa.RSAPrivateKey
    kid: str
    clients: dict[str, Client] = field(default_factory=dict)

    @property
    def jwk(self) -> dict[str, str]:
        numbers = self.key.public_key().public_numbers()
        return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid, "n": _b64(numbers.n), "e": _b64(numbers.e)}

    def discovery(self) -> dict[str, Any]:
        base = self.issuer
        return {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "userinfo_endpoint": f"{base}/userinfo",
            "jwks_uri": f"{base}/jwks",
            "end_session_endpoint": f"{base}/logout",
            "registration_endpoint": f"{base}/register",
            "introspection_endpoint": f"{base}/introspect",
            "revocation_endpoint": f"{base}/revoke",
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "response_types_supported": ["token"],
            "subject_types_supported": ["public"],
        }

    def mint(self, claims: dict[str, Any], *, audience: str, lifetime: int = TOKEN_LIFETIME_SECONDS) -> str:
        """A signed access token with the standard claims and `claims` (which win)."""
        now = int(time.time())
        body = {"iss": self.issuer, "aud": audience, "iat": now, "exp": now + lifetime, "jti": str(uuid.uuid4())}
        return jwt.encode({**body, **claims}, self.key, algorithm="RS256", headers={"kid": self.kid})


class OidcIssuer(LoopbackServer):
    """The issuer's realms and its HTTP server."""

    thread_name = "oidc"

    def __init__(self, host: str, port: int, audience: str, realms: tuple[str, ...] = REALMS) -> None:
        self.host = host
        self.audience = audience
        super().__init__(host, port)
        self.url = f"http://{host}:{self.server.server_port}"
        self.realms = {
            name: Realm(
                name,
                f"{self.url}/realms/{name}",
                rsa.generate_private_key(public_exponent=65537, key_size=2048),
                f"{name}-{secrets.token_hex(4)}",
            )
            for name in realms
        }

    def register_client(
        self, realm: str, client_id: str, scopes: tuple[str, ...], claims: dict[str, Any] | None = None
    ) -> Client:
        """A client of `realm` with a fresh secret."""
        client = Client(client_id, secrets.token_urlsafe(24), scopes, dict(claims or {}))
        self.realms[realm].clients[client_id] = client
        return client

    def token_for(self, realm: str, client_id: str, lifetime: int = TOKEN_LIFETIME_SECONDS) -> str:
        """What the token endpoint would give `client_id` asking for every scope it has."""
        client = self.realms[realm].clients[client_id]
        claims = {"sub": client.client_id, "client_id": client.client_id, "scope": " ".join(client.scopes)}
        return self.realms[realm].mint({**claims, **client.claims}, audience=self.audience, lifetime=lifetime)

    # ---------------------------------------------------------------- HTTP
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        return self.answer(request)(environ, start_response)

    def answer(self, request: Request) -> Response:
        parts = [p for p in request.path.split("/") if p]
        if len(parts) < 3 or parts[0] != "realms" or parts[1] not in self.realms:
            return _json({"error": "not_found"}, 404)
        realm, rest = self.realms[parts[1]], "/".join(parts[2:])
        if rest == ".well-known/openid-configuration" and request.method == "GET":
            return _json(realm.discovery())
        if rest == "jwks" and request.method == "GET":
            return _json({"keys": [realm.jwk]})
        if rest == "token" and request.method == "POST":
            return self.token(realm, request)
        if rest in UNSERVED:
            return _json({"error": "not_supported", "error_description": "the local issuer serves machines only"}, 501)
        return _json({"error": "not_found"}, 404)

    def token(self, realm: Realm, request: Request) -> Response:
        form = request.form
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if request.authorization and request.authorization.type == "basic":
            client_id = request.authorization.username
            client_secret = request.authorization.password
        if form.get("grant_type") != "client_credentials":
            return _oauth_error("unsupported_grant_type", "only client_credentials is supported", 400)
        client = realm.clients.get(client_id or "")
        if client is None or not secrets.compare_digest(client.client_secret, client_secret or ""):
            return _oauth_error("invalid_client", "unknown client or wrong secret", 401)
        requested = tuple((form.get("scope") or "").split()) or client.scopes
        if not set(requested) <= set(client.scopes):
            return _oauth_error("invalid_scope", "scope not granted to this client", 400)
        claims = {"sub": client.client_id, "client_id": client.client_id, "scope": " ".join(requested)}
        token = realm.mint({**claims, **client.claims}, audience=self.audience)
        body = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME_SECONDS,
            "scope": " ".join(requested),
        }
        return _json(body, headers={"Cache-Control": "no-store"})


def _json(body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json", headers=headers)


def _oauth_error(code: str, description: str, status: int) -> Response:
    headers = {"WWW-Authenticate": 'Basic realm="local-oidc"'} if status == 401 else {}
    return _json({"error": code, "error_description": description}, status, {"Cache-Control": "no-store", **headers})
