"""Bank statement lines as parsed (docs/bank-statements.md): what every format reads a line into,
and the rules every format's lines follow (bounded strings, amounts, dates, no card number in free
text). A bad line refuses the whole statement: 400 validation_error naming `lines[<n>].<field>`
(n counted from 1). Pure rules."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.common.card_data import holds_card_number
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid

MAX_BYTES = 2_000_000  # of a statement's content (UTF-8)
MAX_ROWS = 5_000  # lines of one statement
MAX_DESCRIPTION = 500
MAX_REFERENCE = 140
MAX_TRANSACTION_ID = 64
MAX_ENTITY = 10
MAX_AMOUNT = Decimal("999999999999.99")
EARLIEST = date(2000, 1, 1)
CREDIT_MARKS = frozenset({"C", "CR", "CRDT", "CREDIT", "CREDITO", "CRÉDITO"})
DEBIT_MARKS = frozenset({"D", "DR", "DBIT", "DEBIT", "DEBITO", "DÉBITO"})


@dataclass(frozen=True)
class ParsedLine:
    """One line of a statement as the bank gave it."""

    row: int  # its place in the statement, from 1
    booked_on: str  # YYYY-MM-DD
    amount: Decimal  # more than zero
    credit: bool
    description: str = ""
    reference: str | None = None
    bank_transaction_id: str | None = None
    value_on: str | None = None
    balance: Decimal | None = None
    currency: str | None = None
    entity: str | None = None  # a SIMO settlement line's entity


class Bad(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def refused(row: int | None, field: str, message: str) -> ServiceError:
    where = f"lines[{row}].{field}" if row is not None else field
    return invalid([FieldError(where, INVALID_FORMAT, message)])


def amount_of(text: str, decimal_separator: str = ".") -> Decimal:
    """A bank's amount: digits with an optional sign (leading or trailing `-`, or parentheses),
    thousands separators and at most two decimals."""
    given = text.strip().replace(" ", "").replace("\u00a0", "")
    negative = given.startswith("(") and given.endswith(")")
    given = given.strip("()")
    if given.endswith("-"):
        negative, given = True, given[:-1]
    if given.startswith(("-", "+")):
        negative, given = given[0] == "-", given[1:]
    thousands = "." if decimal_separator == "," else ","
    given = given.replace(thousands, "").replace(decimal_separator, ".")
    if not re.fullmatch(r"\d{1,12}(\.\d{1,2})?", given):
        raise Bad("amount", "an amount such as 1500.00 (at most two decimals)")
    value = Decimal(given)
    return -value if negative else value


def day(text: str, field: str, fmt: str = "%Y-%m-%d") -> str:
    try:
        day = datetime.strptime(text.strip()[:10] if fmt == "%Y-%m-%d" else text.strip(), fmt).date()
    except ValueError:
        raise Bad(field, "a date such as 2026-11-03 (a csv statement's as its date_format says)") from None
    if day < EARLIEST or day.year > 2100:
        raise Bad(field, "a date from 2000 on")
    return day.isoformat()


def text_field(value: str | None, field: str, maximum: int, screened: bool = True) -> str | None:
    if value is None:
        return None
    value = " ".join(value.split())
    if len(value) > maximum:
        raise Bad(field, f"at most {maximum} characters")
    if screened and holds_card_number(value):
        raise Bad(field, "a card number is never accepted")
    return value or None


def line_of(row: int, fields: Mapping[str, Any]) -> ParsedLine:
    """A line from its fields (strings already read), checked and bounded."""
    amount = fields["amount"]
    if amount == 0 or abs(amount) > MAX_AMOUNT:
        raise Bad("amount", "more than zero and at most 999999999999.99")
    return ParsedLine(
        row=row,
        booked_on=fields["date"],
        amount=abs(amount),
        credit=fields["credit"],
        description=text_field(fields.get("description"), "description", MAX_DESCRIPTION) or "",
        reference=text_field(fields.get("reference"), "reference", MAX_REFERENCE),
        bank_transaction_id=text_field(fields.get("transaction_id"), "transaction_id", MAX_TRANSACTION_ID, False),
        value_on=fields.get("value_date"),
        balance=fields.get("balance"),
        currency=fields.get("currency"),
        entity=text_field(fields.get("entity"), "entity", MAX_ENTITY, False),
    )


def bounded(lines: Iterator[ParsedLine]) -> list[ParsedLine]:
    found: list[ParsedLine] = []
    for line in lines:
        if len(found) >= MAX_ROWS:
            raise refused(None, "content", f"at most {MAX_ROWS} lines a statement")
        found.append(line)
    if not found:
        raise refused(None, "content", "a statement with at least one line")
    return found
