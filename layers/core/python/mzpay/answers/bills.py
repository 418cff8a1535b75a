"""The gateway's answers for bill payments (mzpay.domain.bills.quotes: BillQuote.view, BillPayment.view);
the conventions are mzpay.answers.base's."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import (
    ULID,
    Answer,
    ByteSize,
    DecimalText,
    FailureInWords,
    ItsName,
    MadeAt,
    Page,
    Timestamp,
    UpdatedAt,
    WhyFailed,
    YourMetadata,
    examples,
    sometimes,
)

BILLER_ID = "01M8A0MH8BAHW8JZV956J9ME1Z"
PRODUCT_ID = "01M8A0MH8BAHW8JZV956J9ME20"
# The keys of a bill product's answers (a quote, its payment, a subscription, an invoice) described once.
ProductId = Annotated[str, Field(description="The bill product.")]
BillerId = Annotated[str, Field(description="Its biller.")]
BillerName = Annotated[str, Field(description="The biller's name.")]
CurrencyCode = Annotated[str, Field(description="The currency.")]
DueDate = Annotated[str | None, Field(description="When it is due (a date), or null.")]


class FeeOrDiscount(Answer):
    """A fixed fee or discount and who bears it."""

    amount: DecimalText = Field(description="How much, in the product's currency.")
    bearer: Literal["payer", "channel", "biller"] = Field(description="Who pays it (a discount: who funds it).")


# What the examples of a quote and of its payment share (BillFields), in the answers' order.
BILL = {
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
}
QUOTE = {
    "quote_id": ULID,
    "status": "quoted",
    **BILL,
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
    due_date: DueDate


class BillFields(Answer):
    """What a bill quote and the payment of it share."""

    product_id: ProductId
    product_name: ItsName
    biller_id: BillerId
    biller_name: BillerName
    reference: str = Field(description="The meter, account, smartcard, phone or invoice, at most 64 characters.")
    customer_name: str = Field(description="The customer the biller knows for the reference.")
    amount: DecimalText = Field(description="What the reference is credited with.")
    currency: CurrencyCode
    fee: FeeOrDiscount | None = Field(description="The product's fee and who bears it, or null.")
    discount: FeeOrDiscount | None = Field(description="The product's discount and who funds it, or null.")
    total: DecimalText = Field(description="What the payer pays you: amount + a payer's fee - the discount.")
    channel_debit: DecimalText = Field(description="What the payment takes from your float.")


class BillQuote(BillFields):
    """What paying a bill product to a reference costs, as the biller's supplier quoted it."""

    model_config = examples(QUOTE)

    quote_id: str = Field(description="The quote's id (a ULID).")
    status: Literal["quoted", "used", "expired"] = Field(description="quoted until a payment uses it or it expires.")
    invoice: QuotedInvoice | None = Field(description="The invoice paid (invoice products), or null.")
    yields: Literal["token", "receipt"] = Field(description="What the payment delivers.")
    payment_id: str | None = Field(description="The payment that used it, or null.")
    expires_at: Timestamp = Field(description="After this it cannot be paid (422 quote_expired).")
    created_at: Timestamp = Field(description="When it was quoted.")


class BillPayer(Answer):
    """Where the token or receipt may be resent."""

    email: str = sometimes("The payer's email, at most 254 characters.")
    phone_number: str = sometimes("The payer's phone in E.164.")


BILL_PAYMENT = {
    "payment_id": "5b7c3f5e-8f4e-5d63-9a0e-3c1b2a4d5e6f",
    "quote_id": ULID,
    "status": "succeeded",
    **BILL,
    "invoice_number": None,
    "token": "48213377054168112093",
    "receipt_number": "SIM4821337705",
    "failure_code": None,
    "failure_message": None,
    "payer": {"phone_number": "+258841234567"},
    "resends": 0,
    "metadata": {},
    "created_at": "2026-11-25T08:31:00Z",
    "updated_at": "2026-11-25T08:31:01Z",
}


class BillPayment(BillFields):
    """A channel's payment of a bill quote."""

    model_config = examples(BILL_PAYMENT)

    payment_id: str = Field(description="The payment's id (a UUID derived from your Idempotency-Key).")
    quote_id: str = Field(description="The quote it paid.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="pending while the biller has not answered.")
    invoice_number: str | None = Field(description="The invoice paid, or null.")
    token: str | None = Field(description="The 20-digit token of a prepaid product once succeeded; else null.")
    receipt_number: str | None = Field(description="The biller's receipt number once succeeded; else null.")
    failure_code: WhyFailed
    failure_message: FailureInWords
    payer: BillPayer = Field(description="Where resends go ({} when not given).")
    resends: int = Field(description="How many times the token or receipt was resent (at most 3).")
    metadata: YourMetadata
    created_at: Timestamp = Field(description="When it was paid.")
    updated_at: UpdatedAt


class BillPaymentResend(Answer):
    """A resend of a bill payment's token or receipt, queued for sending."""

    model_config = examples(
        {
            "resend_id": ULID,
            "payment_id": BILL_PAYMENT["payment_id"],
            "channel": "sms",
            "to": "+258841234567",
            "status": "queued",
            "resends": 1,
            "requested_at": "2026-11-25T08:40:00Z",
        }
    )

    resend_id: str = Field(description="The resend's id (a ULID).")
    payment_id: str = Field(description="The bill payment.")
    channel: Literal["email", "sms"] = Field(description="How it is sent.")
    to: str = Field(description="The payer's email or phone it goes to.")
    status: Literal["queued"] = Field(description="Always queued: the notification queue sends it.")
    resends: int = Field(description="How many resends the payment has had, this one included (at most 3).")
    requested_at: Timestamp = Field(description="When it was asked for.")


SUBSCRIPTION = {
    "subscription_id": ULID,
    "payer_id": "cliente-8841",
    "status": "active",
    "product_id": "01M8A0MH8BAHW8JZV956J9ME25",
    "product_name": "TVCabo Premium (1 month)",
    "biller_id": "01M8A0MH8BAHW8JZV956J9ME23",
    "biller_name": "TVCabo",
    "reference": "7010000001",
    "customer_name": "Fátima Cossa",
    "amount": "3500.00",
    "currency": "MZN",
    "frequency": "monthly",
    "consent": {
        "accepted": True,
        "terms_version": "tvcabo-debito-2026-11",
        "accepted_at": "2026-11-25T08:50:00Z",
        "source_ip": "198.51.100.7",
    },
    "created_at": "2026-11-25T08:50:00Z",
}


class Consent(Answer):
    """The payer's consent, as kept."""

    accepted: Literal[True] = Field(description="Always true: a subscription needs it.")
    terms_version: str = Field(description="The version of the terms accepted, at most 60 characters.")
    accepted_at: Timestamp = Field(description="When the consent was recorded.")
    source_ip: str = Field(description="The address the consent came from.")


class BillSubscription(Answer):
    """A payer's subscription to a recurring bill."""

    model_config = examples(SUBSCRIPTION)

    subscription_id: str = Field(description="The subscription's id (a ULID).")
    payer_id: str = Field(description="Your id of the payer.")
    status: Literal["active"] = Field(description="Always active.")
    product_id: ProductId
    product_name: ItsName
    biller_id: BillerId
    biller_name: BillerName
    reference: str = Field(description="The reference paid each time.")
    customer_name: str = Field(description="The customer the biller knows for it.")
    amount: DecimalText | None = Field(description="The amount paid each time; null: each invoice, all it owes.")
    currency: CurrencyCode
    frequency: Literal["monthly"] = Field(description="How often.")
    consent: Consent = Field(description="The payer's consent.")
    created_at: MadeAt


class BillSubscriptionList(Page[BillSubscription]):
    """A payer's subscriptions, oldest first (one page: no has_more)."""

    model_config = examples({"data": [SUBSCRIPTION]})


class InvoiceDocument(Answer):
    """An invoice's PDF as kept."""

    bucket: str = Field(description="The bucket it is kept in.")
    key: str = Field(description="Its key there.")
    sha256: str = Field(description="The SHA-256 of its bytes (hex).")
    size: ByteSize
    content_type: Literal["application/pdf"] = Field(description="Always application/pdf.")
    uploaded_at: Timestamp = Field(description="When it was attached.")


class BillerInvoice(Answer):
    """One of a biller's invoices, as the gateway tracks it."""

    model_config = examples(
        {
            "number": "FT2026-000102",
            "status": "open",
            "customer_name": "Carlos Nhantumbo",
            "amount_due": "850.00",
            "paid": "0.00",
            "outstanding": "850.00",
            "currency": "MZN",
            "due_date": "2026-12-31",
            "description": None,
            "document": None,
            "updated_at": "2026-11-25T09:00:00Z",
        }
    )

    number: str = Field(description="Its number (the reference channels pay).")
    status: Literal["open", "partially_paid", "paid", "cancelled", "expired"] = Field(description="Where it stands.")
    customer_name: str = Field(description="Who owes it.")
    amount_due: DecimalText = Field(description="What it is for.")
    paid: DecimalText = Field(description="What channels paid of it.")
    outstanding: DecimalText = Field(description="What it still owes.")
    currency: CurrencyCode
    due_date: DueDate
    description: str | None = Field(description="The biller's description, or null.")
    document: InvoiceDocument | None = Field(description="Its PDF, once attached.")
    updated_at: UpdatedAt


class BillPaymentList(Page[BillPayment]):
    """A page of bill payments, newest first (GET /v1/bill-payments)."""

    model_config = examples({"data": [BILL_PAYMENT], "has_more": False, "next_page_token": None})


# The bill routes' answers, in mzpay.openapi.gateway.ROUTES.
BILL_ROUTES: dict[tuple[str, str], type[Answer]] = {
    ("POST", "/v1/bill-payments/quotes"): BillQuote,
    ("GET", "/v1/bill-payments/quotes/{quote_id}"): BillQuote,
    ("POST", "/v1/bill-payments"): BillPayment,
    ("GET", "/v1/bill-payments"): BillPaymentList,
    ("GET", "/v1/bill-payments/{payment_id}"): BillPayment,
    ("POST", "/v1/bill-payments/{payment_id}/resend"): BillPaymentResend,
    ("POST", "/v1/payers/{payer_id}/subscriptions"): BillSubscription,
    ("GET", "/v1/payers/{payer_id}/subscriptions"): BillSubscriptionList,
    ("PATCH", "/v1/biller/invoices/{number}"): BillerInvoice,
    ("PUT", "/v1/biller/invoices/{number}/document"): BillerInvoice,
}
