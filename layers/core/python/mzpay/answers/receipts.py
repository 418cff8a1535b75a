"""The gateway's receipt answer (GET /v1/payments/{id}/receipt, built from
mzpay.domain.payments.receipts.receipt)."""

from __future__ import annotations

from pydantic import Field

from mzpay.answers.base import ACCOUNT, ULID, Amount, Answer, TestOrLive, Timestamp, examples


class ReceiptMerchant(Answer):
    """The merchant as the receipt names it."""

    account_id: str = Field(description="The account paid.")
    name: str = Field(description="Its name as the payer reads it (a collection request's biller, or the account's).")


class ReceiptMethod(Answer):
    """A payment method with its number masked."""

    type: str | None = Field(description="mobile_wallet, card, reference, ...")
    network: str | None = Field(description="A wallet's network (M-Pesa, e-Mola, mKesh); else null.")
    masked: str | None = Field(description="The end of the number only (****567, **** 4242); null when none.")


class ReceiptVat(Answer):
    """The IVA an amount paid includes (prices are IVA-inclusive)."""

    base: Amount = Field(description="The amount less its IVA: amount / (1 + rate), half-even to the centavo.")
    rate: str = Field(description="The rate, as a fraction (0.16: 16%).")
    tax: Amount = Field(description="The IVA: the amount less the base.")


class ReceiptFiscal(Answer):
    """The merchant's fiscal details, as an operator set them on its account."""

    legal_name: str = Field(description="Its registered name.")
    nuit: str = Field(description="Its NUIT (9 digits).")
    address: str = Field(description="Its registered address.")
    vat: ReceiptVat | None = Field(description="The IVA in the amount paid; null when it is not registered for IVA.")


class Receipt(Answer):
    """A payment's receipt, once money has moved (before: 409 not_receiptable)."""

    model_config = examples(
        {
            "receipt_number": f"R-{ULID}",
            "short_number": "R-YKVB-34YD-J4AY",
            "provider_payment_id": ULID,
            "payment_id": "01JDA6Q0Z8X4M2N7P5R3T9V1W6",
            "mode": "live",
            "merchant": {"account_id": ACCOUNT, "name": "Mercearia Central"},
            "description": "Order A-1001",
            "amount": {"amount": "250.00", "currency": "MZN"},
            "refunded": {"amount": "50.00", "currency": "MZN"},
            "net": {"amount": "200.00", "currency": "MZN"},
            "method": {"type": "mobile_wallet", "network": "M-Pesa", "masked": "****567"},
            "provider_reference": "8A1B2C3D4E",
            "paid_at": "2026-11-25T08:30:00Z",
            "paid_at_maputo": "2026-11-25 10:30",
            "fiscal": {
                "legal_name": "Mercearia Central, Lda",
                "nuit": "400339910",
                "address": "Av. 24 de Julho 1234, Maputo",
                "vat": {
                    "base": {"amount": "215.52", "currency": "MZN"},
                    "rate": "0.16",
                    "tax": {"amount": "34.48", "currency": "MZN"},
                },
            },
        }
    )

    receipt_number: str = Field(description="R- and the provider_payment_id.")
    short_number: str = Field(
        description="The short number a payer reads and types: R- and 12 characters in three groups of four, "
        'derived from provider_payment_id (docs/payments.md, "Receipts").'
    )
    provider_payment_id: str = Field(description="The payment.")
    payment_id: str = Field(description="Your id of the payment.")
    mode: TestOrLive
    merchant: ReceiptMerchant = Field(description="Who was paid.")
    description: str | None = Field(description="What was paid for (a checkout's description); null when none.")
    amount: Amount = Field(description="What was paid (captured).")
    refunded: Amount = Field(description="What was refunded so far.")
    net: Amount = Field(description="Paid less refunded.")
    method: ReceiptMethod = Field(description="How, masked.")
    provider_reference: str | None = Field(description="The provider's id of the payment (M-Pesa's transaction ID).")
    paid_at: Timestamp = Field(description="When the money moved (UTC).")
    paid_at_maputo: str = Field(description="The same moment on Maputo's clock (YYYY-MM-DD HH:MM).")
    fiscal: ReceiptFiscal | None = Field(
        description="The merchant's legal name, NUIT, address and the IVA in the amount (when registered for IVA), "
        "as an operator set them on its account; null when none are set."
    )


class AccountFiscalDetails(Answer):
    """An account's fiscal details, as its receipts show them (PUT and GET
    /v1/accounts/{account_id}/fiscal-details on the management API)."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "legal_name": "Mercearia Central, Lda",
            "nuit": "400339910",
            "address": "Av. 24 de Julho 1234, Maputo",
            "vat_registered": True,
            "vat_rate": "0.16",
            "updated_at": "2026-11-25T08:00:00Z",
        }
    )

    account_id: str = Field(description="The gateway account.")
    legal_name: str = Field(description="Its registered name.")
    nuit: str = Field(description="Its NUIT (9 digits).")
    address: str = Field(description="Its registered address.")
    vat_registered: bool = Field(description="Whether it is registered for IVA (its receipts then show the tax).")
    vat_rate: str = Field(description="The IVA rate its prices include, as a fraction (0.16: 16%).")
    updated_at: Timestamp = Field(description="When an operator last set them.")
