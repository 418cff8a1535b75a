"""Reference data of the collection surface: the identity documents a payer or a business's
person of contact may upload, and the account-opening checklist a KYC reviewer may request
items of. Pure data (see docs/collection.md, "System")."""

from __future__ import annotations

from typing import Any

# The spec's Supported document: has_back says the document has two sides (a second image is
# required on upload). Passports are one page; BI and DIRE are cards.
SUPPORTED_DOCUMENTS: tuple[dict[str, Any], ...] = (
    {"type": "passport", "description": "Passport (biographical page)", "config": {"has_back": False}},
    {
        "type": "dire",
        "description": "DIRE: residence identity card of a foreign citizen (Documento de Identificação e Residência"
        " para Estrangeiros)",
        "config": {"has_back": True},
    },
    {"type": "bi", "description": "BI: Mozambican identity card (Bilhete de Identidade)", "config": {"has_back": True}},
)

# The spec's Checklist item: item ids are stable (a reviewer's request names them), so they are
# readable words rather than generated ids. has_duration: the document has an expiry date.
CHECKLIST: tuple[dict[str, Any], ...] = (
    {
        "item_id": "item_representative_id",
        "type": "identity_document",
        "description": "Identity document of the legal representative (BI, DIRE or passport)",
        "is_mandatory": True,
        "has_validity": {"has_duration": True},
    },
    {
        "item_id": "item_nuit_certificate",
        "type": "tax_document",
        "description": "NUIT registration certificate",
        "is_mandatory": True,
        "has_validity": {"has_duration": False},
    },
    {
        "item_id": "item_commercial_registration",
        "type": "company_document",
        "description": "Commercial registration certificate (Certidão de Registo Comercial)",
        "is_mandatory": True,
        "has_validity": {"has_duration": True},
    },
    {
        "item_id": "item_articles_of_association",
        "type": "company_document",
        "description": "Articles of association (Estatutos) as published in the Boletim da República",
        "is_mandatory": True,
        "has_validity": {"has_duration": False},
    },
    {
        "item_id": "item_business_licence",
        "type": "company_document",
        "description": "Business licence (Alvará) or activity registration",
        "is_mandatory": True,
        "has_validity": {"has_duration": True},
    },
    {
        "item_id": "item_proof_of_address",
        "type": "address_document",
        "description": "Proof of the business address (utility bill or lease, at most 3 months old)",
        "is_mandatory": True,
        "has_validity": {"has_duration": True},
    },
    {
        "item_id": "item_bank_account_proof",
        "type": "bank_document",
        "description": "Bank declaration confirming the account holder and NIB",
        "is_mandatory": True,
        "has_validity": {"has_duration": False},
    },
    {
        "item_id": "item_tax_clearance",
        "type": "tax_document",
        "description": "Tax clearance certificate (Certidão de Quitação)",
        "is_mandatory": False,
        "has_validity": {"has_duration": True},
    },
)


def supported_documents() -> dict[str, Any]:
    return {"object": "supported_documents", "document_types": [dict(doc) for doc in SUPPORTED_DOCUMENTS]}


def checklist() -> dict[str, Any]:
    return {"object": "checklist", "items": [dict(item) for item in CHECKLIST]}
