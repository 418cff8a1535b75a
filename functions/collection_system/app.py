"""Collection API: health, version, licence and system reference data."""

from typing import Annotated

from mzpay.answers.collection_licence import ActivatedLicense, CurrentLicense, LicenseDeactivated, LicenseValidation
from mzpay.answers.collection_system import Checklist, Health, SupportedDocuments, Version
from mzpay.domain.collection import reference as collection_reference
from mzpay.domain.collection.access import (
    LICENCE_READ,
    LICENCE_WRITE,
    OPEN,
    SIGNED_IN,
    licence_admin,
)
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http import api_docs
from mzpay.http.audit import audited
from mzpay.http.collection_auth import caller
from mzpay.http.licence_schemas import Empty, LicenseKey
from mzpay.http.marks import errors
from mzpay.http.params import Body
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.version import health_report, version_info

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import licence

app, routes = reviewers_audited(collection_app())
api_docs.add_routes(app, "collection", lambda _method, path: routes.get(path, OPEN))


@routes.get("/health", OPEN)
def health() -> Health:
    """Check the API's health

    The API, its service region and the version it runs."""
    return Health.of(health_report("collection"))


@routes.get("/v1/version", OPEN)
def version() -> Version:
    """Read the service's version

    The version, git commit, build date and runtime version."""
    return Version.of({"object": "version", **version_info()})


@routes.post("/v1/license/activate", licence_admin(LICENCE_WRITE))
@audited
@errors("already_exists")
def activate_license(body: Annotated[LicenseKey, Body()]) -> ActivatedLicense:
    """Activate the system licence

    Verifies the licence key against the configured issuer and activates it. Refused while another
    licence is active; an expired or no longer verifiable one is replaced."""
    who = caller()
    return licence.activate(body.license_key, who.signed_in().subject, who.source_ip)


@routes.get("/v1/license", licence_admin(LICENCE_READ))
@errors("not_found", "license_invalid")
def get_license() -> CurrentLicense:
    """Read the active licence

    The activated licence with its status now (verified again on every read); 404 when none is."""
    return licence.current()


@routes.post("/v1/license/deactivate", licence_admin(LICENCE_WRITE))
@audited
@errors("not_found")
def deactivate_license(body: Annotated[Empty | None, Body()] = None) -> LicenseDeactivated:
    """Deactivate the licence

    Removes the active licence: the licensed routes are refused until another is activated."""
    return licence.deactivate()


@routes.post("/v1/license/validate", licence_admin(LICENCE_READ))
def validate_license(body: Annotated[LicenseKey, Body()]) -> LicenseValidation:
    """Validate a licence key

    Checks a key without activating it: always answered 200, `valid` and `message` give the verdict."""
    return licence.validate(body.license_key)


@routes.get("/v1/system/config/supported-docs", SIGNED_IN)
def supported_docs() -> SupportedDocuments:
    """List the supported identity documents

    The identity documents that may be uploaded (passport, DIRE, BI), and whether each has a back."""
    return SupportedDocuments.of(collection_reference.supported_documents())


@routes.get("/v1/system/accountopening/checklist", SIGNED_IN)
def account_opening_checklist() -> Checklist:
    """Read the account-opening checklist

    The items a KYC review may ask a customer to add."""
    return Checklist.of(collection_reference.checklist())


lambda_handler = handler_for(app, routes.admit)
