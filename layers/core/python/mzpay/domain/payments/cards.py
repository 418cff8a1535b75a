"""Cards as a charge may carry them: the acquirer's token (what merchants send), or in test mode
one of the documented test numbers, which stands for its token. Raw card data (a number
anywhere else, a security code) is refused wherever it appears and never stored or logged."""

from __future__ import annotations

import re
from typing import Any

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common.bounds import Code, Id, holds_card_number
from mzpay.domain.common.errors import FieldError
from mzpay.domain.common.model import Strict

RAW_CARD_DATA = "gateway.raw_card_data_not_accepted"
CARD_TOKEN = re.compile(r"tok_[A-Za-z0-9_]{6,64}")

# The card numbers test mode accepts (documented in docs/test-mode.md); any other number is
# refused as raw card data, and every number is refused in live mode.
TEST_CARDS: dict[str, str] = {
    "4242424242424242": "tok_test_visa",
    "5555555555554444": "tok_test_mastercard",
    "4000000000009995": "tok_test_insufficient_funds",
    "4000000000000002": "tok_test_declined",
    "4000000000003220": "tok_test_3ds",
    "4000000000000077": "tok_test_authorize",
    "4000000000000341": "tok_test_otp",
    "4000000000000259": "tok_test_fee",
}


SECURITY_CODES = frozenset({"cvc", "cvv", "cvv2", "cvc2", "security_code"})
# What a form sends beside a card number; dropped when a number came, so that the number's own rule
# answers (raw_card_data_not_accepted, or in test mode a documented test card passes).
CARD_NEIGHBOURS = frozenset({"exp_month", "exp_year", "expiry", "expiration_date", "name", "holder_name"})


class Card(Strict):
    token: Id | None = None  # the acquirer's tokenizer reference: what merchants send
    number: Code | None = None  # test mode only, documented test numbers

    @model_validator(mode="before")
    @classmethod
    def _raw_card_data_first(cls, value: Any) -> Any:
        """Raw card data is refused before any other rule of the card (never repeated): a security
        code, or a card number in a field other than `number`, whatever the neighbouring fields."""
        if not isinstance(value, dict):
            return value
        if SECURITY_CODES & value.keys():
            raise raw_card_data()
        for key, item in value.items():
            if key != "number" and isinstance(item, str | int) and holds_card_number(str(item)):
                raise raw_card_data()
        if value.get("number") is not None:
            return {key: item for key, item in value.items() if key not in CARD_NEIGHBOURS}
        return value


def no_card_number(cls: type, value: str | None) -> str | None:
    """Field rule: a free-text field never carries a card number (raw_card_data)."""
    if value is not None and holds_card_number(value):
        raise raw_card_data()
    return value


def raw_card_data() -> PydanticCustomError:
    return PydanticCustomError(RAW_CARD_DATA, "a card number is never accepted here: send the acquirer's card token")


def luhn_valid(number: str) -> bool:
    """The Luhn check of a card number (digits only)."""
    total = 0
    for index, digit in enumerate(reversed(number)):
        value = int(digit)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def card_errors(card: Card, mode: str) -> list[FieldError]:
    """Why `card` cannot be charged in `mode` (the fields named as in a charge's source)."""
    if (card.token is None) == (card.number is None):
        return [
            FieldError("source.card", "invalid_request", "send exactly one of card.token or (test mode) card.number")
        ]
    if card.token is not None:
        if not CARD_TOKEN.fullmatch(card.token):
            return [
                FieldError("source.card.token", "invalid_card_token", "token is not a tokenizer reference (tok_...)")
            ]
        return []
    number = (card.number or "").replace(" ", "")
    raw = FieldError(
        "source.card.number",
        RAW_CARD_DATA,
        "send the acquirer's card token, never the card number",
    )
    if mode == "live":
        return [raw]
    if not number.isdigit() or not 13 <= len(number) <= 19 or not luhn_valid(number):
        return [FieldError("source.card.number", "invalid_card", "a card number has 13 to 19 digits and passes Luhn")]
    if number not in TEST_CARDS:
        return [raw]
    return []
