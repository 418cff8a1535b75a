"""The management API's answers for billers and bill products (mzpay.operators.billers: Biller.view,
BillProduct.view); the conventions are mzpay.openapi.management's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import AccountId, Answer, DecimalText, ListObject, Timestamp, UpdatedAt, examples
from mzpay.answers.bills import BILLER_ID, PRODUCT_ID, BillerId, FeeOrDiscount

Category = Literal["electricity", "water", "tv", "airtime", "education", "municipal", "other"]

PRODUCT = {
    "object": "bill_product",
    "product_id": PRODUCT_ID,
    "biller_id": BILLER_ID,
    "name": "Credelec prepaid electricity",
    "kind": "open",
    "currency": "MZN",
    "price": None,
    "denominations": None,
    "min_amount": "20.00",
    "max_amount": "50000.00",
    "invoice": None,
    "yields": "token",
    "supplier_product": "sim-electricity",
    "fee": {"amount": "5.00", "bearer": "payer"},
    "discount": None,
    "daily_limit_per_reference": "20000.00",
    "daily_limit_per_channel": "5000000.00",
    "status": "active",
    "created_at": "2026-11-25T08:00:00Z",
    "updated_at": "2026-11-25T08:00:00Z",
}
BILLER = {
    "object": "biller",
    "biller_id": BILLER_ID,
    "name": "EDM Credelec",
    "category": "electricity",
    "logo_url": "https://static.mzpay.example/billers/edm.png",
    "credit_account": "000100001234567890194",
    "owned_by_origin": True,
    "origin_system": "edm-sap",
    "supplier": "simulator",
    "account_id": None,
    "psp_id": None,
    "status": "active",
    "created_at": "2026-11-25T08:00:00Z",
    "updated_at": "2026-11-25T08:00:00Z",
    "products": [PRODUCT],
}


class InvoiceRules(Answer):
    """How an invoice product's invoices may be paid."""

    allow_partial: bool = Field(description="Less than what is owed may be paid.")
    allow_overpayment: bool = Field(description="More than what is owed may be paid.")


class BillProduct(Answer):
    """A product of a biller."""

    model_config = examples(PRODUCT)

    object: Literal["bill_product"] = Field(description="Always bill_product.")
    product_id: str = Field(description="The product's id (a ULID).")
    biller_id: BillerId
    name: str = Field(description="Its name, at most 100 characters.")
    kind: Literal["fixed", "denominations", "open", "invoice"] = Field(description="How its amount is chosen.")
    currency: str = Field(description="Its currency.")
    price: DecimalText | None = Field(description="The price of a fixed product; else null.")
    denominations: list[DecimalText] | None = Field(description="The amounts a denominations product takes.")
    min_amount: DecimalText | None = Field(description="The smallest amount of an open product.")
    max_amount: DecimalText | None = Field(description="The largest amount of an open product.")
    invoice: InvoiceRules | None = Field(description="An invoice product's payment rules.")
    yields: Literal["token", "receipt"] = Field(description="What a payment delivers.")
    supplier_product: str = Field(description="The supplier's code of the product.")
    fee: FeeOrDiscount | None = Field(description="Its fee, if any.")
    discount: FeeOrDiscount | None = Field(description="Its discount, if any.")
    daily_limit_per_reference: DecimalText | None = Field(description="Most paid to one reference a day.")
    daily_limit_per_channel: DecimalText | None = Field(description="Most one channel pays a day.")
    status: Literal["active", "retired"] = Field(description="retired: it takes no more quotes.")
    created_at: Timestamp = Field(description="When it was added.")
    updated_at: UpdatedAt


class Biller(Answer):
    """A biller and its products."""

    model_config = examples(BILLER)

    object: Literal["biller"] = Field(description="Always biller.")
    biller_id: str = Field(description="The biller's id (a ULID).")
    name: str = Field(description="Its name, at most 100 characters.")
    category: Category = Field(description="What it bills.")
    logo_url: str | None = Field(description="Its logo (https), or null.")
    credit_account: str = Field(description="The NIB its money is credited to.")
    owned_by_origin: bool = Field(description="Its commercial fields belong to its origin back office.")
    origin_system: str | None = Field(description="That back office's name, or null.")
    supplier: Literal["simulator"] = Field(description="The bill supplier that answers for it.")
    account_id: str | None = Field(description="Its own mzpay account (the billers' API), or null.")
    psp_id: str | None = Field(description="The PSP whose pilot its live payments count in, or null.")
    status: Literal["active", "paused", "retired"] = Field(description="paused or retired: it takes no payments.")
    created_at: Timestamp = Field(description="When it was registered.")
    updated_at: UpdatedAt
    products: list[BillProduct] = Field(description="Its products.")


class BillerList(Answer):
    """Every biller of the region."""

    model_config = examples({"object": "list", "data": [BILLER]})

    object: ListObject
    data: list[Biller] = Field(description="The billers, by id.")


class SmsChannel(Answer):
    """An account's SMS channel (null sender: none)."""

    model_config = examples(
        {"account_id": "01JC0A1B2C3D4E5F6G7H8J9K0M", "sms_sender_id": "MERCEARIA", "updated_at": "2026-11-25T08:00:00Z"}
    )

    account_id: AccountId
    sms_sender_id: str | None = Field(description="The sender id its payers' SMS carry; null: no SMS channel.")
    updated_at: Timestamp = Field(description="When it was set.")
