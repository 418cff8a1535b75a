"""The parts of a collection request as its views show them (mzpay.domain.collection.requests:
CollectionRequest.view, public_view, public_item) and examples of them; the requests themselves are
mzpay.answers.collection_requests. Money is a JSON number with two decimals (`Number`:
`{"currency": "MZN", "value": 1500.00}`), never a string as on the gateway."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mzpay.answers.base import (
    AlwaysNull,
    Answer,
    BusinessAccountId,
    CreatedAt,
    Currency,
    ItsName,
    Number,
    Timestamp,
    sometimes,
)

MethodType = Literal["mpesa", "emola", "mkesh", "bank_transfer", "payment_reference", "card", "simo_erv", "interbank"]
RequestStatus = Literal["pending", "partially_paid", "paid", "cancelled", "overdue"]  # a deleted one leaves every read
PayerType = Literal["business", "individual"]
CR = "cr_01JD9H1J2K3M4N5P6Q7R8S9T0V"
NUMBER = "INV-2026-6Q7R8S9T0V"  # INV-<year>-<the last 10 characters of the request's ULID>


# ---------------------------------------------------------------- the parts of a request
# Keys that answers of this module share, described once.
PaidAt = Annotated[Timestamp | None, Field(description="When it was paid; null until then.")]
MatchedAt = Annotated[Timestamp | None, Field(description="When it was matched; null until then.")]
PayerNuit = Annotated[
    str | None,
    Field(
        description="The payer's NUIT (a foreign payer's VAT number, as given); null for an individual who gave none."
    ),
]


class CollectionAmount(Answer):
    """An amount of money: a JSON number with two decimals, and its currency."""

    currency: Currency = Field(description="The ISO 4217 currency code: MZN.")
    value: Number = Field(description="The amount, a JSON number with two decimals, e.g. 1500.00.")


class PayerAddress(Answer):
    """The payer's address, as the business gave it (each part only when given)."""

    country: str = sometimes("ISO 3166-1 alpha-2, e.g. MZ.")
    state_province: str = sometimes("The province.")
    city: str = sometimes("The city.")
    street: str = sometimes("The street.")
    line1: str = sometimes("The address line.")


class PayerContact(Answer):
    """How the payer is reached (each only when given)."""

    phone_number: str = sometimes("E.164, e.g. +258841234567: the payer's app lists its requests by it.")
    email: str = sometimes("An e-mail address.")


class PayerNames(Answer):
    """The payer's names, as every view of the payer with personal data starts."""

    first_name: str = Field(description="The payer's first name.")
    last_name: str = Field(description="The payer's last name.")
    legal_name: str | None = Field(description="The payer's legal name; null for an individual who gave none.")


PayerKindOf = Annotated[PayerType, Field(description="business or individual.")]
Delivery = Annotated[Literal["email", "sms", "erp"], Field(description="How the invoice reaches the payer.")]


class Payer(PayerNames):
    """Who is invoiced, as the business gave it."""

    vat_number: PayerNuit
    type: PayerKindOf
    delivery_method: Delivery
    address: PayerAddress = sometimes("The payer's address, when given.")
    contact: PayerContact = sometimes("The payer's contact, when given.")
    language: Literal["pt", "en"] = sometimes(
        "The language of the messages sent to the payer (pt or en), when given; else the business's (pt)."
    )
    removed: Literal[True] = sometimes(
        "true when the payer's customer was removed from the directory (DELETE /v1/customers/{id}): its names "
        "read (removed) and its personal data is gone; the request's amounts stay."
    )


class MethodDetail(Answer):
    """A collection method the request is payable through, as it was when named."""

    collection_method_id: str = Field(description="The method's id.")
    name: ItsName
    type: MethodType = Field(description="Its type.")
    status: Literal["active", "inactive"] = Field(description="Its status when the request named it.")
    entity_number: str = sometimes("simo_erv: the SIMO entity the payer pays (5 digits); only for simo_erv.")
    nib: str = sometimes("interbank: the NIB the payer transfers to (21 digits); only for interbank.")
    reference_number: str = sometimes(
        "simo_erv, interbank: the request's reference (11 digits) the payer keys in or writes; only for those."
    )
    transfer_description: str = sometimes(
        "interbank: what the payer writes in the transfer's description (MZP + the reference); only for interbank."
    )


class BillInfo(Answer):
    """The bill of the request."""

    bill_id: str = Field(description="The bill's id (bill_...).")
    bill_number: str = Field(description="Its number: the invoice number.")
    status: Literal["open", "paid", "cancelled"] = Field(
        description="paid once payments of its amount settled it; cancelled once the business cancelled it."
    )
    due_date: str | None = Field(description="The due date as the business gave it; null: none.")


class InvoiceMetadata(Answer):
    """The invoice's number, dates, kind and payment link."""

    invoice_number: str = Field(description="INV-<year>-<10 characters>: unique, not guessable.")
    issue_date: str = Field(description="The issue date as given (YYYY-MM-DD), else the creation day.")
    due_date: str | None = Field(description="The due date as given; null: none.")
    invoice_type: Literal["standard", "proforma", "credit_note"] = Field(description="standard unless given.")
    source_channel: Literal["api", "portal", "erp"] = Field(description="api unless given.")
    reference_number: str | None = Field(description="The business's reference (else its third_party_reference).")
    payment_link: str = Field(description="The link the payer opens to pay (GET /pay/{request_id}).")


class ProductsInfo(Answer):
    """Quantities and prices, as given (each only when given)."""

    quantity: Number = sometimes("The quantity.")
    unit_price: Number = sometimes("The unit price.")
    subtotals: Number = sometimes("The subtotal.")


class TaxInfo(Answer):
    """The tax, as given."""

    iva: Number = sometimes("The IVA rate, in percent.")


class FinancialDetails(Answer):
    """The invoice's lines, tax, discount and total."""

    line_items: str | None = Field(description="The lines, as text; null: none given.")
    products_info: ProductsInfo | None = Field(description="Quantities and prices; null: none given.")
    tax_info: TaxInfo | None = Field(description="The tax; null: none given.")
    discount: Number = Field(description="The discount (0 unless given).")
    total_amount: CollectionAmount = Field(description="The amount to pay: the request's amount.")
    fx_rate: Number = Field(description="Always 1.0: every currency taken is local.")


class PaymentReconciliation(Answer):
    """Where the payment of the request is, and whether it matched."""

    payment_status: Literal["pending", "in_process", "paid", "failed"] = Field(
        description="in_process: the payer opened a checkout; failed: its payment ended unpaid (payable again)."
    )
    payment_type: str | None = Field(description="How it was paid, e.g. mobile_wallet:mpesa; null until paid.")
    gateway_transaction_id: str | None = Field(description="The gateway payment of the last attempt that ended.")
    reconciliation_status: Literal["matched", "unmatched"] = Field(
        description="matched: a payment of the request's amount and currency settled it."
    )
    date_payment: PaidAt
    date_reconciliation: MatchedAt


class IntegrationRouting(Answer):
    """Where the request came from and where its events go."""

    source_system: str = Field(description="The system that issued it (api unless given).")
    callback_url: str | None = Field(description="Where its collection_request.* events are posted; null: nowhere.")


class ComplianceAudit(Answer):
    """Who issued, changed and removed the request, and when it was issued, seen, paid and matched."""

    payer_nuit: PayerNuit
    issuer_nuit: str | None = Field(description="The business's NUIT (tax id, else VAT number); null: not given.")
    invoice_validity: str | None = Field(description="The due date; null: none.")
    attached_contract: None = Field(description="Always null: no contract is attached yet.")
    user_issuer: str = Field(description="The subject of the token that created it.")
    user_modifier: str | None = Field(description="The subject that last changed it; null: never changed.")
    user_remover: str | None = Field(description="The subject that deleted it; null (deleted requests are not read).")
    issued_at: CreatedAt
    viewed_at: Timestamp | None = Field(description="When the payer first opened its link; null: not yet.")
    paid_at: PaidAt
    reconciled_at: MatchedAt


class BillerLogo(Answer):
    """The business's logo."""

    file_id: str | None = Field(description="The uploaded file.")
    file_bucket: str | None = Field(description="The bucket that holds it.")
    file_link: None = Field(description="Always null: no public link is made.")


class BillerContact(Answer):
    """The business's person of contact."""

    phone_number: str | None = Field(description="Their phone; null: not given.")
    email: str | None = Field(description="Their e-mail; null: not given.")


class BillingAddress(Answer):
    """The business's address, from its onboarding details."""

    country: str | None = Field(description="ISO 3166-1 alpha-2.")
    state_province: str | None = Field(description="The province.")
    city: str | None = Field(description="The city; null: not given.")
    street: AlwaysNull
    line1: str | None = Field(description="The address line; null: not given.")


class Biller(Answer):
    """The business that issues the request, from its onboarding details when it was created."""

    account_id: BusinessAccountId
    business_name: str | None = Field(description="Its name (else its legal name).")
    logo: BillerLogo | None = Field(description="Its logo; null: none uploaded.")
    contact: BillerContact = Field(description="Its person of contact.")
    issuer_nuit: str | None = Field(description="Its NUIT.")
    billing_address: BillingAddress = Field(description="Its address.")


# ---------------------------------------------------------------- examples
AMOUNT = {"currency": "MZN", "value": 1500.0}
PAYER = {
    "first_name": "Ana",
    "last_name": "Machava",
    "legal_name": "Ana Machava",
    "vat_number": "400339910",
    "type": "individual",
    "delivery_method": "sms",
    "contact": {"phone_number": "+258841234567"},
}
DETAIL = {
    "collection_method_id": "cm_01JD9H0A1B2C3D4E5F6G7H8J9K",
    "name": "M-Pesa",
    "type": "mpesa",
    "status": "active",
}
BILL = {
    "bill_id": "bill_01JD9H1J2K3M4N5P6Q7R8S9T0V",
    "bill_number": NUMBER,
    "status": "open",
    "due_date": "2026-12-31",
}
INVOICE = {
    "invoice_number": NUMBER,
    "issue_date": "2026-11-02",
    "due_date": "2026-12-31",
    "invoice_type": "standard",
    "source_channel": "api",
    "reference_number": "ERP-7781",
    "payment_link": f"https://collect.mzpay.example/pay/{CR}",
}
BILLER = {
    "account_id": "acct_loja_ana",
    "business_name": "Loja Machava Lda",
    "logo": None,
    "contact": {"phone_number": "+258841234567", "email": None},
    "issuer_nuit": "400339910",
    "billing_address": {"country": "MZ", "state_province": "Maputo", "city": None, "street": None, "line1": None},
}
REQUEST: dict[str, Any] = {
    "id": CR,
    "account_id": "acct_loja_ana",
    "mode": "live",
    "description": "November invoice",
    "collection_method_ids": ["cm_01JD9H0A1B2C3D4E5F6G7H8J9K"],
    "amount": AMOUNT,
    "payer": PAYER,
    "third_party_reference": "ERP-7781",
    "metadata": {"order": "7781"},
    "bill_info": BILL,
    "collection_method_details": [DETAIL],
    "invoice_metadata": INVOICE,
    "financial_details": {
        "line_items": None,
        "products_info": None,
        "tax_info": None,
        "discount": 0,
        "total_amount": AMOUNT,
        "fx_rate": 1.0,
    },
    "payment_reconciliation": {
        "payment_status": "pending",
        "payment_type": None,
        "gateway_transaction_id": None,
        "reconciliation_status": "unmatched",
        "date_payment": None,
        "date_reconciliation": None,
    },
    "integration_routing": {"source_system": "api", "callback_url": "https://erp.example/mzpay"},
    "compliance_audit": {
        "payer_nuit": "400339910",
        "issuer_nuit": "400339910",
        "invoice_validity": "2026-12-31",
        "attached_contract": None,
        "user_issuer": "user-42",
        "user_modifier": None,
        "user_remover": None,
        "issued_at": "2026-11-02T10:00:00Z",
        "viewed_at": None,
        "paid_at": None,
        "reconciled_at": None,
    },
    "biller": BILLER,
    "status": "pending",
    "listed": True,
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
}
