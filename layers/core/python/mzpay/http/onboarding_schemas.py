"""Request bodies of the collection surface's onboarding and reviewer routes. The details'
fields are checked by domain.collection.business (with the spec's ValidationError codes), so the sections
are declared as objects here."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.collection_accounts import DETAILS
from mzpay.domain.common.bounds import Code
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples


class OnboardingDetailsIn(Strict):
    model_config = examples(
        {"object": "account", **DETAILS, "tax_details": {"tax_id": "400339910", "vat_number": "400339910"}}
    )

    object: str | None = Field(default=None, max_length=32)  # the constant "account" (required)
    bank_details: dict[Code, Any] | None = Field(default=None, max_length=10)
    person_of_contact: dict[Code, Any] | None = Field(default=None, max_length=10)
    business_details: dict[Code, Any] | None = Field(default=None, max_length=10)
    tax_details: dict[Code, Any] | None = Field(default=None, max_length=10)
    logo: dict[Code, Any] | None = Field(default=None, max_length=1)  # {file_id}: an image POST /v1/files gave


class ReviewError(Strict):
    field: str = Field(min_length=1, max_length=200)
    message: str = Field(default="", max_length=500)
    code: str = Field(max_length=32)  # INVALID_FORMAT, NOT_FOUND or VERIFICATION_FAILED


class RejectAccount(Strict):
    model_config = examples(
        {
            "reason": "The NIB does not match the bank declaration.",
            "errors": [
                {
                    "field": "bank_details.nib",
                    "message": "The bank declaration names another account holder.",
                    "code": "VERIFICATION_FAILED",
                }
            ],
        }
    )

    reason: str | None = Field(default=None, max_length=500)  # required: answered missing_field
    errors: list[ReviewError] = Field(default_factory=list, max_length=50)


class SuspendAccount(Strict):
    model_config = examples({"reason": "Chargebacks above the agreed ratio since October; under review."})

    reason: str | None = Field(default=None, max_length=500)


class AccountSettingsIn(Strict):
    """PATCH /v1/account/settings: the business's settings (each optional: what is absent keeps its value)."""

    model_config = examples({"notification_language": "en"})

    notification_language: Literal["pt", "en"] | None = Field(
        default=None,
        description="The language of the messages mzpay sends for this business (to its payers and customers, "
        "and to its person of contact) when the recipient's own language is unknown: pt (the default) or en.",
    )
