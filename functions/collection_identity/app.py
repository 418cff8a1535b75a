"""Collection API: identity providers and trusted devices."""

from typing import Annotated

from mzpay.answers.collection_identity import (
    DeviceCheck,
    DeviceTrusted,
    IdentityProviderDeleted,
    IdentityProviderList,
    IdentityProviderResult,
)
from mzpay.domain.collection.access import (
    DEVICE_READ,
    DEVICE_WRITE,
    IDENTITY_PROVIDER_READ,
    IDENTITY_PROVIDER_WRITE,
    guarded,
)
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http.audit import audited
from mzpay.http.collection_auth import caller
from mzpay.http.collection_schemas import DeviceIn, IdentityProviderIn, IdentityProviderUpdate
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import devices, identity_providers

app, routes = reviewers_audited(collection_app())


@routes.post("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
@audited
@errors("already_exists")
def create_identity_provider(body: Annotated[IdentityProviderIn, Body()]) -> IdentityProviderResult:
    """Create an identity provider

    The installation's administrator registers an OIDC or SAML provider whose access tokens may
    act for the business accounts bound to it (`account_ids`), never for others nor as the
    administrator. An OIDC provider's endpoint URLs left out are filled from its `well_known_url`
    discovery document; secrets are stored encrypted and answered only as hints. Every change is
    audited."""
    who = caller()
    return identity_providers.create(body.model_dump(exclude_unset=True), who.signed_in(), who.source_ip)


@routes.get("/v1/identity_providers/<idp_id>", guarded(IDENTITY_PROVIDER_READ))
def get_identity_provider(idp_id: str) -> IdentityProviderResult:
    """Read an identity provider

    Its secrets (`client_secret`, `encryption_key`) are answered as hints, never in full."""
    return identity_providers.get(idp_id)


@routes.get("/v1/identity_providers", guarded(IDENTITY_PROVIDER_READ))
def list_identity_providers(
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> IdentityProviderList:
    """List identity providers

    In creation order, `page_size` at a time; send `next_page_token` as `page_token` for the next page."""
    return identity_providers.page(page_size, page_token)


@routes.put("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
@audited
@errors("not_found", "already_exists", "conflict")
def update_identity_provider(body: Annotated[IdentityProviderUpdate, Body()]) -> IdentityProviderResult:
    """Update an identity provider

    The administrator changes only the fields the body sets on the provider named by `id` (a new
    `well_known_url` runs discovery again; `account_ids` replaces the bound accounts). Concurrent
    updates each land on the fresh copy, and each is audited."""
    who = caller()
    return identity_providers.update(body.model_dump(exclude_unset=True), who.signed_in(), who.source_ip)


@routes.delete("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
@audited
@errors("not_found")
def delete_identity_provider(id: Annotated[str, Query(min_length=1, max_length=200)]) -> IdentityProviderDeleted:
    """Delete an identity provider

    Removes the provider named by the `id` query parameter; the deletion is audited."""
    who = caller()
    return identity_providers.delete(id, who.signed_in(), who.source_ip)


@routes.post("/v1/devices/trust", guarded(DEVICE_WRITE))
@errors("already_exists")
def trust_device(body: Annotated[DeviceIn, Body()]) -> DeviceTrusted:
    """Trust a device

    Trusts a device, named by the SHA-256 hex digest of its IMEI, for a user of the caller's
    account. Trusting it again for the same user answers the same; for another user it is refused."""
    return devices.trust(caller().account_id(), body.model_dump(mode="json"))


@routes.get("/v1/devices/<device_id>", guarded(DEVICE_READ))
def get_device(device_id: str) -> DeviceCheck:
    """Check whether a device is trusted

    Answers `device_exists` for the caller's account (an unknown device is not an error)."""
    return devices.exists(caller().account_id(), device_id)


lambda_handler = handler_for(app, routes.admit)
