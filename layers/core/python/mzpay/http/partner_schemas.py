"""Request bodies of the collection surface's partner routes."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field, field_validator

from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples


class CardBin(Strict):
    model_config = examples({"card_number": "41234567"})

    # The BIN only (6 to 8 digits, checked by domain.partners.catalogue); bounded so that no request can
    # carry much more than a card number, which is refused and never logged.
    card_number: str = Field(min_length=1, max_length=32)


class PaymentMethodIn(Strict):
    model_config = examples(
        {
            "partner_id": "ptn_mpesa",
            "type": "mobile_wallet",
            "details": {"phone_number": "+258841234567", "holder_name": "Ana Machava"},
            "mode": "live",
        }
    )

    partner_id: str = Field(max_length=64)
    type: str = Field(max_length=32)  # card, mobile_wallet or bank_account (domain.partners.payment_methods)
    # The partner's form: checked field by field against its attributes (each at most 140).
    details: dict[Annotated[str, Field(max_length=64)], Any] = Field(max_length=20)
    mode: str = Field(default="live", max_length=8)  # test or live: the mode its transactions run in


class PaymentMethodStatus(Strict):
    model_config = examples({"status": "inactive"})

    status: str = Field(max_length=32)


class TransactionIn(Strict):
    """The process-transaction body (spec); the rules are domain.partners.transactions'."""

    model_config = examples(
        {
            "transaction_type": "pay_in",
            "amount": 1250.5,
            "currency": "MZN",
            "description": "Propina de Dezembro, turma 7B",
            "notify_customer": True,
            "metadata": {"student_number": "2026-0417"},
        }
    )

    transaction_type: str = Field(max_length=32)
    amount: Decimal | None = Field(default=None, allow_inf_nan=False, max_digits=20)
    currency: str | None = Field(default=None, max_length=8)
    description: str | None = Field(default=None, max_length=500)
    destination: str | None = Field(
        default=None,
        max_length=64,
        description="A transfer's wallet number or NIB; a pay_bill's meter, account, phone or invoice number.",
    )
    biller_id: str | None = Field(default=None, max_length=64, description="pay_bill: the biller (optional).")
    product_id: str | None = Field(
        default=None, max_length=64, description="pay_bill: the bill product (docs/bills.md, the simulated billers)."
    )
    notify_customer: bool = False
    metadata: dict[Annotated[str, Field(min_length=1, max_length=40)], Annotated[str, Field(max_length=500)]] | None = (
        Field(default=None, max_length=20)
    )

    @field_validator("amount", mode="before")
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | Decimal | float)):
            raise ValueError("a number, e.g. 150.00")
        return value
