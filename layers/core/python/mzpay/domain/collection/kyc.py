"""KYC verifications of a business's customers (docs/kyc.md): a customer (usr_...) has a
verification (kyc_...) whose log (klg_...) records every step as a versioned message.

Statuses: initiated (registered, nothing reviewed yet), pending (the reviewer asked for more:
additional_request names checklist items), verified, rejected (rejection_reason). A review moves
an initiated or pending verification; verified and rejected are final.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mzpay.domain.collection.reference import CHECKLIST, SUPPORTED_DOCUMENTS
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError


class KycStatus:
    INITIATED = "initiated"
    PENDING = "pending"
    VERIFIED = "verified"
    REJECTED = "rejected"


REVIEWABLE = frozenset({KycStatus.INITIATED, KycStatus.PENDING})
REVIEW_OUTCOMES = (KycStatus.VERIFIED, KycStatus.PENDING, KycStatus.REJECTED)
DOCUMENT_TYPES = tuple(document["type"] for document in SUPPORTED_DOCUMENTS)
CHECKLIST_ITEMS = frozenset(item["item_id"] for item in CHECKLIST)
MAX_TEXT = 500  # comments, reasons, references


def invalid(field: str, code: str, message: str) -> ServiceError:
    kind = "missing_field" if code == "REQUIRED" else "validation_error"
    return ServiceError(400, kind, f"The request has problems: {field}.", errors=[FieldError(field, code, message)])


NOTHING_MORE: dict[str, Any] = {"comment": "", "checklist_items": []}  # a review that asks for nothing


def check_review(
    status: str, reviewer_id: str | None, rejection_reason: str | None, additional: dict[str, Any] | None
) -> dict[str, Any] | None:
    """What the review asks the customer to add (cleaned; None when it asks for nothing) if the
    review is complete: reviewer_id always; rejection_reason when rejected; additional_request
    {comment, checklist_items[]} on every review, as the spec marks it required, its items empty
    unless pending (a pending review needs its comment and at least one item), every item one of
    the account-opening checklist's. 400 naming the field otherwise."""
    if status not in REVIEW_OUTCOMES:
        raise invalid("status", "INVALID_FORMAT", "one of verified, pending, rejected")
    if not reviewer_id:
        raise invalid("reviewer_id", "REQUIRED", "the reviewer who decides")
    if status == KycStatus.REJECTED and not (rejection_reason and rejection_reason.strip()):
        raise invalid("rejection_reason", "REQUIRED", "a rejection says why")
    if additional is None:
        why = "what the customer must add: comment, checklist_items (empty unless pending)"
        raise invalid("additional_request", "REQUIRED", why)
    pending = status == KycStatus.PENDING
    comment = additional.get("comment") or ""
    items = additional.get("checklist_items") or []
    if pending and not comment.strip():
        raise invalid("additional_request.comment", "REQUIRED", "what the customer must do")
    if pending and not items:
        raise invalid("additional_request.checklist_items", "REQUIRED", "the checklist items the customer must add")
    for index, item in enumerate(items):
        if item not in CHECKLIST_ITEMS:
            raise invalid(f"additional_request.checklist_items.{index}", "NOT_FOUND", "not an item of the checklist")
    if not comment.strip() and not items:
        return None
    return {"comment": comment.strip(), "checklist_items": list(dict.fromkeys(items))}


def ensure_open(current: str, refusal: str) -> None:
    """Nothing changes a verification once verified or rejected: 400 invalid_request, saying
    "A verification that is <status> <refusal>."."""
    if current not in REVIEWABLE:
        raise ServiceError(400, "invalid_request", f"A verification that is {current} {refusal}.", kyc_status=current)


def next_status(current: str, outcome: str) -> str:
    ensure_open(current, "cannot be reviewed again")
    return outcome


def review_message(status: str, rejection_reason: str | None, additional: dict[str, Any] | None) -> str:
    if status == KycStatus.VERIFIED:
        return "Verified."
    if status == KycStatus.REJECTED:
        return f"Rejected: {(rejection_reason or '').strip()}"
    assert additional is not None
    return f"More needed: {additional['comment']} ({', '.join(additional['checklist_items'])})"


class Customer(Entity):
    """A business's customer, whose identity a KYC verification establishes."""

    customer_id: str
    account_id: str
    name: str
    kyc_id: str  # the customer's verification
    # where its messages go (docs/notifications.md): an e-mail, else a phone; its language if known
    email: str | None = None
    phone_number: str | None = None
    language: str | None = None
    nuit: str | None = None  # its tax number (the directory's search key; a payer's vat_number)
    address: dict[str, Any] | None = None  # country, state_province, city, street, line1
    created_at: str
    updated_at: str

    def contact(self) -> dict[str, Any]:
        return {"email": self.email, "phone_number": self.phone_number}


class KycVerification(Entity):
    """A verification and its log: `messages` holds every step, versions 1, 2, ..."""

    kyc_id: str
    log_id: str
    customer_id: str
    account_id: str
    document_type: str
    rejection_reason: str | None = None
    additional_request: dict[str, Any] | None = None
    submitted: bool = False  # the customer said its uploads are complete (reviews/ready)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    additional_documents: list[dict[str, Any]] = Field(default_factory=list)
    created_at: str
    updated_at: str

    def message(self, text: str, reviewer_id: str | None, status: str, at: str) -> list[dict[str, Any]]:
        """The messages with one more, versioned after the last."""
        entry = {"date": at, "message": text, "reviewer_id": reviewer_id, "kyc_status": status}
        return [*self.messages, {**entry, "version": len(self.messages) + 1}]

    def view(self) -> dict[str, Any]:
        return {
            "kyc_id": self.kyc_id,
            "customer_id": self.customer_id,
            "document_type": self.document_type,
            "status": self.status,
            "rejection_reason": self.rejection_reason,
            "additional_request": self.additional_request,
            "submitted": self.submitted,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def log(self) -> dict[str, Any]:
        """KYC log (spec): id, kyc_id, customer_id, messages[], additional_documents[]."""
        return {
            "id": self.log_id,
            "kyc_id": self.kyc_id,
            "customer_id": self.customer_id,
            "messages": self.messages,
            "additional_documents": self.additional_documents,
        }
