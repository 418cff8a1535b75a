"""Request bodies of the collection surface's partner routes."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mzpay.domain.model import StrictText as Strict


class CardBin(Strict):
    # The BIN only (6 to 8 digits, checked by domain.partners); bounded so that no request can
    # carry much more than a card number, which is refused and never logged.
    card_number: str = Field(min_length=1, max_length=32)


class PaymentMethodIn(Strict):
    partner_id: str = Field(max_length=64)
    type: str = Field(max_length=32)  # card, mobile_wallet or bank_account (domain.payment_methods)
    # The partner's form: checked field by field against its attributes (each at most 140).
    details: dict[Annotated[str, Field(max_length=64)], Any] = Field(max_length=20)


class PaymentMethodStatus(Strict):
    status: str = Field(max_length=32)
