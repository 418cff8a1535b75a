"""The collection API's answers about a business's customers: customers and their KYC
verifications and logs (mzpay.collection.kyc, mzpay.domain.kyc: KycVerification.view, log),
partners and card logos (mzpay.domain.partners), payment methods (PaymentMethod.view) and
transactions (mzpay.domain.customer_transactions: CustomerTransaction.result, history_item).
Money is a JSON number (`Number`), as everywhere on the collection surface."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.openapi.collection_more import FileRef
from mzpay.openapi.gateway_more import Answer, Mode, Timestamp, examples

DocumentType = Literal["passport", "dire", "bi"]
KycStatus = Literal["initiated", "pending", "verified", "rejected"]
PmType = Literal["mobile_wallet", "bank_account", "card"]
CUSTOMER, KYC = "usr_01JD9K1M2N3P4Q5R6S7T8V9W0X", "kyc_01JD9K1M3A4B5C6D7E8F9G0H1J"


# ---------------------------------------------------------------- KYC
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
    updated_at: Timestamp = Field(description="When it last changed.")


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

    date: Timestamp = Field(description="When.")
    message: str = Field(description="What happened, or the comment.")
    reviewer_id: str | None = Field(description="The reviewer who wrote it; null: the system.")
    kyc_status: KycStatus = Field(description="The verification's status after it.")
    version: int = Field(description="1, 2, ...: the message's place in the log.")


class KycDocument(Answer):
    """A document uploaded to the verification."""

    reference: str = Field(description="The document's reference.")
    document_name: str = Field(description="Its name.")
    type: str = Field(description="A supported document (passport, dire, bi) or a checklist item id.")
    side: Literal["front", "back"] = Field(description="Which side (front unless given).")
    file: FileRef = Field(description="The stored file.")
    saved_at: Timestamp = Field(description="When it was saved.")


class KycDocumentDate(Answer):
    """The expiry date recorded for a document's reference."""

    reference: str = Field(description="The document's reference.")
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


class LoggedOk(Answer):
    """Done: a comment, or a document, was added to the verification and its log."""

    model_config = examples({"object": "bool", "status": True})

    object: Literal["bool"] = Field(description="Always bool.")
    status: Literal[True] = Field(description="Always true.")


class DocumentDateSaved(Answer):
    """The document's expiry date is recorded (replacing one recorded before)."""

    model_config = examples({"object": "bool", "saved_date": True})

    object: Literal["bool"] = Field(description="Always bool.")
    saved_date: Literal[True] = Field(description="Always true.")


class KycReady(Answer):
    """The customer's uploads are complete: the verification waits for its review."""

    model_config = examples({"object": "ready", "submit": True})

    object: Literal["ready"] = Field(description="Always ready.")
    submit: Literal[True] = Field(description="Always true.")


# ---------------------------------------------------------------- partners
class PartnerAttribute(Answer):
    """A field of the form a payment method of this kind fills."""

    label: str = Field(description="The field's label, for people.")
    field_name: str = Field(description="Its key in the payment method's details.")
    required: bool = Field(description="Whether it must be given.")
    prefix: str = Field(description="What the value starts with (may be empty).")
    regex: str = Field(description="The pattern the whole value matches.")
    sufix: str = Field(description="What the value ends with (may be empty; the spec's spelling).")
    minsize: int = Field(description="Its least length.")
    maxsize: int = Field(description="Its greatest length.")


class PartnerPmType(Answer):
    """A kind of payment method a partner takes, with its form."""

    type: PmType = Field(description="The payment method's type.")
    attributes: list[PartnerAttribute] = Field(description="The form's fields.")


_PARTNER = {
    "partner_id": "ptn_mpesa",
    "name": "M-Pesa (Vodacom)",
    "pm_types": [
        {
            "type": "mobile_wallet",
            "attributes": [
                {
                    "label": "Número M-Pesa",
                    "field_name": "phone_number",
                    "required": True,
                    "prefix": "+258",
                    "regex": "^\\+258(84|85)[0-9]{7}$",
                    "sufix": "",
                    "minsize": 13,
                    "maxsize": 13,
                }
            ],
        }
    ],
}


class Partner(Answer):
    """A provider customers pay through (mobile money, a bank, card schemes)."""

    partner_id: str = Field(description="The partner's id (ptn_...).")
    name: str = Field(description="Its name.")
    pm_types: list[PartnerPmType] = Field(description="The payment-method types it takes.")


class PartnerList(Answer):
    """The partners (those taking `type`, when given)."""

    model_config = examples({"object": "list", "data": [_PARTNER], "has_more": False})

    object: Literal["list"] = Field(description="Always list.")
    data: list[Partner] = Field(description="The partners.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")


class PartnerRead(Answer):
    """A partner."""

    model_config = examples({"object": "partner", "partner": _PARTNER})

    object: Literal["partner"] = Field(description="Always partner.")
    partner: Partner = Field(description="The partner.")


class CardLogo(Answer):
    """The scheme of a BIN and its logo."""

    model_config = examples(
        {"object": "card_logo", "scheme": "visa", "logo": "PHN2ZyB4bWxucz0i...", "card_number": "424242"}
    )

    object: Literal["card_logo"] = Field(description="Always card_logo.")
    scheme: Literal["visa", "mastercard", "amex"] = Field(description="The card scheme.")
    logo: str = Field(description="The scheme's logo: an SVG, base64.")
    card_number: str = Field(description="The BIN looked up (6 to 8 digits, spaces removed).")


# ---------------------------------------------------------------- payment methods
_METHOD = {
    "object": "payment_method",
    "id": "pm_01JD9K3A4B5C6D7E8F9G0H1J2K",
    "account_id": CUSTOMER,
    "type": "card",
    "partner_id": "ptn_card_schemes",
    "details": {"card_token": "tok_****4242", "last4": "4242", "exp_month": "12", "exp_year": "2029", "brand": "visa"},
    "mode": "live",
    "status": "active",
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
}


class PaymentMethod(Answer):
    """A customer's payment method (a card's token masked)."""

    object: Literal["payment_method"] = Field(description="Always payment_method.")
    id: str = Field(description="The method's id (pm_...).")
    account_id: str = Field(description="The customer's id (usr_...), as the spec names it.")
    type: PmType = Field(description="mobile_wallet, bank_account or card.")
    partner_id: str = Field(description="The partner it is of.")
    details: dict[str, str] = Field(description="The partner's form, filled (a card token as tok_****<last 4>).")
    mode: Mode = Field(description="test: its transactions run in the gateway's test mode.")
    status: Literal["active", "inactive"] = Field(description="Only an active method transacts.")
    created_at: Timestamp = Field(description="When it was added.")
    updated_at: Timestamp = Field(description="When it last changed.")


class PaymentMethodResult(Answer):
    """A customer's payment method (added, read, or switched on or off)."""

    model_config = examples({"object": "payment_method", "payment_method": _METHOD})

    object: Literal["payment_method"] = Field(description="Always payment_method.")
    payment_method: PaymentMethod = Field(description="The method.")


class PaymentMethodList(Answer):
    """A customer's payment methods (at most 50)."""

    model_config = examples({"object": "list", "data": [_METHOD]})

    object: Literal["list"] = Field(description="Always list.")
    data: list[PaymentMethod] = Field(description="Every method of the customer (no has_more: the list is whole).")
