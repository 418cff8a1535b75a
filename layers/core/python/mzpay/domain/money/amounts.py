"""Money as `decimal.Decimal`, end to end.

The gateway writes amounts as decimal strings ("150.00"); the collection surface writes
`{currency, value}` with a JSON number. Both are parsed into `Decimal` and never pass
through float.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

# ISO 4217 minor units of the currencies the service handles; others default to 2.
MINOR_UNITS: dict[str, int] = {"MZN": 2, "USD": 2, "ZAR": 2, "EUR": 2}
DEFAULT_MINOR_UNITS = 2

_AMOUNT_TEXT = re.compile(r"^(0|[1-9][0-9]{0,14})(\.[0-9]{1,4})?$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class InvalidAmount(ValueError):
    """An amount that is not a plain non-negative decimal string."""


def is_currency_code(text: object) -> bool:
    """True when `text` is three upper-case letters (ISO 4217 shape)."""
    return isinstance(text, str) and bool(_CURRENCY.fullmatch(text))


def minor_units(currency: str) -> int:
    """Number of fraction digits of `currency`."""
    return MINOR_UNITS.get(currency, DEFAULT_MINOR_UNITS)


def parse_amount(text: object, currency: str | None = None) -> Decimal:
    """Parse a gateway amount string such as "150.00" into a Decimal.

    Refuses floats, ints, exponents, signs, blanks and more fraction digits than the
    currency has: money must arrive exactly as written.
    """
    if not isinstance(text, str) or not _AMOUNT_TEXT.fullmatch(text):
        raise InvalidAmount(f"amount must be a decimal string such as '150.00', got {text!r}")
    value = Decimal(text)
    if currency is not None and -value.as_tuple().exponent > minor_units(currency):  # type: ignore[operator]
        raise InvalidAmount(f"{currency} amounts have at most {minor_units(currency)} fraction digits")
    return value


def parse_number(value: object) -> Decimal:
    """Parse a collection-surface numeric `value` (already a Decimal when bodies are read
    with Decimal floats) into a Decimal; bool and float are refused."""
    if isinstance(value, (bool, float)):
        raise InvalidAmount("value must be a JSON number read as decimal")
    if isinstance(value, Decimal):
        number = value
    elif isinstance(value, int):
        number = Decimal(value)
    else:
        raise InvalidAmount(f"value must be a number, got {value!r}")
    if not number.is_finite() or number.is_signed():
        raise InvalidAmount("value must be a finite non-negative number")
    return number


def quantize(amount: Decimal, currency: str) -> Decimal:
    """Round `amount` to the currency's minor unit (banker's rounding)."""
    exponent = Decimal(1).scaleb(-minor_units(currency))
    try:
        return amount.quantize(exponent, rounding=ROUND_HALF_EVEN)
    except InvalidOperation as exc:  # amount too large for the context precision
        raise InvalidAmount(str(exc)) from exc


def format_amount(amount: Decimal, currency: str) -> str:
    """The gateway's wire form: a decimal string with the currency's fraction digits."""
    return f"{quantize(amount, currency):f}"


def collection_money(amount: Decimal, currency: str) -> dict[str, object]:
    """The collection surface's `{currency, value}` (value stays a Decimal; the JSON
    serializer writes it as a number)."""
    return {"currency": currency, "value": quantize(amount, currency)}
