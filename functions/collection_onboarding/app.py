"""Collection API: business accounts, their onboarding, and reviewers' decisions."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.collection_access import ACCOUNT_REVIEW, SIGNED_IN, RouteAccess
from mzpay.entry import collection_app
from mzpay.http.body import content_type, raw_body
from mzpay.http.collection_auth import caller
from mzpay.http.onboarding_schemas import OnboardingDetailsIn, RejectAccount, SuspendAccount
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.collection import files, onboarding
else:  # each route's use case is loaded when a request first needs it
    files = deferred("mzpay.collection.files")
    onboarding = deferred("mzpay.collection.onboarding")

app, routes = collection_app()
REVIEWER = RouteAccess(permission=ACCOUNT_REVIEW)


@routes.get("/v1/account", SIGNED_IN)
def get_account() -> dict[str, Any]:
    return onboarding.read_account(caller().account_id())


@routes.post(
    "/v1/account/onboarding/initialize",
    SIGNED_IN,
    responses={200: {"description": "Onboarding started (or already started): an empty body.", "content": {}}},
)
def initialize_onboarding() -> Response[None]:
    onboarding.initialize(caller().account_id())
    return Response(200, None, "")


@routes.get("/v1/account/onboarding", SIGNED_IN)
def get_onboarding() -> dict[str, Any]:
    return onboarding.onboarding_status(caller().account_id())


@routes.get("/v1/account/onboarding/details", SIGNED_IN)
def get_onboarding_details() -> dict[str, Any]:
    return onboarding.read_details(caller().account_id())


@routes.put("/v1/account/onboarding/details", SIGNED_IN)
def put_onboarding_details(body: Annotated[OnboardingDetailsIn, Body()]) -> dict[str, Any]:
    return onboarding.put_details(caller().account_id(), body.model_dump(exclude_unset=True))


@routes.post("/v1/account/onboarding/finish", SIGNED_IN)
def finish_onboarding() -> dict[str, Any]:
    return onboarding.finish(caller().account_id())


@routes.post(
    "/v1/files",
    SIGNED_IN,
    responses={
        200: {
            "description": "UploadedFile",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
def upload_file() -> dict[str, Any]:
    event = app.current_event.raw_event
    return files.upload(caller().account_id(), raw_body(event), content_type(event))


@routes.post("/v1/accounts/<account_id>/approve", REVIEWER)
def approve_account(account_id: str) -> dict[str, Any]:
    who = caller()
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "approve")


@routes.post("/v1/accounts/<account_id>/reject", REVIEWER)
def reject_account(account_id: str, body: Annotated[RejectAccount, Body()]) -> dict[str, Any]:
    who = caller()
    errors = [item.model_dump() for item in body.errors]
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "reject", body.reason, errors)


@routes.post("/v1/accounts/<account_id>/suspend", REVIEWER)
def suspend_account(account_id: str, body: Annotated[SuspendAccount | None, Body()] = None) -> dict[str, Any]:
    who = caller()
    reason = body.reason if body else None
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "suspend", reason)


@routes.post("/v1/accounts/<account_id>/reactivate", REVIEWER)
def reactivate_account(account_id: str) -> dict[str, Any]:
    who = caller()
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "reactivate")


lambda_handler = handler_for(app, routes.admit)
