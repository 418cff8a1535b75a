"""Collection API (surface B): businesses, payers and collection requests.

Every route names what it needs (docs/collection.md, "Access"): checked before the route runs.
"""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.collection import devices, identity_providers, licence
from mzpay.domain import collection_reference
from mzpay.domain.collection_access import (
    DEVICE_READ,
    DEVICE_WRITE,
    IDENTITY_PROVIDER_READ,
    IDENTITY_PROVIDER_WRITE,
    LICENSE_READ,
    LICENSE_WRITE,
    OPEN,
    SIGNED_IN,
    guarded,
    licence_admin,
)
from mzpay.http.collection_auth import CollectionRoutes, caller
from mzpay.http.collection_schemas import DeviceIn, Empty, IdentityProviderIn, IdentityProviderUpdate, LicenseKey
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.version import health_report, version_info

app = create_resolver(Surface.COLLECTION)
routes = CollectionRoutes(app, licence.require_active)


@routes.get("/health", OPEN)
def health() -> dict[str, str]:
    return health_report("collection")


@routes.get("/v1/version", OPEN)
def version() -> dict[str, Any]:
    return {"object": "version", **version_info()}


# ---------------------------------------------------------------- licence
@routes.post("/v1/license/activate", licence_admin(LICENSE_WRITE))
def activate_license(body: Annotated[LicenseKey, Body()]) -> dict[str, Any]:
    who = caller()
    return licence.activate(body.license_key, who.signed_in().subject, who.source_ip)


@routes.get("/v1/license", licence_admin(LICENSE_READ))
def get_license() -> dict[str, Any]:
    return licence.current()


@routes.post("/v1/license/deactivate", licence_admin(LICENSE_WRITE))
def deactivate_license(body: Annotated[Empty | None, Body()] = None) -> dict[str, Any]:
    return licence.deactivate()


@routes.post("/v1/license/validate", licence_admin(LICENSE_READ))
def validate_license(body: Annotated[LicenseKey, Body()]) -> dict[str, Any]:
    return licence.validate(body.license_key)


# ---------------------------------------------------------------- system
@routes.get("/v1/system/config/supported-docs", SIGNED_IN)
def supported_docs() -> dict[str, Any]:
    return collection_reference.supported_documents()


@routes.get("/v1/system/accountopening/checklist", SIGNED_IN)
def account_opening_checklist() -> dict[str, Any]:
    return collection_reference.checklist()


# ---------------------------------------------------------------- identity providers
@routes.post("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
def create_identity_provider(body: Annotated[IdentityProviderIn, Body()]) -> dict[str, Any]:
    who = caller()
    return identity_providers.create(body.model_dump(exclude_unset=True), who.signed_in(), who.source_ip)


@routes.get("/v1/identity_providers/<idp_id>", guarded(IDENTITY_PROVIDER_READ))
def get_identity_provider(idp_id: str) -> dict[str, Any]:
    return identity_providers.get(idp_id)


@routes.get("/v1/identity_providers", guarded(IDENTITY_PROVIDER_READ))
def list_identity_providers(
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> dict[str, Any]:
    return identity_providers.page(page_size, page_token)


@routes.put("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
def update_identity_provider(body: Annotated[IdentityProviderUpdate, Body()]) -> dict[str, Any]:
    who = caller()
    return identity_providers.update(body.model_dump(exclude_unset=True), who.signed_in(), who.source_ip)


@routes.delete("/v1/identity_providers", guarded(IDENTITY_PROVIDER_WRITE))
def delete_identity_provider(id: Annotated[str, Query(min_length=1, max_length=200)]) -> dict[str, Any]:
    who = caller()
    return identity_providers.delete(id, who.signed_in(), who.source_ip)


# ---------------------------------------------------------------- devices
@routes.post("/v1/devices/trust", guarded(DEVICE_WRITE))
def trust_device(body: Annotated[DeviceIn, Body()]) -> dict[str, Any]:
    return devices.trust(caller().account_id(), body.model_dump(mode="json"))


@routes.get("/v1/devices/<device_id>", guarded(DEVICE_READ))
def get_device(device_id: str) -> dict[str, Any]:
    return devices.exists(caller().account_id(), device_id)


lambda_handler = handler_for(app, routes.admit)
