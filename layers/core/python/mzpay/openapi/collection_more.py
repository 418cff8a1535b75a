"""The collection API's answers about the business and the system: business accounts and their
onboarding (mzpay.domain.business: BusinessAccount.view, onboarding), uploaded files
(mzpay.collection.files.view), identity providers (mzpay.domain.collection_idp.view), trusted
devices, the licence (mzpay.domain.licence: Licence.view), health, version, the reference data
(mzpay.domain.collection_reference) and the OpenAPI document; and `Number`, the surface's JSON
number for money. Collection requests and the route table: mzpay.openapi.collection."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel, Strict

from mzpay.openapi.gateway_more import Answer, examples, sometimes

# Money on the collection surface: a JSON number written digit for digit (Decimal), never a string.
Number = Annotated[float, Strict()]
Region = Literal["mz", "regional-sa"]
BusinessStatus = Literal["pending", "pending_review", "active", "rejected", "suspended"]


# ---------------------------------------------------------------- health, version, reference data
class Health(Answer):
    """The API is up: which API, region and build answered."""

    model_config = examples({"status": "ok", "api": "collection", "service_region": "mz", "version": "0.1.0"})

    status: Literal["ok"] = Field(description="Always ok.")
    api: Literal["collection"] = Field(description="The API that answered.")
    service_region: Region = Field(description="The region that answered.")
    version: str = Field(description="The service's version.")


class Version(Answer):
    """The service's version, build and runtime."""

    model_config = examples(
        {
            "object": "version",
            "version": "0.1.0",
            "git_commit": "37a8898",
            "build_date": "2026-11-01T08:00:00Z",
            "go_version": "python3.12.7",
            "runtime_version": "python3.12.7",
            "platform": "linux/arm64",
        }
    )

    object: Literal["version"] = Field(description="Always version.")
    version: str = Field(description="The service's version.")
    git_commit: str = Field(description="The commit it was built from (unknown when not recorded).")
    build_date: str = Field(description="When it was built (unknown when not recorded).")
    go_version: str = Field(description="The runtime, under the spec's name: python3.x.y.")
    runtime_version: str = Field(description="The runtime, e.g. python3.12.7.")
    platform: str = Field(description="The operating system and architecture, e.g. linux/arm64.")


class DocumentConfig(Answer):
    """How a document is uploaded."""

    has_back: bool = Field(description="true: two sides, both uploaded.")


class SupportedDocument(Answer):
    """An identity document that may be uploaded."""

    type: Literal["passport", "dire", "bi"] = Field(description="The document_type that names it.")
    description: str = Field(description="What it is.")
    config: DocumentConfig = Field(description="How it is uploaded.")


class SupportedDocuments(Answer):
    """The identity documents that may be uploaded."""

    model_config = examples(
        {
            "object": "supported_documents",
            "document_types": [
                {"type": "passport", "description": "Passport (biographical page)", "config": {"has_back": False}}
            ],
        }
    )

    object: Literal["supported_documents"] = Field(description="Always supported_documents.")
    document_types: list[SupportedDocument] = Field(description="Every supported document.")


class Validity(Answer):
    """Whether an item's document expires."""

    has_duration: bool = Field(description="true: its expiry date is recorded (save-date).")


class ChecklistItem(Answer):
    """An item a KYC review may ask a customer to add."""

    item_id: str = Field(description="The item's stable id, e.g. item_nuit_certificate.")
    type: Literal["identity_document", "tax_document", "company_document", "address_document", "bank_document"] = Field(
        description="The kind of document."
    )
    description: str = Field(description="What it is.")
    is_mandatory: bool = Field(description="Whether account opening needs it.")
    has_validity: Validity = Field(description="Whether it expires.")


class Checklist(Answer):
    """The account-opening checklist."""

    model_config = examples(
        {
            "object": "checklist",
            "items": [
                {
                    "item_id": "item_nuit_certificate",
                    "type": "tax_document",
                    "description": "NUIT registration certificate",
                    "is_mandatory": True,
                    "has_validity": {"has_duration": False},
                }
            ],
        }
    )

    object: Literal["checklist"] = Field(description="Always checklist.")
    items: list[ChecklistItem] = Field(description="Every item.")


# ---------------------------------------------------------------- business accounts and onboarding
class BankDetails(Answer):
    """The business's bank account."""

    nuib: str = Field(description="Digits only.")
    nib: str = Field(description="The 21-digit NIB, without spaces.")
    account_number: str = Field(description="Digits only.")
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
    vat_number: str = Field(description="Its VAT number.")


class TaxDetails(Answer):
    """The business's tax registration."""

    tax_id: str = Field(description="Its NUIT (9 digits, check digit verified).")
    vat_number: str = Field(description="Its VAT number.")


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


_SECTIONS = {
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
            "details": _SECTIONS,
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


class OnboardingStatus(Answer):
    """Where the account's onboarding is."""

    model_config = examples({"status": "pending_review", "reason": ""})

    status: BusinessStatus = Field(description="The account's status.")
    reason: str = Field(description="The reason of its last rejection or suspension; empty otherwise.")


class OnboardingDetails(Answer):
    """The onboarding details given so far."""

    model_config = examples({"object": "onboarding", **_SECTIONS})

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


class OpenApiDocument(RootModel[dict[str, Any]]):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = ConfigDict(
        defer_build=True,
        json_schema_extra={
            "examples": [
                {"openapi": "3.1.0", "info": {"title": "mzpay collection API", "version": "1.0.0"}, "paths": {}}
            ]
        },
    )
