"""The collection API's answers about the system: health, version, the reference data
(mzpay.domain.collection.reference: supported documents, the account-opening checklist) and the
OpenAPI document, as the collection_system function's routes answer them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.about import BUILD, ApiDocument, BuildInfo, HealthOf, document_example, health_example
from mzpay.answers.base import Answer, examples


class Health(HealthOf[Literal["collection"]]):
    """The API is up: which API, region and build answered."""

    model_config = health_example("collection")


class _VersionObject(Answer):
    object: Literal["version"] = Field(description="Always version.")


class Version(BuildInfo, _VersionObject):
    """The service's version, build and runtime."""

    # pydantic lays the bases' fields out last base first: `object`, then the build's (about.BuildInfo).
    model_config = examples({"object": "version", **BUILD})

    go_version: str = Field(description="The runtime, under the spec's name: python3.x.y.")


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


class OpenApiDocument(ApiDocument):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = document_example("collection")
