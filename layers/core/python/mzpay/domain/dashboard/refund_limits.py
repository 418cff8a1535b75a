"""The support role's refund limit (docs/dashboard.md, "Refunds"): a support user refunds up to
this amount per refund, in MZN; the account's owner or an administrator sets it (5,000.00 MZN
until then). Pure."""

from __future__ import annotations

from decimal import Decimal

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.amounts import InvalidAmount, format_amount, parse_amount

CURRENCY = "MZN"
DEFAULT = "5000.00"
MOST = Decimal("1000000.00")  # a limit above this is a typing mistake, not a support agent's reach
MAX_TEXT = 20  # the form's amount fields


def amount_typed(text: str, field: str, currency: str) -> Decimal:
    """An amount typed into a form (`150.00` or `150,00`), else 400 `invalid_amount` naming `field`."""
    text = text.strip().replace(",", ".")
    if len(text) > MAX_TEXT:
        raise ServiceError(400, "invalid_amount", f"{field}: at most {MAX_TEXT} characters.", field=field)
    try:
        amount = parse_amount(text, currency)
    except InvalidAmount:
        raise ServiceError(400, "invalid_amount", f"{field}: an amount such as 150.00.", field=field) from None
    return amount


def new_limit(text: str) -> str:
    """A limit an owner or administrator sets: more than zero, at most MOST, as a Decimal string."""
    amount = amount_typed(text, "limit", CURRENCY)
    if not Decimal(0) < amount <= MOST:
        raise ServiceError(400, "invalid_amount", f"limit: more than 0.00 and at most {MOST} MZN.", field="limit")
    return format_amount(amount, CURRENCY)


def check(amount: Decimal, currency: str, limit: str) -> None:
    """403 `over_refund_limit` naming the limit unless a refund of `amount` `currency` is within it
    (a refund in another currency than the limit's is over it)."""
    if currency != CURRENCY or amount > Decimal(limit):
        raise ServiceError(
            403,
            "over_refund_limit",
            f"Your role refunds up to {limit} {CURRENCY} at a time.",
            limit=limit,
            currency=CURRENCY,
        )
