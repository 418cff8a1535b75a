"""The collection API's answers about identity providers (mzpay.domain.collection.identity_providers.view) and
trusted devices, as the use cases (mzpay.collection.identity_providers, devices) return them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import AlwaysNull, Answer, CreatedAt, ItsName, PagedAnswer, UpdatedAt, examples, page_example

IDP = "idp_01JD9G0A1B2C3D4E5F6G7H8J9K"


# ---------------------------------------------------------------- identity providers
_PROVIDER = {
    "id": IDP,
    "name": "Acme SSO",
    "type": "oidc",
    "client_id": "mzpay",
    "client_secret": "****9z8y",
    "encryption_key": "****",
    "provider_url": "https://sso.acme.example",
    "issuer_url": "https://sso.acme.example",
    "auth_url": "https://sso.acme.example/authorize",
    "token_url": "https://sso.acme.example/token",
    "user_info_url": "https://sso.acme.example/userinfo",
    "scopes": "openid profile email",
    "redirect_uris": "https://portal.example/callback",
    "end_session_endpoint": "https://sso.acme.example/logout",
    "jwks_uri": "https://sso.acme.example/jwks",
    "registration_endpoint": "https://sso.acme.example/register",
    "introspection_endpoint": "https://sso.acme.example/introspect",
    "revocation_endpoint": "https://sso.acme.example/revoke",
    "well_known_url": "https://sso.acme.example/.well-known/openid-configuration",
    "account_ids": ["01JD9B1C2D3E4F5G6H7J8K9M0N"],
    "created_at": "2026-11-01T08:00:00.000Z",
    "updated_at": "2026-11-01T08:00:00.000Z",
    "created_by": "admin-1",
    "updated_by": None,
    "created_ip": "198.51.100.7",
    "updated_ip": None,
}


# Keys that answers of this module share, described once.
IdpObject = Annotated[Literal["idp"], Field(description="Always idp.")]
DeviceObject = Annotated[Literal["device"], Field(description="Always device.")]


class IdentityProvider(Answer):
    """An OIDC or SAML provider whose tokens may call the collection API (secrets only as hints)."""

    id: str = Field(description="The provider's id (idp_...).")
    name: ItsName
    type: Literal["oidc", "saml"] = Field(description="The protocol.")
    client_id: str = Field(description="The client id the service is registered with.")
    client_secret: str = Field(description="A hint of the client secret: **** and, when long, its last four.")
    encryption_key: str = Field(description="A hint of the encryption key: **** and, when long, its last four.")
    provider_url: str = Field(description="The provider's URL.")
    issuer_url: str = Field(description="The issuer its tokens name (iss): unique among providers.")
    auth_url: str = Field(description="The authorization endpoint.")
    token_url: str = Field(description="The token endpoint.")
    user_info_url: str = Field(description="The userinfo endpoint.")
    scopes: str = Field(description="The scopes asked for, space-separated.")
    redirect_uris: str = Field(description="The redirect URIs, comma-separated.")
    end_session_endpoint: str = Field(description="The logout endpoint.")
    jwks_uri: str = Field(description="Where its token signing keys are published.")
    registration_endpoint: str = Field(description="The registration endpoint.")
    introspection_endpoint: str = Field(description="The introspection endpoint.")
    revocation_endpoint: str = Field(description="The revocation endpoint.")
    well_known_url: str = Field(description="Its OIDC discovery document.")
    account_ids: list[str] = Field(
        description="The business accounts its tokens may act for (bound by the administrator, at most 100); "
        "a token of it naming another account, or none, is 401 unauthorized (reason unbound_account)."
    )
    created_at: CreatedAt
    updated_at: UpdatedAt
    created_by: str = Field(description="Who created it (given, else the token's subject).")
    updated_by: str | None = Field(description="Who last changed it; null: never changed.")
    created_ip: str = Field(description="The address it was created from.")
    updated_ip: str | None = Field(description="The address of the last change; null: never changed.")


class IdentityProviderResult(Answer):
    """An identity provider (created, read or updated)."""

    model_config = examples({"object": "idp", "identity_provider": _PROVIDER, "error": None})

    object: IdpObject
    identity_provider: IdentityProvider = Field(description="The provider.")
    error: AlwaysNull


class IdentityProviderList(PagedAnswer[IdentityProvider]):
    """A page of identity providers, in creation order."""

    model_config = page_example(_PROVIDER)

    data: list[IdentityProvider] = Field(description="The providers of this page.")


class IdentityProviderDeleted(Answer):
    """The identity provider removed (the deletion is audited)."""

    model_config = examples({"object": "idp", "error": None})

    object: IdpObject
    error: AlwaysNull


# ---------------------------------------------------------------- devices
class DeviceTrusted(Answer):
    """The device is trusted for the user (answered the same when it already was)."""

    model_config = examples({"object": "device", "trusted": "9f86d081884c7d659a2feaa0c55ad015" * 2})

    object: DeviceObject
    trusted: str = Field(description="The device's id: the SHA-256 hex digest of its IMEI, lower-case.")


class DeviceCheck(Answer):
    """Whether the caller's account trusts a device."""

    model_config = examples({"object": "device", "device_exists": True})

    object: DeviceObject
    device_exists: bool = Field(description="true: trusted.")
