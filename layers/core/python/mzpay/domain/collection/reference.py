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
def _item(item_id: str, kind: str, description: str, mandatory: bool, has_duration: bool) -> dict[str, Any]:
    return {
        "item_id": item_id,
        "type": kind,
        "description": description,
        "is_mandatory": mandatory,
        "has_validity": {"has_duration": has_duration},
    }


CHECKLIST: tuple[dict[str, Any], ...] = (
    _item(
        "item_representative_id",
        "identity_document",
        "Identity document of the legal representative (BI, DIRE or passport)",
        True,
        True,
    ),
    _item("item_nuit_certificate", "tax_document", "NUIT registration certificate", True, False),
    _item(
        "item_commercial_registration",
        "company_document",
        "Commercial registration certificate (Certidão de Registo Comercial)",
        True,
        True,
    ),
    _item(
        "item_articles_of_association",
        "company_document",
        "Articles of association (Estatutos) as published in the Boletim da República",
        True,
        False,
    ),
    _item(
        "item_business_licence", "company_document", "Business licence (Alvará) or activity registration", True, True
    ),
    _item(
        "item_proof_of_address",
        "address_document",
        "Proof of the business address (utility bill or lease, at most 3 months old)",
        True,
        True,
    ),
    _item(
        "item_bank_account_proof",
        "bank_document",
        "Bank declaration confirming the account holder and NIB",
        True,
        False,
    ),
    _item("item_tax_clearance", "tax_document", "Tax clearance certificate (Certidão de Quitação)", False, True),
)


def supported_documents() -> dict[str, Any]:
    return {"object": "supported_documents", "document_types": [dict(doc) for doc in SUPPORTED_DOCUMENTS]}


def checklist() -> dict[str, Any]:
    return {"object": "checklist", "items": [dict(item) for item in CHECKLIST]}
