"""The collection API's answers about a business's customers and their KYC verifications and logs
(mzpay.domain.collection.kyc: KycVerification.view, log), as mzpay.collection.kyc returns them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import AlwaysTrue, Answer, BoolAnswer, ItsName, Timestamp, UpdatedAt, When, examples
from mzpay.answers.collection_accounts import FileRef

DocumentType = Literal["passport", "dire", "bi"]
KycStatus = Literal["initiated", "pending", "verified", "rejected"]
CUSTOMER, KYC = "usr_01JD9K1M2N3P4Q5R6S7T8V9W0X", "kyc_01JD9K1M3A4B5C6D7E8F9G0H1J"


# Keys that answers of this module share, described once.
DocumentReference = Annotated[str, Field(description="The document's reference.")]


class KycMoreNeeded(Answer):
    """What a reviewer asks the customer to add."""

    comment: str = Field(description="What the customer must do.")
    checklist_items: list[str] = Field(description="The checklist items to add (item ids, each once).")


_VERIFICATION = {
    "kyc_id": KYC,
    "customer_id": CUSTOMER,
    "document_type": "bi",
    "status": "initiated",
    "rejection_reason": None,
    "additional_request": None,
    "submitted": False,
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
}


class KycVerification(Answer):
    """A customer's KYC verification."""

    kyc_id: str = Field(description="The verification's id (kyc_...).")
    customer_id: str = Field(description="The customer (usr_...).")
    document_type: DocumentType = Field(description="The identity document it rests on.")
    status: KycStatus = Field(description="initiated, pending (more asked for), verified or rejected (final).")
    rejection_reason: str | None = Field(description="Why it was rejected; null otherwise.")
    additional_request: KycMoreNeeded | None = Field(description="What the last review asked for; null: nothing.")
    submitted: bool = Field(description="true: the customer said its uploads are complete.")
    created_at: Timestamp = Field(description="When it was started.")
    updated_at: UpdatedAt


class Customer(Answer):
    """A new customer of the business, with its first KYC verification."""

    model_config = examples(
        {
            "object": "customer",
            "id": CUSTOMER,
            "name": "Ana Machava",
            "kyc": _VERIFICATION,
            "created_at": "2026-11-02T10:00:00Z",
        }
    )

    object: Literal["customer"] = Field(description="Always customer.")
    id: str = Field(description="The customer's id (usr_...).")
    name: str = Field(description="The customer's name.")
    kyc: KycVerification = Field(description="Its verification (initiated).")
    created_at: Timestamp = Field(description="When it was registered.")


class KycRead(Answer):
    """A customer's KYC verification (read, or as a review left it)."""

    model_config = examples(
        {"object": "kyc", "kyc": _VERIFICATION},
        {
            "object": "kyc",
            "kyc": {
                **_VERIFICATION,
                "status": "pending",
                "additional_request": {"comment": "Add the NUIT", "checklist_items": ["item_nuit_certificate"]},
            },
        },
    )

    object: Literal["kyc"] = Field(description="Always kyc.")
    kyc: KycVerification = Field(description="The verification.")


class KycMessage(Answer):
    """One step of a verification, in its log."""

    date: When
    message: str = Field(description="What happened, or the comment.")
    reviewer_id: str | None = Field(description="The reviewer who wrote it; null: the system.")
    kyc_status: KycStatus = Field(description="The verification's status after it.")
    version: int = Field(description="1, 2, ...: the message's place in the log.")


class KycDocument(Answer):
    """A document uploaded to the verification."""

    reference: DocumentReference
    document_name: ItsName
    type: str = Field(description="A supported document (passport, dire, bi) or a checklist item id.")
    side: Literal["front", "back"] = Field(description="Which side (front unless given).")
    file: FileRef = Field(description="The stored file.")
    saved_at: Timestamp = Field(description="When it was saved.")


class KycDocumentDate(Answer):
    """The expiry date recorded for a document's reference."""

    reference: DocumentReference
    expiry_date: str = Field(description="Its expiry date, YYYY-MM-DD.")
    saved_at: Timestamp = Field(description="When it was recorded.")


class KycLogBody(Answer):
    """A verification's log: every step, and the documents saved."""

    id: str = Field(description="The log's id (klg_...).")
    kyc_id: str = Field(description="The verification.")
    customer_id: str = Field(description="The customer.")
    messages: list[KycMessage] = Field(description="Every step, oldest first.")
    additional_documents: list[KycDocument | KycDocumentDate] = Field(
        description="The documents uploaded and the expiry dates recorded, oldest first."
    )


class KycLog(Answer):
    """A KYC verification's log."""

    model_config = examples(
        {
            "object": "kyc_log",
            "kyclog": {
                "id": "klg_01JD9K1M4C5D6E7F8G9H0J1K2M",
                "kyc_id": KYC,
                "customer_id": CUSTOMER,
                "messages": [
                    {
                        "date": "2026-11-02T10:00:00Z",
                        "message": "KYC verification initiated.",
                        "reviewer_id": None,
                        "kyc_status": "initiated",
                        "version": 1,
                    }
                ],
                "additional_documents": [
                    {
                        "reference": "BI-110100123456A",
                        "document_name": "BI",
                        "type": "bi",
                        "side": "front",
                        "file": {"file_id": "file_01JD9K2A3B4C5D6E7F8G9H0J1K", "bucket": "mzpay-uploads-mz"},
                        "saved_at": "2026-11-02T10:05:00Z",
                    },
                    {"reference": "BI-110100123456A", "expiry_date": "2031-05-01", "saved_at": "2026-11-02T10:06:00Z"},
                ],
            },
        }
    )

    object: Literal["kyc_log"] = Field(description="Always kyc_log.")
    kyclog: KycLogBody = Field(description="The log.")


class LoggedOk(BoolAnswer):
    """Done: a comment, or a document, was added to the verification and its log."""

    model_config = examples({"object": "bool", "status": True})

    status: AlwaysTrue


class DocumentDateSaved(BoolAnswer):
    """The document's expiry date is recorded (replacing one recorded before)."""

    model_config = examples({"object": "bool", "saved_date": True})

    saved_date: AlwaysTrue


class KycReady(Answer):
    """The customer's uploads are complete: the verification waits for its review."""

    model_config = examples({"object": "ready", "submit": True})

    object: Literal["ready"] = Field(description="Always ready.")
    submit: AlwaysTrue
