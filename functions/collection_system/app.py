"""Collection API: health, version, licence and system reference data."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain import collection_reference
from mzpay.domain.collection_access import (
    LICENSE_READ,
    LICENSE_WRITE,
    OPEN,
    SIGNED_IN,
    licence_admin,
)
from mzpay.entry import collection_app
from mzpay.http.collection_auth import caller
from mzpay.http.licence_schemas import Empty, LicenseKey
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred
from mzpay.version import health_report, version_info

if TYPE_CHECKING:
    from mzpay.collection import licence
else:  # each route's use case is loaded when a request first needs it
    licence = deferred("mzpay.collection.licence")

app, routes = collection_app()


@routes.get("/health", OPEN)
def health() -> dict[str, str]:
    return health_report("collection")


@routes.get("/v1/version", OPEN)
def version() -> dict[str, Any]:
    return {"object": "version", **version_info()}


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


@routes.get("/v1/system/config/supported-docs", SIGNED_IN)
def supported_docs() -> dict[str, Any]:
    return collection_reference.supported_documents()


@routes.get("/v1/system/accountopening/checklist", SIGNED_IN)
def account_opening_checklist() -> dict[str, Any]:
    return collection_reference.checklist()


lambda_handler = handler_for(app, routes.admit)
