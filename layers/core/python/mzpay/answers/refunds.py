"""The refund answer (mzpay.steps.refunds.refund_result): made by either route, or read."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import Amount, Answer, FailureExplained, Page, Timestamp, examples

_REFUND: dict[str, Any] = {
    "refund_id": "01JD9A1B2C3D4E5F6G7H8J9K0M",
    "provider_refund_id": "01JD9A1C5N6P7Q8R9S0T1V2W3X",
    "provider_payment_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "status": "succeeded",
    "money": {"amount": "50.00", "currency": "MZN"},
    "reason": "Returned item",
    "failure_code": None,
    "failure_message": None,
    "processed_at": "2026-11-03T09:12:00Z",
}


class RefundResult(Answer):
    """A refund (made by either route, or read); its events carry it too."""

    model_config = examples(_REFUND)

    refund_id: str = Field(description="Your id of the refund (one is made when you sent none).")
    provider_refund_id: str = Field(description="The gateway's id of the refund (a ULID): GET /v1/refunds/{id}.")
    provider_payment_id: str = Field(description="The refunded payment.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="pending until the provider answers.")
    money: Amount = Field(description="The amount refunded.")
    reason: str | None = Field(description="The reason you gave.")
    failure_code: str | None = Field(description="Why it failed (e.g. refund_declined); else null.")
    failure_message: FailureExplained
    processed_at: Timestamp = Field(description="When the refund last changed.")


class RefundList(Page[RefundResult]):
    """A page of refunds, newest first (GET /v1/refunds, GET /v1/payments/{id}/refunds)."""

    model_config = examples({"data": [_REFUND], "has_more": False, "next_page_token": None})
