"""Request bodies of the collection surface's partner routes."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.model import StrictText as Strict


class CardBin(Strict):
    # The BIN only (6 to 8 digits, checked by domain.partners); bounded so that no request can
    # carry much more than a card number, which is refused and never logged.
    card_number: str = Field(min_length=1, max_length=32)
