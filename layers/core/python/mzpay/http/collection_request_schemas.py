"""Request bodies of the collection requests and collection methods routes: shapes and sizes
(every string bounded). The rules with the spec's codes are in domain.collection.requests."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StringConstraints, field_validator

from mzpay.answers.collection_request_parts import AMOUNT, PAYER
from mzpay.domain.collection.life import MAX_CANCEL_REASON
from mzpay.domain.collection.recorded import CHANNELS, MAX_DESCRIPTION, MAX_REFERENCE
from mzpay.domain.common.bounds import Code, Email, Id, Name, Phone, Text, Url
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples

MAX_METADATA_KEYS = 20
MetadataKey = Annotated[str, StringConstraints(min_length=1, max_length=40)]
Metadata = Annotated[dict[MetadataKey, Text], Field(max_length=MAX_METADATA_KEYS)]
Day = Annotated[str, StringConstraints(max_length=32)]


class AmountIn(Strict):
    currency: Code
    value: Decimal = Field(allow_inf_nan=False, max_digits=20)

    @field_validator("value", mode="before")
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
            raise ValueError("a number, e.g. 1500.00")
        return value


class AddressIn(Strict):
    country: Code | None = None
    state_province: Name | None = None
    city: Name | None = None
    street: Name | None = None
    line1: Name | None = None


class ContactIn(Strict):
    phone_number: Phone | None = None
    email: Email | None = None


class PayerIn(Strict):
    first_name: Name
    last_name: Name
    legal_name: Name | None = None  # a business's: required for type business (domain.collection.requests)
    vat_number: Code | None = Field(  # required for a business, optional for an individual
        default=None,
        description="The payer's NUIT (checked) when Mozambican (no address.country, or MZ); a foreign payer's "
        "VAT number as given.",
    )
    type: Code
    delivery_method: Code
    address: AddressIn | None = None
    contact: ContactIn | None = None
    language: Literal["pt", "en"] | None = None  # what the request's messages are written in (docs/notifications.md)


class InvoiceIn(Strict):
    issue_date: Day | None = None
    due_date: Day | None = None
    invoice_type: Code | None = None
    source_channel: Code | None = None
    reference_number: Id | None = None


class ProductsIn(Strict):
    quantity: Decimal | None = Field(default=None, ge=0, max_digits=20)
    unit_price: Decimal | None = Field(default=None, ge=0, max_digits=20)
    subtotals: Decimal | None = Field(default=None, ge=0, max_digits=20)


class TaxIn(Strict):
    iva: Decimal | None = Field(default=None, ge=0, le=100, max_digits=6)


class FinancialIn(Strict):
    line_items: Text | None = None
    products_info: ProductsIn | None = None
    tax_info: TaxIn | None = None
    discount: Decimal | None = Field(default=None, ge=0, max_digits=20)


class RoutingIn(Strict):
    source_system: Code | None = None
    callback_url: Url | None = None


MethodIds = Annotated[list[Id], Field(max_length=10)]
MPESA_METHOD = "cm_01JD9H0A1B2C3D4E5F6G7H8J9K"


class CollectionRequestIn(Strict):
    model_config = examples(
        {
            "description": "Propina de Dezembro, turma 7B",
            "collection_method_ids": [MPESA_METHOD],
            "amount": AMOUNT,
            "payer": {**PAYER, "address": {"country": "MZ", "state_province": "Maputo", "city": "Maputo"}},
            "third_party_reference": "ESC-2026-12-0417",
            "metadata": {"student_number": "2026-0417"},
            "invoice_metadata": {
                "issue_date": "2026-12-01",
                "due_date": "2026-12-10",
                "invoice_type": "standard",
                "source_channel": "api",
                "reference_number": "ERP-7781",
            },
            "financial_details": {
                "line_items": "Propina mensal",
                "products_info": {"quantity": 1, "unit_price": 1500.0, "subtotals": 1500.0},
                "tax_info": {"iva": 0},
            },
            "integration_routing": {"source_system": "erp", "callback_url": "https://erp.escola-maputo.co.mz/mzpay"},
        }
    )

    description: Text | None = None
    collection_method_ids: MethodIds
    amount: AmountIn
    payer: PayerIn | None = Field(
        default=None, description="Who pays (required unless customer_id names the payer from the directory)."
    )
    customer_id: Id | None = Field(
        default=None,
        description="A customer of the business's directory (usr_...) to invoice instead of a payer: the payer is "
        "taken from it (docs/customers.md); not together with payer.",
    )
    third_party_reference: Id | None = None
    metadata: Metadata | None = None
    invoice_metadata: InvoiceIn | None = None
    financial_details: FinancialIn | None = None
    integration_routing: RoutingIn | None = None
    listed: StrictBool | None = Field(
        default=None, description="false: the request is left out of the payer app's list by phone (default true)"
    )
    allow_installments: StrictBool | None = Field(
        default=None,
        description="true: the business may record several payments against it, each part of the amount "
        "(POST /v1/payments; default false: one payment of the whole amount)",
    )

    def fields(self) -> dict[str, Any]:
        """What the request carries (absent optional parts left out), as plain data."""
        return self.model_dump(exclude_none=True)

    def ensure_payer(self) -> None:
        """A body with neither payer nor customer_id is refused as it was when payer was required:
        the same 400 missing_field, naming payer, in the model's words."""
        if self.payer is None and self.customer_id is None:
            from mzpay.http.errors import Surface
            from mzpay.http.resolver import validation_error

            missing = {"type": "missing", "loc": ("body", "payer"), "msg": "Field required", "input": {}}
            raise validation_error([missing], Surface.COLLECTION, CollectionRequestIn)


class MethodDetailIn(Strict):
    """One of the spec's `details` (a collection method detail): the method it names; its name,
    type and status, when sent, are the method's own and must say the same."""

    collection_method_id: Id
    name: Name | None = None
    type: Code | None = None
    status: Code | None = None


class CollectionRequestChange(Strict):
    """PUT: every field optional; only those given change. The spec's fields (`name`, `type`,
    `account_id`, `details`) and the request's own."""

    model_config = examples(
        {
            "description": "Propina de Dezembro, turma 7B (com desconto de irmãos)",
            "amount": {**AMOUNT, "value": 1350.0},
        },
        {"name": "Propina de Dezembro", "type": "mpesa"},
        {"details": [{"collection_method_id": MPESA_METHOD}]},
    )

    name: Name | None = Field(default=None, description="The spec's name of the request: its `description`.")
    type: Code | None = Field(
        default=None,
        description="A collection method type (mpesa, emola, ...): the request is then payable through the "
        "account's active methods of that type, in the request's mode.",
    )
    details: list[MethodDetailIn] | None = Field(
        default=None,
        min_length=1,
        max_length=10,
        description="The spec's collection method details: the methods the request is payable through.",
    )

    account_id: Id | None = None
    description: Text | None = None
    collection_method_ids: MethodIds | None = None
    amount: AmountIn | None = None
    payer: PayerIn | None = None
    third_party_reference: Id | None = None
    metadata: Metadata | None = None
    invoice_metadata: InvoiceIn | None = None
    integration_routing: RoutingIn | None = None
    listed: StrictBool | None = Field(
        default=None, description="false: the request is left out of the payer app's list by phone"
    )

    def fields(self) -> dict[str, Any]:
        """The request's own fields: the spec's `name` stands for `description`, its `details` for
        `collection_method_ids` (`type` is resolved against the account's methods by the route)."""
        own = self.model_dump(exclude_none=True, exclude={"name", "type", "details"})
        if self.name is not None:
            own.setdefault("description", self.name)
        if self.details is not None:
            own.setdefault("collection_method_ids", [detail.collection_method_id for detail in self.details])
        return own


class MethodDetailsIn(Strict):
    """Kulpay's details of a collection method: where a bank method is paid, and its settings."""

    entity_number: Annotated[str, StringConstraints(max_length=16)] | None = Field(
        default=None, description="simo_erv: the business's SIMO entity number (5 digits)"
    )
    nib: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        default=None, description="interbank: the business's NIB (21 digits; spaces, dots and dashes ignored)"
    )
    allow_installments: StrictBool | None = Field(
        default=None, description="The same setting as the body's allow_installments (both given: the same value)"
    )
    allow_reuses: StrictBool | None = Field(
        default=None,
        description="simo_erv, interbank: true gives a payer the same reference for the same amount on each new "
        "request (a standing reference for recurring fixed bills; default false)",
    )


class CollectionMethodIn(Strict):
    model_config = examples(
        {"type": "mpesa", "name": "M-Pesa", "mode": "live"},
        {
            "type": "simo_erv",
            "name": "Pagamento por referência",
            "mode": "live",
            "details": {"entity_number": "54321", "allow_installments": False, "allow_reuses": True},
        },
    )

    type: Code
    name: Name | None = None
    mode: Code  # test or live
    details: MethodDetailsIn | None = Field(
        default=None, description="Kulpay's details: entity_number (simo_erv), nib (interbank), allow_reuses"
    )
    allow_installments: StrictBool | None = Field(
        default=None,
        description="true: requests naming this method may be paid in parts (instalments; default false)",
    )
    min_installment: Decimal | None = Field(
        default=None,
        allow_inf_nan=False,
        max_digits=20,
        description="The least one instalment may be (more than zero, two decimals at most), unless it pays "
        "all that is due; only with allow_installments",
    )

    @field_validator("min_installment", mode="before")
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | Decimal | float | str)):
            raise ValueError("a number, e.g. 500.00")
        return value


class CancelIn(Strict):
    """POST /v1/collection-requests/{id}/cancel: why (optional)."""

    model_config = examples({"reason": "Issued twice"})

    reason: Annotated[str, StringConstraints(min_length=1, max_length=MAX_CANCEL_REASON)] | None = Field(
        default=None, description=f"Why it is cancelled (1 to {MAX_CANCEL_REASON} characters)."
    )


class StatusIn(Strict):
    model_config = examples({"status": "inactive"})

    status: Code


class RecordedPaymentIn(Strict):
    """POST /v1/payments: a payment received outside the service, against a collection request."""

    model_config = examples(
        {
            "collection_request_id": "cr_01JD9H1J2K3M4N5P6Q7R8S9T0V",
            "amount": {"currency": "MZN", "value": 1500.00},
            "channel": "bank_transfer",
            "reference": "BCI-TRF-20261103-0042",
            "paid_at": "2026-11-03T08:40:00Z",
            "description": "Transfer from the payer's BCI account",
            "metadata": {"erp_receipt": "RC-2026-0117"},
        }
    )

    collection_request_id: Annotated[str, StringConstraints(min_length=1, max_length=64)] = Field(
        description="The business's collection request it pays (cr_...)."
    )
    amount: AmountIn = Field(
        description="What was paid: the request's currency; all that is due, or a part of it "
        "when the request allows instalments."
    )
    channel: Code = Field(description="How it came: " + ", ".join(CHANNELS) + ".")
    reference: Annotated[str, StringConstraints(min_length=1, max_length=MAX_REFERENCE)] = Field(
        description="The bank's or the receipt's reference of the payment."
    )
    paid_at: Day = Field(description="When it was paid: ISO 8601 with its offset, not in the future.")
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION)] | None = None
    metadata: Metadata | None = None

    def fields(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
