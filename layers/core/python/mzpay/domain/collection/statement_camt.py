"""CAMT.053 (ISO 20022 bank-to-customer statement) read into statement lines
(docs/bank-statements.md): each `Ntry` with its `CdtDbtInd`, `Amt`, `BookgDt`, `ValDt`,
`AcctSvcrRef`, `RmtInf/Ustrd` and `RmtInf/Strd/CdtrRefInf/Ref`, elements read by local name (any
version's namespace). Parsed with defusedxml: a DTD, an entity or an external reference refuses
the file, so nothing is ever expanded (a billion-laughs file is refused, not computed)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from defusedxml import ElementTree as SafeTree
from defusedxml.common import DefusedXmlException

from mzpay.domain.collection.statement_text import (
    MAX_DESCRIPTION,
    Bad,
    ParsedLine,
    amount_of,
    bounded,
    day,
    line_of,
    refused,
)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(element: Any, *path: str) -> Any:
    """The first descendant along `path` of local names (namespaces vary by version)."""
    found = element
    for name in path:
        found = next((child for child in found if _local(child.tag) == name), None)
        if found is None:
            return None
    return found


def _children(element: Any, name: str) -> list[Any]:
    return [child for child in element if _local(child.tag) == name]


def _value(element: Any, *path: str) -> str | None:
    found = _child(element, *path)
    return None if found is None or found.text is None else found.text.strip() or None


def _entry_date(entry: Any, name: str) -> str | None:
    return _value(entry, name, "Dt") or (_value(entry, name, "DtTm") or "")[:10] or None


def _entries(document: Any) -> Iterator[Any]:
    for statement in document.iter():
        if _local(statement.tag) in ("Stmt", "Rpt"):
            yield from _children(statement, "Ntry")


def _camtline_of(row: int, entry: Any) -> ParsedLine:
    mark = _value(entry, "CdtDbtInd")
    if mark not in ("CRDT", "DBIT"):
        raise Bad("CdtDbtInd", "CRDT or DBIT")
    amount_element = _child(entry, "Amt")
    if amount_element is None or not amount_element.text:
        raise Bad("Amt", "the entry's amount")
    amount = amount_of(amount_element.text)
    currency = amount_element.get("Ccy")
    if currency is not None and not re.fullmatch(r"[A-Z]{3}", currency):
        raise Bad("Amt", "an amount with its ISO 4217 currency (Ccy)")
    booked = _entry_date(entry, "BookgDt") or _entry_date(entry, "ValDt")
    if booked is None:
        raise Bad("BookgDt", "the booking date")
    details = _child(entry, "NtryDtls", "TxDtls")
    scope = details if details is not None else entry
    unstructured = [
        (element.text or "").strip() for element in _children(_child(scope, "RmtInf") or [], "Ustrd") if element.text
    ]
    reference = _value(scope, "RmtInf", "Strd", "CdtrRefInf", "Ref")
    value_on = _entry_date(entry, "ValDt")
    fields = {
        "date": day(booked, "BookgDt"),
        "amount": amount if mark == "CRDT" else -amount,
        "credit": mark == "CRDT",
        "description": " ".join(unstructured)[: MAX_DESCRIPTION + 1] or None,
        "reference": reference,
        "transaction_id": _value(entry, "AcctSvcrRef") or (_value(scope, "Refs", "AcctSvcrRef") if details else None),
        "value_date": day(value_on, "ValDt") if value_on else None,
        "currency": currency,
    }
    return line_of(row, fields)


def read_camt053(content: str) -> list[ParsedLine]:
    """A CAMT.053 statement's entries (any version: elements are read by local name). A DTD, an
    entity or an external reference refuses the file (defusedxml), so no expansion happens."""
    try:
        document = SafeTree.fromstring(content, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise refused(None, "content", "XML without a DTD or entities") from None
    except SafeTree.ParseError as bad:
        raise refused(None, "content", f"not XML: {bad}") from None

    def lines() -> Iterator[ParsedLine]:
        for row, entry in enumerate(_entries(document), start=1):
            try:
                yield _camtline_of(row, entry)
            except Bad as bad:
                raise refused(row, bad.field, bad.message) from None

    return bounded(lines())
