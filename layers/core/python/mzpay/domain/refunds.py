"""Refund requests: POST /refunds and POST /v1/payments/{id}/refund."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.bounds import MAX_ID
from mzpay.domain.charges import Money
from mzpay.domain.model import Strict


class RefundBody(Strict):
    """POST /v1/payments/{id}/refund: the payment is in the path."""

    refund_id: str | None = Field(default=None, min_length=1, max_length=64)
    amount: Money | None = None  # omitted: everything not refunded yet
    reason: str | None = Field(default=None, max_length=500)


class RefundRequest(RefundBody):
    """POST /refunds (spec RefundRequest)."""

    refund_id: str = Field(min_length=1, max_length=64)  # type: ignore[assignment]
    provider_payment_id: str = Field(max_length=MAX_ID)
