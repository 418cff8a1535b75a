"""The answers about disputes (mzpay.domain.payments.disputes.view), on the gateway and the management API,
and the evidence a merchant gives (disputes, manual payments); the conventions are
mzpay.answers.base's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import ULID, Amount, Answer, ByteSize, Mode, Page, Timestamp, UpdatedAt, When, examples

DISPUTE = {
    "dispute_id": "01JDB2M4N6P8R0T2V4W6X8Y0Z2",
    "provider_payment_id": ULID,
    "status": "under_review",
    "mode": "test",
    "money": {"amount": "150.00", "currency": "MZN"},
    "reason": "product_not_received",
    "provider_reference": "CB-2026-000981",
    "evidence_due_by": "2026-12-02T09:00:00Z",
    "evidence": {
        "text": "Collected in our Maputo shop on 2026-11-20; the signed delivery note is attached.",
        "files": [
            {
                "file_type": "pdf",
                "size": 48213,
                "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "key": "accounts/01JD9W7X5Y3Z1A2B3C4D5E6F7G/disputes/01JDB2M4N6P8R0T2V4W6X8Y0Z2/"
                "01JDB3A1B2C3D4E5F6G7H8J9K0/evidence-0.pdf",
            }
        ],
        "at": "2026-11-26T10:15:00Z",
    },
    "decision": None,
    "created_at": "2026-11-25T09:00:00Z",
    "updated_at": "2026-11-26T10:15:00Z",
}


class EvidenceFileKept(Answer):
    """An evidence file as kept (in the region's uploads bucket)."""

    file_type: Literal["pdf", "png", "jpg", "jpeg"] = Field(description="What the file is.")
    size: ByteSize
    sha256: str = Field(description="Its SHA-256, hex.")
    key: str = Field(description="Where it is kept in the uploads bucket.")


class Evidence(Answer):
    """The merchant's answer to a dispute, given once."""

    text: str = Field(description="What the merchant said.")
    files: list[EvidenceFileKept] = Field(description="The files given with it.")
    at: Timestamp = Field(description="When it was given.")


class ManualResolution(Answer):
    """An operator's confirmation or rejection of a manual payment."""

    outcome: Literal["succeeded", "failed"] = Field(description="succeeded: confirmed; failed: rejected.")
    note: str = Field(description="The operator's note.")
    by: Literal["operator"] = Field(description="Always operator.")
    source_ip: str = Field(description="Where the operator decided from.")
    at: When


class Decision(Answer):
    """How the dispute ended: an operator's decision, or the merchant's acceptance."""

    outcome: Literal["won", "lost"] = Field(description="won: the merchant keeps the money; lost: the payer has it.")
    by: Literal["operator", "merchant"] = Field(description="Who decided (merchant: accepted).")
    note: str | None = Field(default=None, description="The operator's note.")
    source_ip: str | None = Field(default=None, description="Where the operator decided from.")
    at: When


class Dispute(Answer):
    """A payer's dispute of a succeeded payment, and the money it holds until it is decided."""

    model_config = examples(DISPUTE)

    dispute_id: str = Field(description="The dispute's id (a ULID).")
    provider_payment_id: str = Field(description="The disputed payment.")
    status: Literal["needs_response", "under_review", "won", "lost"] = Field(
        description="needs_response: evidence or acceptance awaited; under_review: an operator decides."
    )
    mode: Mode = Field(description="The payment's mode.")
    money: Amount = Field(description="The disputed money (held while the dispute is open).")
    reason: Literal[
        "fraudulent", "product_not_received", "product_unacceptable", "duplicate", "credit_not_processed", "general"
    ] = Field(description="Why the payer disputes it.")
    provider_reference: str | None = Field(description="The provider's id of the chargeback; null when not given.")
    evidence_due_by: Timestamp = Field(description="Until when the merchant should answer.")
    evidence: Evidence | None = Field(description="The merchant's evidence; null until given.")
    decision: Decision | None = Field(description="How it ended; null while open.")
    created_at: Timestamp = Field(description="When it was opened.")
    updated_at: UpdatedAt


class DisputeList(Page[Dispute]):
    """A page of disputes, newest first."""

    model_config = examples({"data": [DISPUTE], "has_more": False, "next_page_token": None})
