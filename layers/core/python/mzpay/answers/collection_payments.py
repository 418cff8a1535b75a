"""The collection surface's payment records (mzpay.collection.payments): the payments a business
received, through its collection requests' payment links or otherwise."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import (
    AlwaysNull,
    Answer,
    DecimalText,
    PagedAnswer,
    Timestamp,
    examples,
    page_example,
    sometimes,
)

_PAYMENT: dict[str, Any] = {
    "id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "collection_request_id": "01JD8Z4K2M3N4P5Q6R7S8T9V0W",
    "status": "succeeded",
    "channel": "mpesa",
    "provider_id": "mpesa-mz",
    "amount": "1500.00",
    "currency": "MZN",
    "mode": "live",
    "reference": "9BK2F7XQ1",
    "created_at": "2026-11-03T09:00:00Z",
    "paid_at": "2026-11-03T09:01:10Z",
    "updated_at": "2026-11-03T09:01:10Z",
}


class CollectionPayment(Answer):
    """A payment the business received."""

    model_config = examples(_PAYMENT)

    id: str = Field(description="The payment's id (the gateway's provider_payment_id).")
    collection_request_id: str | None = Field(description="The collection request it paid; null for none.")
    status: Literal[
        "requires_payment_method",
        "pending",
        "requires_action",
        "authorized",
        "succeeded",
        "failed",
        "canceled",
        "expired",
    ] = Field(description="Where the payment is (succeeded: the money is the business's).")
    channel: str | None = Field(
        description="How the payer paid: a wallet network (mpesa, emola, mkesh) or a method; for a payment the "
        "business recorded, how it came (bank_transfer, cash, simo_reference, other)."
    )
    provider_id: str | None = Field(description="The payment service provider that carried it; null until chosen.")
    amount: DecimalText = Field(description="The amount asked.")
    currency: str = Field(description="ISO 4217.")
    mode: Literal["test", "live"] = Field(description="The mode of the collection request's methods.")
    reference: str | None = Field(
        description="The provider's own reference of the money movement, once known; the bank's or receipt's "
        "reference of a recorded payment."
    )
    created_at: Timestamp = Field(description="When the payment was opened.")
    paid_at: Timestamp | None = Field(description="When the money moved; null until it did.")
    updated_at: Timestamp = Field(description="When it last changed.")
    description: str | None = sometimes("What the business said of a payment it recorded; null: nothing.")
    metadata: dict[str, str] = sometimes("The business's key-value pairs of a payment it recorded.")


class CollectionPaymentRead(Answer):
    """One payment record."""

    model_config = examples({"object": "payment", "payment": _PAYMENT, "error": None})

    object: Literal["payment"] = Field(description="Always payment.")
    payment: CollectionPayment = Field(description="The payment.")
    error: AlwaysNull


class CollectionPaymentList(PagedAnswer[CollectionPayment]):
    """A page of the business's payments, newest first."""

    model_config = page_example(_PAYMENT)

    data: list[CollectionPayment] = Field(description="The payments of this page.")


_RECORDED: dict[str, Any] = {
    **_PAYMENT,
    "id": "01JD8Z4K2M7Q3R8S1T6V9W2X4Y",
    "channel": "bank_transfer",
    "provider_id": None,
    "reference": "BCI-TRF-20261103-0042",
    "created_at": "2026-11-03T10:15:00Z",
    "paid_at": "2026-11-03T08:40:00Z",
    "updated_at": "2026-11-03T10:15:00Z",
    "description": "Transfer from the payer's BCI account",
    "metadata": {"erp_receipt": "RC-2026-0117"},
}


class RecordedPayment(Answer):
    """A payment the business recorded against its collection request."""

    model_config = examples({"object": "payment", "payment": _RECORDED, "error": None})

    object: Literal["payment"] = Field(description="Always payment.")
    payment: CollectionPayment = Field(description="The payment recorded (succeeded).")
    error: AlwaysNull
