"""Bank statements reconciled (mzpay.collection.bank_statements): an import's counts and the
statement lines' queue."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import AlwaysNull, Answer, Mode, PagedAnswer, Timestamp, examples, page_example
from mzpay.answers.collection_request_parts import CollectionAmount

_IMPORTED: dict[str, Any] = {
    "object": "bank_statement",
    "id": "bst_01JDA2K7M3N4P5Q6R7S8T9V0W1",
    "mode": "live",
    "format": "csv",
    "imported_before": False,
    "lines": 4,
    "credits": 3,
    "debits": 1,
    "already_imported": 0,
    "matched": 2,
    "unmatched": 1,
    "ambiguous": 0,
    "assigned": 0,
    "dismissed": 0,
    "error": None,
}

_LINE: dict[str, Any] = {
    "id": "bsl_01JDA2K9Q4R5S6T7V8W9X0Y1Z2",
    "object": "bank_statement_line",
    "statement_id": "bst_01JDA2K7M3N4P5Q6R7S8T9V0W1",
    "mode": "live",
    "status": "unmatched",
    "row": 3,
    "booked_on": "2026-11-03",
    "value_on": "2026-11-03",
    "amount": {"currency": "MZN", "value": 750.00},
    "description": "TRF DE JOAO MACUACUA",
    "reference": None,
    "bank_transaction_id": "BCI-20261103-000731",
    "entity": None,
    "reason": "no_reference",
    "candidates": [],
    "collection_request_id": None,
    "payment_id": None,
    "overpayment": None,
    "resolution": None,
    "created_at": "2026-11-03T10:15:00Z",
    "updated_at": "2026-11-03T10:15:00Z",
}


class BankStatementImported(Answer):
    """What an import found: how many lines, and what each credit line is now."""

    model_config = examples(_IMPORTED)

    object: Literal["bank_statement"] = Field(description="Always bank_statement.")
    id: str = Field(description="The statement's id (bst_...): the same file imported again has the same id.")
    mode: Mode = Field(description="test or live: the mode of the requests its lines pay.")
    format: Literal["csv", "camt053", "simo_erv", "lines"] = Field(description="The statement's format.")
    imported_before: bool = Field(description="This very statement was imported before (nothing applied twice).")
    lines: int = Field(description="The statement's lines, debits included.")
    credits: int = Field(description="Its distinct credit lines (the ones reconciled).")
    debits: int = Field(description="Its debit lines (not reconciled).")
    already_imported: int = Field(description="Credit lines an earlier statement or import had brought.")
    matched: int = Field(description="Credit lines applied by the automatic match.")
    unmatched: int = Field(description="Credit lines waiting: no request found.")
    ambiguous: int = Field(description="Credit lines waiting: several requests, or an amount that does not fit.")
    assigned: int = Field(description="Credit lines the business assigned by hand before.")
    dismissed: int = Field(description="Credit lines the business dismissed before.")
    error: AlwaysNull


class BankStatementLine(Answer):
    """A credit line of a bank statement and what became of it."""

    model_config = examples(_LINE)

    id: str = Field(description="The line's id (bsl_...), derived from its identity: the same line has one id.")
    object: Literal["bank_statement_line"] = Field(description="Always bank_statement_line.")
    statement_id: str = Field(description="The statement that first brought it.")
    mode: Mode = Field(description="test or live.")
    status: Literal["unmatched", "ambiguous", "matched", "assigned", "dismissed"] = Field(
        description="unmatched or ambiguous: waiting for the business; matched (automatically) or assigned "
        "(by hand): applied as a payment; dismissed: not the business's."
    )
    row: int = Field(description="Its place in the statement, from 1.")
    booked_on: str = Field(description="The booking date (YYYY-MM-DD).")
    value_on: str | None = Field(description="The value date; null when the bank gave none.")
    amount: CollectionAmount = Field(description="What was credited.")
    description: str = Field(description="The bank's description (the payer's words).")
    reference: str | None = Field(description="The structured reference; null when none.")
    bank_transaction_id: str | None = Field(description="The bank's own id of the transaction.")
    entity: str | None = Field(description="The SIMO entity of a settlement line; else null.")
    reason: str | None = Field(
        description="Why it waits: no_reference, several_requests, amount_not_fitting, payment_under_way; else null."
    )
    candidates: list[str] = Field(description="The requests it could be (an ambiguous line).")
    collection_request_id: str | None = Field(description="The request it was applied to.")
    payment_id: str | None = Field(description="The payment that applied it (GET /v1/payments/{id}).")
    overpayment: CollectionAmount | None = Field(description="What of it the request could not take: to refund.")
    resolution: dict[str, Any] | None = Field(description="Who assigned or dismissed it, when, and why.")
    created_at: Timestamp = Field(description="When it was imported.")
    updated_at: Timestamp = Field(description="When it last changed.")


class BankLineRead(Answer):
    """One bank statement line."""

    model_config = examples({"object": "bank_statement_line", "line": _LINE, "error": None})

    object: Literal["bank_statement_line"] = Field(description="Always bank_statement_line.")
    line: BankStatementLine = Field(description="The line.")
    error: AlwaysNull


class BankLineList(PagedAnswer[BankStatementLine]):
    """A page of the business's statement lines of one mode and status, newest first."""

    model_config = page_example(_LINE)

    data: list[BankStatementLine] = Field(description="The lines of this page.")
