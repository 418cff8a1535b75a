"""Collection API: business accounts, their onboarding, and reviewers' decisions."""

from typing import Annotated

from mzpay.answers.collection_accounts import (
    AccountSettings,
    BusinessAccount,
    OnboardingDetails,
    OnboardingStatus,
    UploadedFile,
)
from mzpay.domain.collection.access import ACCOUNT_REVIEW, SIGNED_IN, RouteAccess
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http.audit import audited
from mzpay.http.body import content_type, raw_body
from mzpay.http.collection_auth import caller
from mzpay.http.marks import errors
from mzpay.http.onboarding_schemas import AccountSettingsIn, OnboardingDetailsIn, RejectAccount, SuspendAccount
from mzpay.http.params import Body, Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import files, onboarding

app, routes = reviewers_audited(collection_app())
REVIEWER = RouteAccess(permission=ACCOUNT_REVIEW)


@routes.get("/v1/account", SIGNED_IN)
@errors("forbidden", "not_found")
def get_account() -> BusinessAccount:
    """Read the business account

    The account the access token acts for: its status, the reason of a rejection or suspension,
    its details and logo. 404 until onboarding has started."""
    return onboarding.read_account(caller().account_id())


@routes.get("/v1/account/settings", SIGNED_IN)
@errors("forbidden", "not_found")
def get_account_settings() -> AccountSettings:
    """Read the business account's settings

    Its `notification_language` (`pt` until changed). 404 until onboarding has started."""
    return onboarding.read_settings(caller().account_id())


@routes.patch("/v1/account/settings", SIGNED_IN)
@audited
@errors("forbidden", "not_found")
def change_account_settings(body: Annotated[AccountSettingsIn, Body()]) -> AccountSettings:
    """Change the business account's settings

    `notification_language` (`pt` or `en`): the language of the messages mzpay sends for the
    business (to its payers and customers, and to its person of contact) when the recipient's own
    language is unknown; Portuguese until set. Any other value is 400 naming the field. A field
    left out keeps its value; allowed in every status of the account (before approval too)."""
    return onboarding.change_settings(caller().account_id(), body.model_dump(exclude_unset=True))


@routes.post(
    "/v1/account/onboarding/initialize",
    SIGNED_IN,
    responses={200: {"description": "Onboarding started (or already started): an empty body.", "content": {}}},
)
@errors("forbidden")
def initialize_onboarding() -> Response[None]:
    """Start onboarding

    Creates the caller's business account as `pending`; calling it again changes nothing."""
    onboarding.initialize(caller().account_id())
    return Response(200, None, "")


@routes.get("/v1/account/onboarding", SIGNED_IN)
@errors("forbidden", "not_found")
def get_onboarding() -> OnboardingStatus:
    """Read the onboarding status

    The account's status and the reason of its last rejection or suspension."""
    return onboarding.onboarding_status(caller().account_id())


@routes.get("/v1/account/onboarding/details", SIGNED_IN)
@errors("forbidden", "not_found")
def get_onboarding_details() -> OnboardingDetails:
    """Read the onboarding details

    The bank details, person of contact, business details and tax details given so far."""
    return onboarding.read_details(caller().account_id())


@routes.put("/v1/account/onboarding/details", SIGNED_IN)
@errors("forbidden", "not_found", "missing_field", "invalid_request")
def put_onboarding_details(body: Annotated[OnboardingDetailsIn, Body()]) -> OnboardingDetails:
    """Replace the onboarding details

    `object: account` with the bank details, person of contact and business details in full (tax
    details and a logo uploaded with POST /v1/files optional), each field checked; nothing is
    stored unless all of it passes. Only while the account is pending or rejected."""
    return onboarding.put_details(caller().account_id(), body.model_dump(exclude_unset=True))


@routes.post("/v1/account/onboarding/finish", SIGNED_IN)
@errors("forbidden", "not_found", "missing_field", "invalid_request")
def finish_onboarding() -> BusinessAccount:
    """Submit onboarding for review

    Moves a pending (or rejected) account to `pending_review` once every required detail is given;
    otherwise `missing_field` names what is still needed."""
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
@errors("forbidden", "invalid_request", "validation_error", "missing_field", "rate_limited")
def upload_file() -> UploadedFile:
    """Upload a file

    A multipart/form-data body with the `file` part and its `file_type` (png, jpg, jpeg or pdf, at
    most 4 MiB), whose first bytes must match the type. The file is kept under the caller's account
    (a logo, for instance)."""
    event = app.current_event.raw_event
    return files.upload(caller().account_id(), raw_body(event), content_type(event))


@routes.post("/v1/accounts/<account_id>/approve", REVIEWER)
@audited
@errors("invalid_request", "invalid_state", "wrong_region")
def approve_account(account_id: str) -> BusinessAccount:
    """Approve a business account

    The installation's administrator (permission account:review; a business token never holds
    it) approves an account pending review: it becomes `active`, with the gateway account it
    collects through: the one an operator linked, else its own id's, opened in this region with
    a first webhook signing secret per mode (one whose id lives in another region is 421
    wrong_region; one linked to another business 409 invalid_state). Every decision is audited."""
    who = caller()
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "approve")


@routes.post("/v1/accounts/<account_id>/reject", REVIEWER)
@audited
@errors("missing_field", "invalid_request")
def reject_account(account_id: str, body: Annotated[RejectAccount, Body()]) -> BusinessAccount:
    """Reject a business account

    A reviewer rejects an account pending review, with a `reason` and optional field problems
    (`errors`); the business may correct its details and submit them again."""
    who = caller()
    errors = [item.model_dump() for item in body.errors]
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "reject", body.reason, errors)


@routes.post("/v1/accounts/<account_id>/suspend", REVIEWER)
@audited
@errors("invalid_request")
def suspend_account(account_id: str, body: Annotated[SuspendAccount | None, Body()] = None) -> BusinessAccount:
    """Suspend a business account

    A reviewer suspends an active account, with an optional `reason`."""
    who = caller()
    reason = body.reason if body else None
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "suspend", reason)


@routes.post("/v1/accounts/<account_id>/reactivate", REVIEWER)
@audited
@errors("invalid_request")
def reactivate_account(account_id: str) -> BusinessAccount:
    """Reactivate a business account

    A reviewer makes a suspended account active again."""
    who = caller()
    return onboarding.decide(who.signed_in(), who.source_ip, account_id, "reactivate")


lambda_handler = handler_for(app, routes.admit)
