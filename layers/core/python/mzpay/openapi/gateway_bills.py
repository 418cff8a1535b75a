"""The gateway's answers for bill payments (mzpay.domain.bills: BillQuote.view, BillPayment.view);
the conventions are mzpay.openapi.gateway's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.openapi.gateway_more import ULID, Answer, DecimalText, Timestamp, examples
from mzpay.openapi.management_bills import BILLER_ID, PRODUCT_ID, FeeOrDiscount

QUOTE = {
    "object": "bill_quote",
    "quote_id": ULID,
    "status": "quoted",
    "product_id": PRODUCT_ID,
    "product_name": "Credelec prepaid electricity",
    "biller_id": BILLER_ID,
    "biller_name": "EDM Credelec",
    "reference": "04000000001",
    "customer_name": "Ana Machava",
    "amount": "500.00",
    "currency": "MZN",
    "fee": {"amount": "5.00", "bearer": "payer"},
    "discount": None,
    "total": "505.00",
    "channel_debit": "505.00",
    "invoice": None,
    "yields": "token",
    "payment_id": None,
    "expires_at": "2026-11-25T08:45:00Z",
    "created_at": "2026-11-25T08:30:00Z",
}


class QuotedInvoice(Answer):
    """The invoice a quote pays, as it stood when quoted."""

    number: str = Field(description="The invoice's number (the reference).")
    amount_due: DecimalText = Field(description="What the invoice is for.")
    outstanding: DecimalText = Field(description="What it still owed.")
    due_date: str | None = Field(description="When it is due (a date), or null.")


class BillQuote(Answer):
    """What paying a bill product to a reference costs, as the biller's supplier quoted it."""

    model_config = examples(QUOTE)

    object: Literal["bill_quote"] = Field(description="Always bill_quote.")
    quote_id: str = Field(description="The quote's id (a ULID).")
    status: Literal["quoted", "used", "expired"] = Field(description="quoted until a payment uses it or it expires.")
    product_id: str = Field(description="The bill product.")
    product_name: str = Field(description="Its name.")
    biller_id: str = Field(description="Its biller.")
    biller_name: str = Field(description="The biller's name.")
    reference: str = Field(description="The meter, account, smartcard, phone or invoice, at most 64 characters.")
    customer_name: str = Field(description="The customer the biller knows for the reference.")
    amount: DecimalText = Field(description="What the reference is credited with.")
    currency: str = Field(description="The currency.")
    fee: FeeOrDiscount | None = Field(description="The product's fee and who bears it, or null.")
    discount: FeeOrDiscount | None = Field(description="The product's discount and who funds it, or null.")
    total: DecimalText = Field(description="What the payer pays you: amount + a payer's fee - the discount.")
    channel_debit: DecimalText = Field(description="What the payment takes from your float.")
    invoice: QuotedInvoice | None = Field(description="The invoice paid (invoice products), or null.")
    yields: Literal["token", "receipt"] = Field(description="What the payment delivers.")
    payment_id: str | None = Field(description="The payment that used it, or null.")
    expires_at: Timestamp = Field(description="After this it cannot be paid (422 quote_expired).")
    created_at: Timestamp = Field(description="When it was quoted.")
