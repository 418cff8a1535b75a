"""PSP onboarding (docs/psp-onboarding.md): an operator enters a PSP's application as a draft,
attaches its KYB documents and logo, submits it, runs its certification and approves or rejects it.

| status | action | next |
|---|---|---|
| draft | edit, documents, logo, logo review | draft |
| draft | submit (every required field, document and an approved logo) | submitted |
| submitted | certification runs | submitted |
| submitted | approve (a passed run, every document matching its checksum) | approved |
| submitted | reject | rejected |

Editing or submitting anything but a draft is 409 already_submitted; approve and reject of
anything but a submitted application are 409 invalid_state. approved and rejected are terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.files import MAX_FILE_BYTES, SIGNATURES, Checked

TARGET = "psp_application"  # the audit trail's name of what these use cases act on


class Status:
    DRAFT = "draft"
    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"


# (status, action) -> the status it leads to.
TRANSITIONS: dict[tuple[str, str], str] = {
    (Status.DRAFT, "edit"): Status.DRAFT,
    (Status.DRAFT, "submit"): Status.SUBMITTED,
    (Status.SUBMITTED, "certify"): Status.SUBMITTED,
    (Status.SUBMITTED, "approve"): Status.APPROVED,
    (Status.SUBMITTED, "reject"): Status.REJECTED,
}
_DRAFT_ACTIONS = frozenset({"edit", "submit"})


def next_status(current: str, action: str) -> str:
    """The status `action` leads to from `current`: else 409 already_submitted for an edit or a
    submission of an application past its draft, 409 invalid_state for the rest."""
    after = TRANSITIONS.get((current, action))
    if after is not None:
        return after
    if action in _DRAFT_ACTIONS:
        verb = "submitted again" if action == "submit" else "edited"
        raise ServiceError(409, "already_submitted", f"The application is {current}: it cannot be {verb}.")
    if action == "certify":
        message = "Only a submitted application is certified."
    else:
        message = f"Only a submitted application can be {action}d; this one is {current}."
    raise ServiceError(409, "invalid_state", message)


# ---------------------------------------------------------------- KYB documents
# kind -> required for submission
DOCUMENT_KINDS: dict[str, bool] = {
    "commercial_registration": True,  # certidão de registo comercial
    "central_bank_licence": True,  # Banco de Moçambique's licence
    "tax_certificate": True,  # NUIT certificate
    "aml_policy": False,  # anti-money-laundering policy
}
DOCUMENT_MEDIA_TYPES = {media: file_type for file_type, (_magic, media) in SIGNATURES.items() if file_type != "jpg"}
MAX_DOCUMENT_BYTES = MAX_FILE_BYTES  # 4 MiB: what always fits in a Lambda event once base64


@dataclass(frozen=True)
class Document(Checked):
    """A checked KYB document: its kind, bytes, media type and SHA-256."""

    kind: str
    media_type: str
    content: bytes

    @property
    def extension(self) -> str:
        return DOCUMENT_MEDIA_TYPES[self.media_type]


def document_of(kind: str, media_type: str, content: bytes) -> Document:
    """A PDF, PNG or JPEG (by Content-Type and first bytes) of at most 4 MiB; else 400."""
    if kind not in DOCUMENT_KINDS:
        raise ServiceError(404, "not_found", f"No such document kind; one of {', '.join(DOCUMENT_KINDS)}.")
    file_type = DOCUMENT_MEDIA_TYPES.get(media_type)
    if file_type is None:
        raise _bad_document("unsupported_type", "a PDF, PNG or JPEG sent as application/pdf, image/png or image/jpeg")
    if not content:
        raise _bad_document("empty", "the document's bytes as the body")
    if len(content) > MAX_DOCUMENT_BYTES:
        raise _bad_document("too_large", f"at most {MAX_DOCUMENT_BYTES} bytes")
    if not content.startswith(SIGNATURES[file_type][0]):
        raise _bad_document("invalid_value", f"the content is not a {file_type} file")
    return Document(kind, media_type, content)


def _bad_document(code: str, message: str) -> ServiceError:
    return invalid_field("body", message, field_code=code)


def tampered(kind: str) -> ServiceError:
    return ServiceError(
        409,
        "document_tampered",
        f"The stored {kind} document no longer matches its recorded SHA-256; upload the original again.",
        document=kind,
    )


# ---------------------------------------------------------------- the application
REQUIRED_FIELDS = (
    "legal_name",
    "nuit",
    "licence_number",
    "contact_email",
    "psp_id",
    "methods",
    "currencies",
    "settlement_account",
    "pilot",
)


class PspApplication(Entity):
    """An application as stored (pk PSPAPP#<application_id>)."""

    application_id: str
    legal_name: str | None = None
    nuit: str | None = None
    licence_number: str | None = None
    contact_email: str | None = None
    psp_id: str | None = None
    methods: list[str] | None = None
    currencies: list[str] | None = None
    settlement_account: str | None = None
    pilot: dict[str, Any] | None = None  # PilotSettings.public()
    documents: dict[str, dict[str, Any]] = {}  # kind -> {media_type, size, sha256, key, uploaded_at}
    logo: dict[str, Any] | None = None  # {media_type, size, sha256, key, width, height, status, review}
    active_run: str | None = None  # the certification run in progress
    certification: dict[str, Any] | None = None  # the last finished run: {run_id, status, finished_at}
    decision: dict[str, Any] | None = None  # {decision, reason, at}
    submitted_at: str | None = None
    created_at: str
    updated_at: str


def missing(application: PspApplication) -> list[str]:
    """What a submission still lacks: fields, required documents (documents.<kind>) and an
    approved logo (logo), in that order."""
    absent = [name for name in REQUIRED_FIELDS if getattr(application, name) in (None, [], {})]
    absent += [
        f"documents.{k}" for k, required in DOCUMENT_KINDS.items() if required and k not in application.documents
    ]
    if application.logo is None or application.logo.get("status") != "approved":
        absent.append("logo")
    return absent


def incomplete(absent: list[str]) -> ServiceError:
    return ServiceError(422, "application_incomplete", f"The application lacks: {', '.join(absent)}.", missing=absent)


def approval_refusal(application: PspApplication) -> ServiceError | None:
    """Why a submitted application cannot be approved yet (409: a run in progress, or no passed run), or None."""
    if application.active_run:
        return ServiceError(409, "certification_running", "A certification run is in progress; wait for its outcome.")
    certification = application.certification or {}
    if certification.get("status") != "passed":
        return ServiceError(409, "invalid_state", "The application needs a passed certification run first.")
    return None


def _file_view(stored: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stored.items() if k != "key"}


def view(application: PspApplication) -> dict[str, Any]:
    """The application as operators read it (files by type, size and checksum, never their keys)."""
    return {
        "object": "psp_application",
        "application_id": application.application_id,
        "status": application.status,
        "legal_name": application.legal_name,
        "nuit": application.nuit,
        "licence_number": application.licence_number,
        "contact_email": application.contact_email,
        "psp_id": application.psp_id,
        "methods": application.methods,
        "currencies": application.currencies,
        "settlement_account": application.settlement_account,
        "pilot": application.pilot,
        "documents": {kind: _file_view(stored) for kind, stored in sorted(application.documents.items())},
        "logo": _file_view(application.logo) if application.logo else None,
        "certification": application.certification,
        "certification_running": application.active_run,
        "decision": application.decision,
        "missing": missing(application) if application.status == Status.DRAFT else [],
        "submitted_at": application.submitted_at,
        "created_at": application.created_at,
        "updated_at": application.updated_at,
    }
