"""Bank statements a business uploads (docs/bank-statements.md): the formats read into statement
lines. Pure rules: no storage, no HTTP.

- `csv`: a bank's export with a column mapping (MAPPING_FIELDS; DEFAULT_MAPPING is the usual
  Mozambican export: `;`, decimal comma, DD/MM/YYYY, separate debit and credit columns);
- `camt053`: ISO 20022 CAMT.053 XML, read with defusedxml (no DTD, no entity expansion): each
  `Ntry` with its `CdtDbtInd`, `Amt`, `BookgDt`, `ValDt`, `AcctSvcrRef`, `RmtInf/Ustrd` and
  `RmtInf/Strd/CdtrRefInf/Ref`;
- `simo_erv`: SIMO's ERV settlement layout, one payment a line (entity, reference, amount, date,
  SIMO transaction id), until a live SIMO link exists;
- `lines`: lines posted as JSON (the route's model has their shape).

Bounded: MAX_BYTES of content, MAX_ROWS lines, every string at most its maximum, no card number
in free text (description, reference). A bad file is refused whole (400 validation_error naming
the line and the field: `lines[<n>].<field>`, n counted from 1), nothing stored."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.statement_camt import read_camt053
from mzpay.domain.collection.statement_text import (
    CREDIT_MARKS,
    DEBIT_MARKS,
    MAX_AMOUNT,
    MAX_BYTES,
    Bad,
    ParsedLine,
    amount_of,
    bounded,
    day,
    line_of,
    refused,
)
from mzpay.domain.common.errors import FieldError
from mzpay.domain.common.errors import field_refusal as invalid

FORMATS = ("csv", "camt053", "simo_erv", "lines")
MAPPING_FIELDS = (
    "date",
    "amount",
    "credit",
    "debit",
    "credit_debit",
    "description",
    "reference",
    "transaction_id",
    "value_date",
    "balance",
)
"""What a CSV mapping names: the column of each of the line's fields (header names). The amount
is either `amount` (signed, or unsigned with `credit_debit` saying C/D, CR/DR, CRDT/DBIT) or two
columns `credit` and `debit`."""
MAPPING_OPTIONS = ("delimiter", "decimal_separator", "date_format")
DELIMITERS = (";", ",", "\t", "|")
DATE_FORMATS = {"DD/MM/YYYY": "%d/%m/%Y", "DD-MM-YYYY": "%d-%m-%Y", "YYYY-MM-DD": "%Y-%m-%d", "DD.MM.YYYY": "%d.%m.%Y"}
MAX_COLUMN = 64

DEFAULT_MAPPING: Mapping[str, str] = {
    "date": "Data Movimento",
    "value_date": "Data Valor",
    "description": "Descrição",
    "reference": "Referência",
    "debit": "Débito",
    "credit": "Crédito",
    "balance": "Saldo",
    "transaction_id": "N.º Operação",
    "delimiter": ";",
    "decimal_separator": ",",
    "date_format": "DD/MM/YYYY",
}
"""The usual export of a Mozambican bank's internet banking (Portuguese headers, `;`, 1.234,56,
DD/MM/YYYY, debit and credit in two columns)."""

SIMO_COLUMNS = ("entity", "reference", "amount", "date", "transaction_id")


# ---------------------------------------------------------------- csv
def mapping_problems(mapping: Mapping[str, str]) -> list[FieldError]:
    """What is wrong with a caller's CSV mapping (empty when it can be used)."""
    problems = []
    for name, value in mapping.items():
        if name not in MAPPING_FIELDS + MAPPING_OPTIONS:
            problems.append(FieldError(f"mapping.{name}", INVALID_FORMAT, "not a mapping field"))
        elif not isinstance(value, str) or not 0 < len(value) <= MAX_COLUMN:
            problems.append(FieldError(f"mapping.{name}", INVALID_FORMAT, f"1 to {MAX_COLUMN} characters"))
    if problems:
        return problems
    if "date" not in mapping:
        problems.append(FieldError("mapping.date", "REQUIRED", "the column of the booking date"))
    if "amount" not in mapping and not ("credit" in mapping and "debit" in mapping):
        problems.append(FieldError("mapping.amount", "REQUIRED", "an amount column, or both credit and debit"))
    if mapping.get("delimiter", ";") not in DELIMITERS:
        problems.append(FieldError("mapping.delimiter", INVALID_FORMAT, "one of ; , | or a tab"))
    if mapping.get("decimal_separator", ".") not in (".", ","):
        problems.append(FieldError("mapping.decimal_separator", INVALID_FORMAT, ". or ,"))
    if mapping.get("date_format", "YYYY-MM-DD") not in DATE_FORMATS:
        problems.append(FieldError("mapping.date_format", INVALID_FORMAT, "one of " + ", ".join(DATE_FORMATS)))
    return problems


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def _csv_rows(content: str, mapping: Mapping[str, str]) -> Iterator[ParsedLine]:
    decimal = mapping.get("decimal_separator", ".")
    fmt = DATE_FORMATS[mapping.get("date_format", "YYYY-MM-DD")]
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff")), delimiter=mapping.get("delimiter", ";"))
    header = next(reader, None)
    if header is None:
        raise refused(None, "content", "a header line naming the columns")
    columns = {_fold(name): index for index, name in enumerate(header)}
    where: dict[str, int] = {}
    for field in MAPPING_FIELDS:
        if field in mapping:
            if _fold(mapping[field]) not in columns:
                raise refused(None, f"mapping.{field}", f"no column {mapping[field]!r} in the header")
            where[field] = columns[_fold(mapping[field])]
    for row, cells in enumerate(reader, start=1):
        if not any(cell.strip() for cell in cells):
            continue  # a blank line
        try:
            yield _csvline_of(row, cells, where, decimal, fmt)
        except Bad as bad:
            raise refused(row, bad.field, bad.message) from None


def _cell(cells: list[str], where: Mapping[str, int], field: str) -> str | None:
    index = where.get(field)
    if index is None or index >= len(cells):
        return None
    return cells[index].strip() or None


def _csvline_of(row: int, cells: list[str], where: Mapping[str, int], decimal: str, fmt: str) -> ParsedLine:
    booked = _cell(cells, where, "date")
    if booked is None:
        raise Bad("date", "the booking date is missing")
    if "amount" in where:
        given = _cell(cells, where, "amount")
        if given is None:
            raise Bad("amount", "the amount is missing")
        amount = amount_of(given, decimal)
        mark = _cell(cells, where, "credit_debit")
        if mark is not None:
            if mark.upper() not in CREDIT_MARKS | DEBIT_MARKS:
                raise Bad("credit_debit", "C or D (CR, DR, CRDT, DBIT)")
            amount = abs(amount) if mark.upper() in CREDIT_MARKS else -abs(amount)
    else:
        credit, debit = _cell(cells, where, "credit"), _cell(cells, where, "debit")
        if (credit is None) == (debit is None):
            raise Bad("amount", "either a credit or a debit")
        amount = amount_of(credit, decimal) if credit is not None else -abs(amount_of(str(debit), decimal))
    value_date, balance = _cell(cells, where, "value_date"), _cell(cells, where, "balance")
    fields = {
        "date": day(booked, "date", fmt),
        "amount": amount,
        "credit": amount > 0,
        "description": _cell(cells, where, "description"),
        "reference": _cell(cells, where, "reference"),
        "transaction_id": _cell(cells, where, "transaction_id"),
        "value_date": day(value_date, "value_date", fmt) if value_date else None,
        "balance": _balance(balance, decimal),
    }
    return line_of(row, fields)


def _balance(text: str | None, decimal: str) -> Decimal | None:
    if text is None:
        return None
    try:
        return amount_of(text, decimal)
    except Bad:
        raise Bad("balance", "an amount such as 1500.00") from None


def read_csv(content: str, mapping: Mapping[str, str] | None = None) -> list[ParsedLine]:
    """A CSV export read with `mapping` (DEFAULT_MAPPING when none)."""
    chosen = dict(mapping) if mapping else dict(DEFAULT_MAPPING)
    if problems := mapping_problems(chosen):
        raise invalid(problems)
    try:
        return bounded(_csv_rows(content, chosen))
    except csv.Error as bad:
        raise refused(None, "content", f"not CSV: {bad}") from None


# ---------------------------------------------------------------- simo erv
def read_simo(content: str) -> list[ParsedLine]:
    """SIMO's ERV settlement layout: a header `entity;reference;amount;date;transaction_id` (`;`
    or `,`), one payment a line, amounts with a decimal point, dates YYYY-MM-DD (a time may
    follow). Every line is a credit."""
    first = content.lstrip("\ufeff").split("\n", 1)[0]
    delimiter = ";" if ";" in first else ","
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff")), delimiter=delimiter)
    header = [_fold(name) for name in next(reader, [])]
    if header != list(SIMO_COLUMNS):
        raise refused(None, "content", "a header " + ";".join(SIMO_COLUMNS))

    def lines() -> Iterator[ParsedLine]:
        for row, cells in enumerate(reader, start=1):
            if not any(cell.strip() for cell in cells):
                continue
            try:
                if len(cells) != len(SIMO_COLUMNS):
                    raise Bad("content", f"{len(SIMO_COLUMNS)} columns")
                entity, reference, amount, booked, transaction = (cell.strip() for cell in cells)
                if not re.fullmatch(r"\d{5}", entity):
                    raise Bad("entity", "a SIMO entity of 5 digits")
                if not reference:
                    raise Bad("reference", "the payment's reference")
                fields = {
                    "date": day(booked, "date"),
                    "amount": amount_of(amount),
                    "credit": True,
                    "description": f"SIMO {entity} {reference}",
                    "reference": reference,
                    "transaction_id": transaction or None,
                    "entity": entity,
                }
                yield line_of(row, fields)
            except Bad as bad:
                raise refused(row, bad.field, bad.message) from None

    try:
        return bounded(lines())
    except csv.Error as bad:
        raise refused(None, "content", f"not CSV: {bad}") from None


# ---------------------------------------------------------------- lines posted as JSON
def read_lines(posted: list[Mapping[str, Any]]) -> list[ParsedLine]:
    """Lines posted as JSON ({date, amount (signed, or unsigned with credit_debit), description,
    reference, transaction_id, value_date, balance}): shapes checked by the route's model."""

    def lines() -> Iterator[ParsedLine]:
        for row, given in enumerate(posted, start=1):
            try:
                amount = Decimal(str(given["amount"]))
                if amount.as_tuple().exponent < -2:  # type: ignore[operator]
                    raise Bad("amount", "at most two decimals")
                mark = given.get("credit_debit")
                if mark is not None:
                    amount = abs(amount) if mark.upper() in CREDIT_MARKS else -abs(amount)
                value_date = given.get("value_date")
                fields = {
                    "date": day(given["date"], "date"),
                    "amount": amount,
                    "credit": amount > 0,
                    "description": given.get("description"),
                    "reference": given.get("reference"),
                    "transaction_id": given.get("transaction_id"),
                    "value_date": day(value_date, "value_date") if value_date else None,
                    "balance": _posted_balance(given.get("balance")),
                }
                yield line_of(row, fields)
            except Bad as bad:
                raise refused(row, bad.field, bad.message) from None
            except InvalidOperation:
                raise refused(row, "amount", "a number") from None

    return bounded(lines())


def _posted_balance(given: Any) -> Decimal | None:
    if given is None:
        return None
    balance = Decimal(str(given))
    if not balance.is_finite() or abs(balance) > MAX_AMOUNT or balance.as_tuple().exponent < -2:  # type: ignore[operator]
        raise Bad("balance", "an amount such as 1500.00 (at most two decimals)")
    return balance


def parse(
    kind: str, content: str | None, mapping: Mapping[str, str] | None, posted: list[Any] | None
) -> list[ParsedLine]:
    """The lines of a statement of `kind` (FORMATS); 400 validation_error naming what is wrong."""
    if kind == "lines":
        if not posted:
            raise refused(None, "lines", "at least one line")
        return read_lines(posted)
    if not content:
        raise invalid([FieldError("content", "REQUIRED", "the statement's content")])
    if len(content.encode()) > MAX_BYTES:
        raise refused(None, "content", f"at most {MAX_BYTES} bytes")
    if kind == "csv":
        return read_csv(content, mapping)
    if mapping:
        raise refused(None, "mapping", "only for a csv statement")
    if kind == "camt053":
        return read_camt053(content)
    if kind == "simo_erv":
        return read_simo(content)
    raise refused(None, "format", "one of " + ", ".join(FORMATS))
