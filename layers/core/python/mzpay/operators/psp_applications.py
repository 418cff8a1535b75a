"""PSP onboarding applications (docs/psp-onboarding.md): operators draft one, attach its KYB
documents and logo, review the logo, submit it, and approve or reject it once certified. An
approved application makes its PSP routable: available, and in pilot with the application's
settings (mzpay.domain.psp.pilot)."""

from __future__ import annotations

import hashlib
from typing import Any

from mzpay import deps
from mzpay.answers import psp_onboarding as answers
from mzpay.domain.common import page_tokens
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import new_id
from mzpay.domain.psp.logos import checked_logo, refusal
from mzpay.domain.psp.onboarding import (
    TARGET,
    PspApplication,
    Status,
    approval_refusal,
    document_of,
    incomplete,
    missing,
    next_status,
    tampered,
    view,
)
from mzpay.steps.audit import observe
from mzpay.steps.psp_onboarding import application, move
from mzpay.steps.uploads import admit_upload
from mzpay.store.psp_applications import LIST


def create(fields: dict[str, Any]) -> answers.PspApplication:
    """POST /v1/admin/psps: a draft with the fields given (none is required yet)."""
    now = now_iso()
    draft = PspApplication(
        application_id=new_id(), status=Status.DRAFT, version=1, created_at=now, updated_at=now, **fields
    )
    deps.psp_applications().create(draft)
    observe(TARGET, draft.application_id, after=view(draft))
    return _shown(draft)


def _shown(current: PspApplication) -> answers.PspApplication:
    return answers.PspApplication.of(view(current))


def listing(limit: str | None, page_token: str | None) -> answers.PspApplicationList:
    """GET /v1/admin/psps: the region's applications, newest first."""
    size, start = page_tokens.page_request(limit, page_token, LIST)
    found, last = deps.psp_applications().page(size, start)
    return answers.PspApplicationList.of(page_tokens.page([view(a) for a in found], last))


def read(application_id: str) -> answers.PspApplication:
    return _shown(application(application_id))


def edit(application_id: str, fields: dict[str, Any]) -> answers.PspApplication:
    """PATCH: the fields given change on a draft (else 409 already_submitted)."""

    def write(current: PspApplication) -> PspApplication:
        next_status(current.status, "edit")
        return deps.psp_applications().change(current, {**fields, "updated_at": now_iso()})

    return _shown(move(_draft(application_id), write))


def submit(application_id: str) -> answers.PspApplication:
    """POST /{id}/submit: a complete draft is submitted (422 application_incomplete naming what is
    missing; 409 already_submitted when it was)."""

    def write(current: PspApplication) -> PspApplication:
        next_status(current.status, "submit")
        absent = missing(current)
        if absent:
            raise incomplete(absent)
        now = now_iso()
        return deps.psp_applications().change(
            current, {"status": Status.SUBMITTED, "submitted_at": now, "updated_at": now}
        )

    return _shown(move(application(application_id), write))


def _draft(application_id: str) -> PspApplication:
    current = application(application_id)
    next_status(current.status, "edit")  # refused before any file is written
    return current


# ---------------------------------------------------------------- KYB documents
def put_document(application_id: str, kind: str, media_type: str, content: bytes) -> answers.PspApplication:
    """PUT /{id}/documents/{kind}: kept in the uploads bucket with its SHA-256, replacing the
    kind's earlier file, on a draft. After submission only the recorded file itself may be put
    again (it restores a tampered object); anything else is 409 already_submitted."""
    document = document_of(kind, media_type, content)
    current = application(application_id)
    admit_upload(current.application_id, len(content))  # 429 rate_limited over the upload limits
    recorded = current.documents.get(kind)
    restoring = recorded is not None and recorded["sha256"] == document.sha256
    if not restoring:
        next_status(current.status, "edit")
    store = deps.psp_applications()
    key = store.keep_file(current.application_id, f"documents/{kind}", content, media_type, document.sha256)
    if restoring:
        return _shown(current)

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "edit")
        now = now_iso()
        kept = {
            "media_type": media_type,
            "size": len(content),
            "sha256": document.sha256,
            "key": key,
            "uploaded_at": now,
        }
        return store.change(fresh, {"documents": {**fresh.documents, kind: kept}, "updated_at": now})

    return _shown(move(current, write))


def read_document(application_id: str, kind: str) -> tuple[str, bytes]:
    """GET /{id}/documents/{kind}: (media type, bytes) of the stored file, checked against its
    recorded SHA-256 (409 document_tampered when it no longer matches)."""
    current = application(application_id)
    recorded = current.documents.get(kind)
    if recorded is None:
        raise ServiceError(404, "not_found", f"The application has no {kind} document.")
    return recorded["media_type"], _intact(kind, recorded)


def _intact(kind: str, recorded: dict[str, Any]) -> bytes:
    content = deps.psp_applications().read_file(recorded["key"])
    if content is None or hashlib.sha256(content).hexdigest() != recorded["sha256"]:
        raise tampered(kind)
    return content


# ---------------------------------------------------------------- logo
def put_logo(application_id: str, media_type: str, content: bytes) -> answers.PspApplication:
    """PUT /{id}/logo: a checked logo (400 invalid_logo) kept on a draft, waiting for review."""
    logo = checked_logo(media_type, content)
    current = _draft(application_id)
    admit_upload(current.application_id, len(content))  # 429 rate_limited over the upload limits
    store = deps.psp_applications()
    key = store.keep_file(current.application_id, "logo", content, logo.media_type, logo.sha256)

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "edit")
        now = now_iso()
        kept = {
            "media_type": logo.media_type,
            "size": len(content),
            "sha256": logo.sha256,
            "key": key,
            "width": logo.width,
            "height": logo.height,
            "status": "pending_review",
            "review": None,
            "uploaded_at": now,
        }
        return store.change(fresh, {"logo": kept, "updated_at": now})

    return _shown(move(current, write))


def review_logo(application_id: str, decision: str, reason: str) -> answers.PspApplication:
    """POST /{id}/logo/review: approve (after checking the stored logo again: 400 invalid_logo
    when it no longer matches or decodes) or reject the logo of a draft."""
    current = _draft(application_id)
    if current.logo is None:
        raise refusal([_no_logo()])
    if decision == "approve":
        stored = deps.psp_applications().read_file(current.logo["key"])
        if stored is None or hashlib.sha256(stored).hexdigest() != current.logo["sha256"]:
            raise refusal([_tampered_logo()])
        checked_logo(current.logo["media_type"], stored)
    sha256 = current.logo["sha256"]

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "edit")
        if fresh.logo is None or fresh.logo["sha256"] != sha256:
            raise ServiceError(409, "invalid_state", "Another logo was uploaded meanwhile; review that one.")
        now = now_iso()
        status = "approved" if decision == "approve" else "rejected"
        logo = {**fresh.logo, "status": status, "review": {"decision": decision, "reason": reason, "at": now}}
        return deps.psp_applications().change(fresh, {"logo": logo, "updated_at": now})

    return _shown(move(current, write))


def _no_logo() -> FieldError:
    return FieldError("logo", "missing", "upload a logo first (PUT /v1/admin/psps/{id}/logo)")


def _tampered_logo() -> FieldError:
    return FieldError("logo", "tampered", "the stored logo no longer matches its recorded SHA-256; upload it again")


# ---------------------------------------------------------------- the decision
def approve(application_id: str, reason: str) -> answers.PspApplication:
    """POST /{id}/approve: a submitted application with a passed certification and every KYB
    document still matching its checksum (409 document_tampered) is approved, and its PSP made
    routable in the same transaction: available, in pilot with the application's settings."""
    current = application(application_id)
    next_status(current.status, "approve")
    for kind, recorded in sorted(current.documents.items()):
        _intact(kind, recorded)
    store = deps.psp_applications()

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "approve")
        refused = approval_refusal(fresh)
        if refused is not None:
            raise refused
        now = now_iso()
        changes = {"status": Status.APPROVED, "decision": _decision("approve", reason, now), "updated_at": now}
        return store.change(fresh, changes, *store.routing_items(fresh, now))

    return _shown(move(current, write))


def reject(application_id: str, reason: str) -> answers.PspApplication:
    """POST /{id}/reject: a submitted application is rejected for good (its PSP is untouched)."""

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "reject")
        now = now_iso()
        changes = {"status": Status.REJECTED, "decision": _decision("reject", reason, now), "updated_at": now}
        return deps.psp_applications().change(fresh, changes)

    return _shown(move(application(application_id), write))


def _decision(decision: str, reason: str, now: str) -> dict[str, Any]:
    return {"decision": decision, "reason": reason, "at": now}
