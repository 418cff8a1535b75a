"""The management API's answers about OAuth 2.0 clients (mzpay.cases.oauth: OAuthClient.public)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.access import Scope
from mzpay.answers.base import ACCOUNT, Answer, CreatedAt, Mode, Timestamp, examples, sometimes


class RsaJwk(Answer):
    """A registered RSA public key (RS256)."""

    kty: Literal["RSA"] = Field(description="RSA.")
    n: str = Field(description="The modulus (base64url).")
    e: str = Field(description="The exponent (base64url).")
    kid: str = sometimes("The key's id, when the registered key had one (at most 128 characters).")


class EcJwk(Answer):
    """A registered EC P-256 public key (ES256)."""

    kty: Literal["EC"] = Field(description="EC.")
    crv: Literal["P-256"] = Field(description="Always P-256.")
    x: str = Field(description="The x coordinate (base64url).")
    y: str = Field(description="The y coordinate (base64url).")
    kid: str = sometimes("The key's id, when the registered key had one (at most 128 characters).")


class RegisteredJwks(Answer):
    """The public keys a client signs its assertions with: only their public members are kept."""

    keys: list[Annotated[RsaJwk | EcJwk, Field(discriminator="kty")]] = Field(description="1 to 5 keys.")


_CLIENT = {
    "client_id": "01JD9D1E2F3G4H5J6K7M8N9P0Q",
    "account_id": ACCOUNT,
    "name": "ERP sync",
    "mode": "live",
    "scopes": ["payments:read", "events:read"],
    "status": "active",
    "token_endpoint_auth_method": "client_secret",
    "secret_hint": "mzs_live_...Tq4w",
    "jwks": None,
    "jwks_uri": None,
    "ip_allowlist": [],
    "created_at": "2026-10-02T08:00:00Z",
    "revoked_at": None,
}


class OAuthClient(Answer):
    """An OAuth 2.0 client-credentials client of an account (never its secret or its hash)."""

    model_config = examples(
        {**_CLIENT, "status": "revoked", "revoked_at": "2026-11-02T10:00:00Z"},
        {
            **_CLIENT,
            "token_endpoint_auth_method": "private_key_jwt",
            "secret_hint": None,
            "jwks": {"keys": [{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2...", "y": "x_FEzRu9...", "kid": "k1"}]},
        },
    )

    client_id: str = Field(description="The client's id (a ULID): client_id at POST /oauth/token.")
    account_id: str = Field(description="The account it acts for.")
    name: str = Field(description="Its name (the mode and 'client' when none was given).")
    mode: Mode = Field(description="The mode its tokens act in.")
    scopes: list[Scope] = Field(description="The scopes it may be granted.")
    status: Literal["active", "revoked"] = Field(description="revoked: its tokens stop working, it gets no new ones.")
    token_endpoint_auth_method: Literal["client_secret", "private_key_jwt"] = Field(
        description="How it authenticates: its secret, or a JWT signed with a registered key."
    )
    secret_hint: str | None = Field(description="Its secret's prefix, mode and last four characters; null: by key.")
    jwks: RegisteredJwks | None = Field(description="Its registered public keys; null: a secret or a jwks_uri.")
    jwks_uri: str | None = Field(description="Where it publishes its public keys; null: none.")
    ip_allowlist: list[str] = Field(description="The addresses or CIDR ranges it is accepted from; empty: any.")
    created_at: CreatedAt
    revoked_at: Timestamp | None = Field(description="When it was revoked; null while active.")


class NewOAuthClient(OAuthClient):
    """A new OAuth client; a client that authenticates with a secret has it in this answer only."""

    model_config = examples({**_CLIENT, "client_secret": "mzs_live_7Hc2..."})

    client_secret: str = sometimes("The client's secret, shown once; absent for a private_key_jwt client.")


class OAuthClientList(Answer):
    """An account's OAuth clients."""

    model_config = examples({"data": [_CLIENT]})

    data: list[OAuthClient] = Field(description="Every client of the account, revoked ones too.")
