"""Refunds: the requests (POST /refunds and POST /v1/payments/{id}/refund) and the entity."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from mzpay.domain.common.bounds import MAX_ID
from mzpay.domain.common.entity import Settling
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.payments.charges import Money


class RefundBody(Strict):
    """POST /v1/payments/{id}/refund: the payment is in the path."""

    model_config = examples(
        {"refund_id": "refund-0001", "amount": {"amount": "50.00", "currency": "MZN"}, "reason": "Returned"}
    )

    refund_id: str | None = Field(default=None, min_length=1, max_length=64)
    amount: Money | None = None  # omitted: everything not refunded yet
    reason: str | None = Field(default=None, max_length=500)


class RefundRequest(RefundBody):
    """POST /refunds (spec RefundRequest)."""

    model_config = examples(
        {
            "refund_id": "refund-0001",
            "provider_payment_id": "pay_01JDA6Q0Z8X4M2N7P5R3T9V1W6",
            "amount": {"amount": "50.00", "currency": "MZN"},
            "reason": "Returned",
        }
    )

    refund_id: str = Field(min_length=1, max_length=64)  # type: ignore[assignment]
    provider_payment_id: str = Field(max_length=MAX_ID)


class Refund(Settling):
    """A refund of (part of) a succeeded payment; statuses are the payment's pending, succeeded
    and failed. `amount` is a decimal string in the currency's exponent."""

    provider_refund_id: str
    refund_id: str
    provider_payment_id: str
    account_id: str
    mode: str
    amount: str
    currency: str
    reason: str | None = None
    callback_url: str | None = None
    customer_id: str | None = None  # the refunded payment's customer (a restricted key finds only its own)
    fingerprint: str
    created_at: str
    updated_at: str
    # the creating request's submission lease (see domain.payments.expiry)
    submit_lease_until: str | None = None

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)
