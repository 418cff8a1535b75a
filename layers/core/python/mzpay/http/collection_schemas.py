"""Request bodies of the collection surface's identity-provider and device routes (pydantic:
validation and the OpenAPI document); the licence routes' are in http.licence_schemas."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, StringConstraints, field_validator

from mzpay.domain.common.model import StrictText as Strict

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

    id: Text


class DeviceIn(Strict):
    """POST /v1/devices/trust: the spec's Device."""

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
