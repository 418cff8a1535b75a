"""The collection API's answers about a business account and its onboarding
(mzpay.domain.collection.business: BusinessAccount.view, onboarding) and its uploaded files
(mzpay.collection.files.view), as mzpay.collection.onboarding and files return them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import Answer, examples, sometimes

BusinessStatus = Literal["pending", "pending_review", "active", "rejected", "suspended"]


# Keys that answers of this module share, described once.
VatNumber = Annotated[str, Field(description="Its VAT number.")]
DigitsOnly = Annotated[str, Field(description="Digits only.")]


class BankDetails(Answer):
    """The business's bank account."""

    nuib: DigitsOnly
    nib: str = Field(description="The 21-digit NIB, without spaces.")
    account_number: DigitsOnly
    bank_name: str = Field(description="The bank.")
    account_holder_name: str = Field(description="Whose the account is.")


class PersonOfContact(Answer):
    """Whom the business's customers and reviewers reach."""

    first_name: str = Field(description="Their first name.")
    last_name: str = Field(description="Their last name.")
    phone_number: str = sometimes("E.164, when given.")
    email: str = sometimes("An e-mail address, when given.")


class BusinessDetails(Answer):
    """The business's registration."""

    legal_name: str = Field(description="Its legal name.")
    short_name: str = sometimes("Its short name, when given.")
    country: str = Field(description="ISO 3166-1 alpha-2, upper-case.")
    state_province: str = Field(description="Its province.")
    city: str = sometimes("Its city, when given.")
    line: str = sometimes("Its address line, when given.")
    registration_number: str = Field(description="Its commercial registration number.")
    vat_number: VatNumber


class TaxDetails(Answer):
    """The business's tax registration."""

    tax_id: str = Field(description="Its NUIT (9 digits, check digit verified).")
    vat_number: VatNumber


class Sections(Answer):
    """The onboarding details given so far (a section not given yet is null)."""

    bank_details: BankDetails | None = Field(description="Its bank account.")
    person_of_contact: PersonOfContact | None = Field(description="Its person of contact.")
    business_details: BusinessDetails | None = Field(description="Its registration.")
    tax_details: TaxDetails | None = Field(description="Its tax registration (optional).")


class AccountFieldProblem(Answer):
    """A field problem a reviewer's rejection names."""

    field: str = Field(description="The field, e.g. bank_details.nib.")
    message: str = Field(description="What is wrong with it.")
    code: Literal["INVALID_FORMAT", "NOT_FOUND", "VERIFICATION_FAILED"] = Field(description="The kind of problem.")


class FileRef(Answer):
    """An uploaded file."""

    file_id: str = Field(description="The file's id (file_...).")
    bucket: str = Field(description="The bucket that holds it.")


DETAILS = {
    "bank_details": {
        "nuib": "123456",
        "nib": "000301080016367102371",
        "account_number": "1636710237",
        "bank_name": "Banco Exemplo",
        "account_holder_name": "Loja Machava Lda",
    },
    "person_of_contact": {"first_name": "Ana", "last_name": "Machava", "phone_number": "+258841234567"},
    "business_details": {
        "legal_name": "Loja Machava Lda",
        "country": "MZ",
        "state_province": "Maputo",
        "registration_number": "100234567",
        "vat_number": "400339910",
    },
    "tax_details": None,
}


class BusinessAccount(Answer):
    """The business account a collection token acts for."""

    model_config = examples(
        {
            "object": "account",
            "id": "acct_loja_ana",
            "name": "Loja Machava Lda",
            "status": "rejected",
            "reason": "The NIB does not match the bank declaration.",
            "details": DETAILS,
            "errors": [{"field": "bank_details.nib", "message": "Another holder", "code": "NOT_FOUND"}],
            "logo": {"file_id": "file_01JD9J1K2M3N4P5Q6R7S8T9V0W", "bucket": "mzpay-uploads-mz"},
        }
    )

    object: Literal["account"] = Field(description="Always account.")
    id: str = Field(description="The account's id (the token's account claim).")
    name: str | None = Field(description="Its name: its legal name once given; null before.")
    status: BusinessStatus = Field(description="pending until submitted; active once approved.")
    reason: str = Field(description="Why it was rejected or suspended; empty otherwise.")
    details: Sections = Field(description="Its onboarding details.")
    errors: list[AccountFieldProblem] = Field(description="The field problems of its rejection; else empty.")
    logo: FileRef | None = Field(description="Its logo; null: none.")


class AccountSettings(Answer):
    """The business account's settings."""

    model_config = examples({"object": "account_settings", "notification_language": "en"})

    object: Literal["account_settings"] = Field(description="Always account_settings.")
    notification_language: Literal["pt", "en"] = Field(
        description="The language of the messages mzpay sends for the business (to its payers and customers, and "
        "to its person of contact) when the recipient's own language is unknown: pt (the default) or en."
    )


class OnboardingStatus(Answer):
    """Where the account's onboarding is."""

    model_config = examples({"status": "pending_review", "reason": ""})

    status: BusinessStatus = Field(description="The account's status.")
    reason: str = Field(description="The reason of its last rejection or suspension; empty otherwise.")


class OnboardingDetails(Answer):
    """The onboarding details given so far."""

    model_config = examples({"object": "onboarding", **DETAILS})

    object: Literal["onboarding"] = Field(description="Always onboarding.")
    bank_details: BankDetails | None = Field(description="Its bank account; null: not given yet.")
    person_of_contact: PersonOfContact | None = Field(description="Its person of contact; null: not given yet.")
    business_details: BusinessDetails | None = Field(description="Its registration; null: not given yet.")
    tax_details: TaxDetails | None = Field(description="Its tax registration; null: not given.")


class UploadedFile(Answer):
    """A file kept under the caller's account."""

    model_config = examples(
        {
            "object": "uploaded_file",
            "id": "file_01JD9J1K2M3N4P5Q6R7S8T9V0W",
            "file_type": "png",
            "file_size": 18342,
            "file": {"file_id": "file_01JD9J1K2M3N4P5Q6R7S8T9V0W", "bucket": "mzpay-uploads-mz"},
        }
    )

    object: Literal["uploaded_file"] = Field(description="Always uploaded_file.")
    id: str = Field(description="The file's id: logo.file_id of the onboarding details.")
    file_type: Literal["png", "jpg", "jpeg", "pdf"] = Field(description="Its type, as its first bytes show.")
    file_size: int = Field(description="Its size in bytes (at most 4 MiB).")
    file: FileRef = Field(description="Where it is kept.")
