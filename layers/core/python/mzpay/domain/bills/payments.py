"""Bill payments (docs/bills.md): a channel pays a quote, exactly once, from its float.

| status | moved by | next |
|---|---|---|
| (quote quoted) | POST /v1/bill-payments | pending: the float debited (held), the quote used |
| pending | the supplier paid it (a token, a receipt number) | succeeded: the held money leaves |
| pending | the supplier refused it | failed: the float credited back, the invoice and limits too |
| pending | the supplier did not answer (timeout) | stays pending: reconciliation asks it again |

A payment's product daily limits (per reference, per channel) are totals raised in the same
transaction as the payment (422 limit_exceeded with rule reference_daily or channel_daily).
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.accounts.limits import business_day
from mzpay.domain.bills.billers import BillProduct
from mzpay.domain.bills.quotes import BillOfProduct, BillQuote, money_view, product_view
from mzpay.domain.common.bounds import Email, Phone
from mzpay.domain.common.entity import Entity, Reserved, Settling
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.payments.routing import refusal
from mzpay.domain.payouts.rules import callback_url_rule, metadata_rule

PENDING, SUCCEEDED, FAILED = "pending", "succeeded", "failed"
CREATED_EVENT = "bill_payment.created"
EVENT_OF_STATUS = {SUCCEEDED: "bill_payment.succeeded", FAILED: "bill_payment.failed"}
MAX_RESENDS = 3
E164 = re.compile(r"\+[1-9]\d{7,14}")


class Payer(BaseModel):
    """Where the token or receipt may be resent (POST /v1/bill-payments/{id}/resend)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    email: Email | None = None
    phone_number: Phone | None = None

    @field_validator("email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and ("@" not in value or value.startswith("@") or value.endswith("@")):
            raise PydanticCustomError("invalid_value", "email must be an email address")
        return value

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        if value is not None and not E164.fullmatch(value):
            raise PydanticCustomError("invalid_phone", "phone_number must be in E.164 (+258...)")
        return value


class BillPaymentRequest(Strict):
    """The body of `POST /v1/bill-payments`."""

    model_config = examples(
        {
            "quote_id": "01JDB3A5C7E9G1J3K5M7P9R1T3",
            "payer": {"phone_number": "+258841234567"},
            "metadata": {"order": "A-1001"},
        }
    )

    quote_id: str = Field(description="The quote to pay (quoted, not expired).")
    payer: Payer | None = None
    callback_url: str | None = None
    metadata: dict[str, str] | None = None

    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)

    @field_validator("quote_id", mode="before")
    @classmethod
    def _quote_id(cls, value: Any) -> Any:
        if not isinstance(value, str) or not is_ulid(value):
            raise PydanticCustomError("invalid_value", "must be an id this API gave (a ULID)")
        return value


class BillPayment(BillOfProduct, Settling):
    """A channel's payment of a bill quote."""

    payment_id: str
    invoice_number: str | None = None
    token: str | None = None
    receipt_number: str | None = None
    payer: dict[str, str] | None = None
    callback_url: str | None = None
    metadata: dict[str, str] | None = None
    resends: tuple[dict[str, str], ...] = ()
    reservations: tuple[Reserved, ...] | None = None

    @property
    def debit(self) -> Decimal:
        return Decimal(self.channel_debit)

    def view(self) -> dict[str, Any]:
        return {
            "payment_id": self.payment_id,
            "quote_id": self.quote_id,
            "status": self.status,
            **product_view(self),
            **money_view(self),
            "invoice_number": self.invoice_number,
            "token": self.token,
            "receipt_number": self.receipt_number,
            "failure_code": self.failure_code,
            "failure_message": self.failure_message,
            "payer": self.payer or {},
            "resends": len(self.resends),
            "metadata": self.metadata or {},
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


# What a payment takes over from its quote as it is (its times are its own).
FROM_QUOTE = frozenset(BillOfProduct.model_fields) - set(Entity.model_fields) - {"created_at", "updated_at"}


def payment_of(
    payment_id: str, quote: BillQuote, request: BillPaymentRequest, reserved: tuple[Reserved, ...], now: str
) -> BillPayment:
    payer = request.payer.model_dump(exclude_none=True) if request.payer else None
    return BillPayment(
        **quote.model_dump(include=set(FROM_QUOTE)),
        payment_id=payment_id,
        status=PENDING,
        version=1,
        invoice_number=(quote.invoice or {}).get("number"),
        payer=payer or None,
        callback_url=request.callback_url,
        metadata=request.metadata,
        reservations=reserved or None,
        created_at=now,
        updated_at=now,
    )


class DailyWindow(BaseModel):
    """A product's daily total to raise with a payment."""

    rule: str  # reference_daily | channel_daily
    key: str
    ceiling: Decimal


def daily_windows(product: BillProduct, quote: BillQuote, moment: datetime, rejection_id: str) -> list[DailyWindow]:
    """The product's daily limits a payment of `quote` counts in (Maputo's business day); 422
    limit_exceeded at once when the amount alone passes one."""
    day = business_day(moment)
    amount = Decimal(quote.amount)
    windows = []
    if product.daily_limit_per_reference:
        key = f"BILLDAY#{product.product_id}#{quote.mode}#REF#{quote.reference}#{day}"
        windows.append(DailyWindow(rule="reference_daily", key=key, ceiling=Decimal(product.daily_limit_per_reference)))
    if product.daily_limit_per_channel:
        key = f"BILLDAY#{product.product_id}#{quote.mode}#CH#{quote.account_id}#{day}"
        windows.append(DailyWindow(rule="channel_daily", key=key, ceiling=Decimal(product.daily_limit_per_channel)))
    for window in windows:
        if amount > window.ceiling:
            raise limit_reached(window.rule, window.ceiling, quote.currency, rejection_id)
    return windows


def limit_reached(rule: str, ceiling: Decimal, currency: str, rejection_id: str) -> ServiceError:
    whose = "reference" if rule == "reference_daily" else "channel"
    return refusal(
        422,
        "limit_exceeded",
        rule,
        f"The product's daily limit per {whose} ({ceiling:f} {currency}) would be exceeded.",
        rejection_id,
    )


# ---------------------------------------------------------------- resends
RESEND_EVENT = "bill_payment.resend_requested"


class ResendRequest(Strict):
    """The body of `POST /v1/bill-payments/{payment_id}/resend`."""

    model_config = examples({"channel": "sms"})

    channel: Literal["email", "sms"] = Field(description="Where to send the token or receipt again.")


def resend_to(payment: BillPayment, channel: str) -> str:
    """Where a resend by `channel` goes: 409 invalid_state before the payment succeeded, 422
    resend_limit after MAX_RESENDS, 400 when the payer left no address for the channel."""
    if payment.status != SUCCEEDED:
        raise ServiceError(409, "invalid_state", f"A {payment.status} bill payment has no token or receipt to resend.")
    if len(payment.resends) >= MAX_RESENDS:
        raise ServiceError(422, "resend_limit", f"The token or receipt was already resent {MAX_RESENDS} times.")
    field = "email" if channel == "email" else "phone_number"
    address = (payment.payer or {}).get(field)
    if not address:
        message = f"the payment's payer has no {field}"
        raise invalid_field("channel", message)
    return address
