"""Request bodies of the collection surface's KYC routes (the rules with the spec's codes are
in domain.collection.kyc)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from mzpay.domain.collection.kyc import NOTHING_MORE
from mzpay.domain.common.bounds import Code, Email, Name, Phone
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples
from mzpay.http.collection_request_schemas import AddressIn

REVIEWER = "reviewer.cossa@mzpay.co.mz"


class CustomerIn(Strict):
    model_config = examples({"name": "Ana Machava", "document_type": "bi"})

    name: str = Field(min_length=1, max_length=200)
    document_type: str = Field(max_length=32)  # passport, dire or bi
    email: str | None = Field(
        default=None,
        max_length=254,
        description="The customer's e-mail: its messages go there (docs/notifications.md).",
    )
    phone_number: str | None = Field(
        default=None,
        max_length=20,
        description="The customer's phone (E.164, e.g. +258841234567): its messages by SMS when it has no e-mail.",
    )
    language: Literal["pt", "en"] | None = Field(
        default=None, description="The customer's language for its messages; absent: the business's."
    )
    nuit: Code | None = Field(default=None, description="The customer's NUIT (9 digits): the directory finds it by it.")
    address: AddressIn | None = Field(default=None, description="The customer's address.")


class CustomerChange(Strict):
    """PUT /v1/customers/{id}: the fields given change; a field sent as null is removed (the name
    cannot be)."""

    model_config = examples({"email": "ana.machava@example.co.mz", "phone_number": "+258841234567", "language": "pt"})

    name: Name | None = Field(default=None, description="The customer's name.")
    email: Email | None = Field(default=None, description="Its e-mail: its messages go there.")
    phone_number: Phone | None = Field(default=None, description="Its phone (E.164): SMS when it has no e-mail.")
    language: Literal["pt", "en"] | None = Field(default=None, description="Its language for messages.")
    nuit: Code | None = Field(default=None, description="Its NUIT (9 digits).")
    address: AddressIn | None = Field(default=None, description="Its address (replaces the one kept).")

    def changes(self) -> dict[str, Any]:
        """The fields sent (null: removed), as plain data."""
        return {name: getattr(self, name) for name in self.model_fields_set} | (
            {"address": self.address.model_dump(exclude_none=True)} if self.address is not None else {}
        )


class KycComment(Strict):
    model_config = examples(
        {"comment": "The BI photo is blurred; ask for a new scan of the front.", "reviewer_id": REVIEWER}
    )

    comment: str = Field(max_length=500)  # required; blank: missing_field
    reviewer_id: str | None = Field(default=None, max_length=128)  # omitted: a system message


class KycSaveDate(Strict):
    model_config = examples({"expiry_date": "2031-06-30", "reference": "BI 110100123456A"})

    expiry_date: str = Field(max_length=32)
    reference: str = Field(max_length=500)


class AdditionalRequest(Strict):
    comment: str | None = Field(default=None, max_length=500, description="Required (not blank) when pending.")
    checklist_items: list[Code] | None = Field(
        default=None, max_length=20, description="Checklist item ids: at least one when pending, else may be empty."
    )


class KycReview(Strict):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"status": "verified", "reviewer_id": REVIEWER, "additional_request": NOTHING_MORE},
                {
                    "status": "pending",
                    "reviewer_id": REVIEWER,
                    "additional_request": {
                        "comment": "Send a utility bill of the Maputo address, at most 3 months old.",
                        "checklist_items": ["item_proof_of_address"],
                    },
                },
                {
                    "status": "rejected",
                    "reviewer_id": REVIEWER,
                    "rejection_reason": "The BI expired in 2024.",
                    "additional_request": NOTHING_MORE,
                },
            ],
            # the spec's: every review names its reviewer and its additional_request (400
            # missing_field naming the one left out, after the status and rejection_reason)
            "required": ["status", "reviewer_id", "additional_request"],
        }
    )

    status: str = Field(max_length=32)
    reviewer_id: str | None = Field(default=None, max_length=128)
    rejection_reason: str | None = Field(default=None, max_length=500)
    additional_request: AdditionalRequest | None = None

    def additional(self) -> dict[str, Any] | None:
        return None if self.additional_request is None else self.additional_request.model_dump()
