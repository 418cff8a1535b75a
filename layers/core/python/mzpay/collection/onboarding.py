"""Business onboarding and reviewer decisions (docs/onboarding.md).

A business (the account its access token names) initializes its onboarding, gives its details,
and finishes: pending -> pending_review. Reviewers (permission account:review) approve, reject,
suspend and reactivate; each decision is audited in its own transaction. Of two racing changes
of one account exactly one lands; the other is answered as if it came after it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mzpay import deps
from mzpay.answers import collection_accounts as answers
from mzpay.answers.reviews import BusinessAccountReviews
from mzpay.domain.collection.access import Identity
from mzpay.domain.collection.business import (
    EDITABLE,
    INVALID_FORMAT,
    NOT_FOUND,
    VERIFICATION_FAILED,
    AccountStatus,
    BusinessAccount,
    check_details,
    missing_for_finish,
    next_status,
)
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.files import IMAGE_TYPES
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.domain.messages.notices import BUSINESS_DECISIONS
from mzpay.domain.webhooks.events import Event, new_event
from mzpay.steps import audit
from mzpay.steps.collecting_accounts import open_collecting_account
from mzpay.store.business_accounts import AccountChanged
from mzpay.store.transitions import rejudged

MAX_REASON = 500
MAX_ACCOUNT_ID = 128
MAX_FILE_ID = 64
MAX_REVIEW_ERRORS = 50
REVIEW_ERROR_CODES = (INVALID_FORMAT, NOT_FOUND, VERIFICATION_FAILED)


def _not_initialized() -> ServiceError:
    return ServiceError(
        404, "not_found", "This account has not started onboarding: POST /v1/account/onboarding/initialize first."
    )


def _account(account_id: str) -> BusinessAccount:
    if len(account_id) > MAX_ACCOUNT_ID:  # no such id was ever stored
        raise _not_initialized()
    account = deps.business_accounts().get(account_id)
    if account is None:
        raise _not_initialized()
    return account


def _changed(account_id: str, change: Callable[[BusinessAccount], BusinessAccount]) -> BusinessAccount:
    """`change` applied to the account as read, judged again if another change lands first."""
    return rejudged(lambda: _account(account_id), change, AccountChanged, "account")


# ---------------------------------------------------------------- the business
def _business(account: BusinessAccount) -> answers.BusinessAccount:
    return answers.BusinessAccount.of(account.view())


def _details(account: BusinessAccount) -> answers.OnboardingDetails:
    return answers.OnboardingDetails.of(account.onboarding())


def read_account(account_id: str) -> answers.BusinessAccount:
    return _business(_account(account_id))


def _settings(account: BusinessAccount) -> answers.AccountSettings:
    language = account.notification_language or "pt"
    return answers.AccountSettings.of({"object": "account_settings", "notification_language": language})


def read_settings(account_id: str) -> answers.AccountSettings:
    return _settings(_account(account_id))


def change_settings(account_id: str, body: dict[str, Any]) -> answers.AccountSettings:
    """PATCH /v1/account/settings: the business's settings (notification_language), in any status;
    a field left out keeps its value."""
    changes = {name: value for name, value in body.items() if name == "notification_language" and value is not None}
    if not changes:
        return read_settings(account_id)

    def change(account: BusinessAccount) -> BusinessAccount:
        changed = deps.business_accounts().transition(account, {**changes, "updated_at": now_iso()})
        before = {"notification_language": account.notification_language}
        audit.observe("business_account", account_id, account_id=account_id, before=before, after=changes)
        return changed

    return _settings(_changed(account_id, change))


def initialize(account_id: str) -> None:
    """Start onboarding (pending); a second call changes nothing."""
    if len(account_id) > MAX_ACCOUNT_ID:
        raise ServiceError(
            403, "forbidden", f"The access token's account_id is longer than {MAX_ACCOUNT_ID} characters."
        )
    now = now_iso()
    account = BusinessAccount(
        account_id=account_id, status=AccountStatus.PENDING, version=1, created_at=now, updated_at=now
    )
    deps.business_accounts().create(account)


def onboarding_status(account_id: str) -> answers.OnboardingStatus:
    account = _account(account_id)
    return answers.OnboardingStatus.of({"status": account.status, "reason": account.reason})


def read_details(account_id: str) -> answers.OnboardingDetails:
    return _details(_account(account_id))


def put_details(account_id: str, body: dict[str, Any]) -> answers.OnboardingDetails:
    """Replace the details: `object: account` and the three sections in full (tax_details
    optional); only while pending or rejected. Nothing is stored unless all of it passes."""
    kind = body.get("object")
    if kind is None:
        error = FieldError("object", "REQUIRED", "required: account")
        raise ServiceError(400, "missing_field", "The request has missing fields: object.", errors=[error])
    if kind != "account":
        error = FieldError("object", INVALID_FORMAT, "the constant account")
        raise ServiceError(400, "validation_error", "The request has invalid fields: object.", errors=[error])
    details = check_details(
        {k: v for k, v in body.items() if k not in ("object", "logo")},
        ("bank_details", "person_of_contact", "business_details"),
    )
    changes: dict[str, Any] = {"details": details}
    if body.get("logo") is not None:
        changes["logo"] = _logo(account_id, body["logo"])

    def change(account: BusinessAccount) -> BusinessAccount:
        if account.status not in EDITABLE:
            raise ServiceError(
                400,
                "invalid_request",
                f"The details of an account that is {account.status} cannot change.",
                account_status=account.status,
            )
        return deps.business_accounts().transition(account, {**changes, "updated_at": now_iso()})

    return _details(_changed(account_id, change))


def _logo(account_id: str, logo: Any) -> dict[str, str]:
    """The account's logo `{file_id, bucket}` from `{file_id}`: an image the account uploaded
    (POST /v1/files); 400 validation_error (NOT_FOUND) for any other file, another account's too."""
    file_id = logo.get("file_id") if isinstance(logo, dict) else None
    if not isinstance(file_id, str) or not file_id or len(file_id) > MAX_FILE_ID:
        error = FieldError("logo.file_id", INVALID_FORMAT, "the id of a file this account uploaded")
        raise ServiceError(400, "validation_error", "The request has invalid fields: logo.file_id.", errors=[error])
    record = deps.files().get(account_id, file_id)
    if record is None or record["file_type"] not in IMAGE_TYPES:
        error = FieldError("logo.file_id", NOT_FOUND, "no image (png, jpg) of this account has this id")
        raise ServiceError(400, "validation_error", "The request has invalid fields: logo.file_id.", errors=[error])
    return {"file_id": file_id, "bucket": str(record["bucket"])}


def finish(account_id: str) -> answers.BusinessAccount:
    """Submit for review: pending (or rejected) -> pending_review, once every required detail is there."""

    def change(account: BusinessAccount) -> BusinessAccount:
        target = next_status(account.status, "finish")
        missing = missing_for_finish(account.details)
        if missing:
            names = ", ".join(m.field for m in missing)
            raise ServiceError(400, "missing_field", f"Onboarding still needs: {names}.", errors=missing)
        now = now_iso()
        changes = {"status": target, "reason": "", "errors": [], "submitted_at": now, "updated_at": now}
        return deps.business_accounts().transition(account, changes)

    return _business(_changed(account_id, change))


# ---------------------------------------------------------------- reviewers
def _review_errors(errors: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    """The field problems a rejection lists, as ValidationError items."""
    problems: list[FieldError] = []
    kept: list[dict[str, str]] = []
    for index, item in enumerate(errors or []):
        code = item.get("code")
        if code not in REVIEW_ERROR_CODES:
            problems.append(
                FieldError(f"errors.{index}.code", INVALID_FORMAT, f"one of {', '.join(REVIEW_ERROR_CODES)}")
            )
            continue
        kept.append({"field": str(item.get("field") or ""), "message": str(item.get("message") or ""), "code": code})
    if problems:
        raise ServiceError(400, "validation_error", "The rejection's errors have problems.", errors=problems)
    return kept


def decide(
    reviewer: Identity,
    source_ip: str,
    account_id: str,
    action: str,
    reason: str | None = None,
    errors: list[dict[str, Any]] | None = None,
) -> answers.BusinessAccount:
    """A reviewer's decision: approve, reject (reason required), suspend, reactivate. A reviewer
    never decides on the account its own token acts for (403 forbidden). Approving opens the
    gateway account the business collects through (steps.collecting_accounts)."""
    if reviewer.account_id == account_id:
        raise ServiceError(403, "forbidden", "A reviewer cannot decide on its own account.")
    if action == "reject" and not (reason and reason.strip()):
        error = FieldError("reason", "REQUIRED", "a rejection says why")
        raise ServiceError(400, "missing_field", "The request has missing fields: reason.", errors=[error])
    listed = _review_errors(errors) if action == "reject" else []
    text = (reason or "").strip()
    if action == "suspend" and not text:
        text = "Suspended by a reviewer."

    def change(account: BusinessAccount) -> BusinessAccount:
        target = next_status(account.status, action)
        now = now_iso()
        changes: dict[str, Any] = {"status": target, "updated_at": now, "decided_at": now}
        if action == "approve" and account.gateway_account_id is None:  # none linked: its own
            changes["gateway_account_id"] = _opened(account)
        changes |= (
            {"reason": text, "errors": listed} if action in ("reject", "suspend") else {"reason": "", "errors": []}
        )
        audit = {
            "id": new_prefixed_id("rev"),
            "account_id": account.account_id,
            "action": action,
            "from_status": account.status,
            "to_status": target,
            "reason": changes["reason"],
            "errors": changes["errors"],
            "reviewer": reviewer.actor(),
            "source_ip": source_ip,
            "at": now,
        }
        events = _decision_events(account, audit, (reason or "").strip())
        return deps.business_accounts().transition(account, changes, audit, (deps.event_writes(), events))

    return _business(_changed(account_id, change))


def _decision_events(account: BusinessAccount, audit: dict[str, Any], given_reason: str) -> list[Event]:
    """The event of a decision the business hears of (approved, rejected, suspended: its person of
    contact's message, docs/notifications.md, with the reviewer's reason when one was given); none
    for a reactivation."""
    notice = BUSINESS_DECISIONS.get(audit["action"])
    if notice is None:
        return []
    data = {
        "account_id": account.account_id,
        "review_id": audit["id"],
        "business_name": account.view()["name"],
        "reason": given_reason if audit["action"] != "approve" else "",
        "contact": account.details.get("person_of_contact") or {},
    }
    return [
        new_event(
            notice, account.account_id, "live", "business_account", account.account_id, {"object": data}, audit["at"]
        )
    ]


def _opened(account: BusinessAccount) -> str:
    """The gateway account of the business's own id, opened (before the business turns active,
    so that a retry after a fault opens it); 409 invalid_state when another business collects
    through the account of that id (an operator linked it)."""
    owner = deps.business_accounts().linked_business(account.account_id)
    if owner not in (None, account.account_id):
        raise ServiceError(
            409,
            "invalid_state",
            "The gateway account with this business's id collects for another business; link another one to it.",
        )
    open_collecting_account(account.account_id, account.view()["name"] or account.account_id)
    return account.account_id


MAX_REVIEWS = 100


def reviews(account_id: str) -> BusinessAccountReviews:
    """Operators: an account's last MAX_REVIEWS reviewer decisions, newest first (who, when, from
    which address, the status before and after, the reason and field problems); 404 for an
    account that never started onboarding."""
    if len(account_id) > MAX_ACCOUNT_ID or deps.business_accounts().get(account_id) is None:
        raise ServiceError(404, "not_found", "No such business account.")
    items, _ = deps.business_accounts().reviews(account_id, MAX_REVIEWS, None)
    return BusinessAccountReviews.model_validate({"object": "list", "data": items})
