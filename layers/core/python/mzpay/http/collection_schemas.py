"""Request bodies of the collection surface's identity-provider and device routes (pydantic:
validation and the OpenAPI document); the licence routes' are in http.licence_schemas."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, StringConstraints, field_validator

from mzpay.answers.collection_identity import IDP
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples

Text = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Url = Annotated[str, StringConstraints(min_length=1, max_length=2048)]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=4096)]
LongText = Annotated[str, StringConstraints(min_length=1, max_length=4096)]
AccountId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^\S+$")]


class _IdentityProviderFields(Strict):
    name: Text | None = None
    type: Literal["oidc", "saml"] | None = None
    client_id: Text | None = None
    client_secret: Secret | None = None
    encryption_key: Secret | None = None
    provider_url: Url | None = None
    issuer_url: Url | None = None
    auth_url: Url | None = None
    token_url: Url | None = None
    user_info_url: Url | None = None
    scopes: LongText | None = None
    redirect_uris: LongText | None = None
    end_session_endpoint: Url | None = None
    jwks_uri: Url | None = None
    registration_endpoint: Url | None = None
    introspection_endpoint: Url | None = None
    revocation_endpoint: Url | None = None
    well_known_url: Url | None = None
    # The business accounts its tokens may act for (set by the administrator; none: no token of it
    # is accepted). Bounded so that the provider and its issuer pointer stay small items.
    account_ids: list[AccountId] | None = Field(default=None, max_length=100)
    # Stamps: timestamps are the service's clock whatever is sent; *_by and *_ip default to the
    # token's subject and the request's address (docs/collection.md).
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None
    created_by: Text | None = None
    updated_by: Text | None = None
    created_ip: Text | None = None
    updated_ip: Text | None = None


class IdentityProviderIn(_IdentityProviderFields):
    """POST /v1/identity_providers: required per the spec's table; endpoint URLs may be left
    to OIDC discovery (checked after it ran)."""

    model_config = examples(
        {
            "name": "Escola Maputo SSO",
            "type": "oidc",
            "client_id": "mzpay-collection",
            "client_secret": "Zk3v9Qw7Lr2Tx8Pn5Hc1Yb6Md4Sg0Ja",
            "encryption_key": "b7F2kQ9xW4mR1tZ8pL6vN3cH5yD0sJ2g",
            "provider_url": "https://id.escola-maputo.co.mz/realms/escola",
            "scopes": "openid profile email",
            "redirect_uris": "https://portal.escola-maputo.co.mz/callback",
            "well_known_url": "https://id.escola-maputo.co.mz/realms/escola/.well-known/openid-configuration",
            "account_ids": ["acct_loja_ana"],
        }
    )

    name: Text
    type: Literal["oidc", "saml"]
    client_id: Text
    client_secret: Secret
    encryption_key: Secret
    provider_url: Url
    scopes: LongText
    redirect_uris: LongText
    well_known_url: Url


class IdentityProviderUpdate(_IdentityProviderFields):
    """PUT /v1/identity_providers: `id` and any fields to change."""

    model_config = examples({"id": IDP, "scopes": "openid profile email phone", "account_ids": ["acct_loja_ana"]})

    id: Text


class DeviceIn(Strict):
    """POST /v1/devices/trust: the spec's Device."""

    model_config = examples(
        {
            "device_id": "5f0c7e9a3b1d4c6e8f2a0b9d7c5e3f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e",
            "user_id": "usr_01JD9K1M2N3P4Q5R6S7T8V9W0X",
            "device_name": "Telemóvel da Ana",
            "ip_address": "196.28.230.17",
            "created_at": "2026-11-28T09:15:00Z",
            "manufacturer": "Samsung",
            "model": "Galaxy A14",
            "os": "Android 14",
        }
    )

    device_id: str = Field(min_length=1, max_length=128)
    user_id: Text
    device_name: Text
    ip_address: str = Field(min_length=1, max_length=45)
    created_at: AwareDatetime
    manufacturer: Text | None = None
    model: Text | None = None
    os: Text | None = None

    @field_validator("ip_address")
    @classmethod
    def _ip(cls, value: str) -> str:
        try:
            return str(ipaddress.ip_address(value))
        except ValueError as exc:
            raise ValueError("ip_address must be an IPv4 or IPv6 address") from exc
