"""Bank statement lines (docs/bank-statements.md): what one credit line of a business's statement
is, its identity (so that a statement imported twice, or two statements that overlap, apply a
line once) and the queue it waits in until it is applied or dismissed. Pure rules.

A line's life: it is stored `unmatched` and then judged once: `matched` (applied as a payment
of the one request its reference names), `ambiguous` (two requests, or an amount that does not
fit) or left `unmatched` (no request found). The business resolves the queue by hand: `assigned`
(applied to the request it names) or `dismissed` (not ours). Each change is one conditional
write on the line's status and version."""

from __future__ import annotations

import hashlib
from collections import Counter
from decimal import Decimal
from enum import StrEnum
from typing import Any, NamedTuple

from ulid import ULID

from mzpay.domain.collection.bank_references import oldest_open
from mzpay.domain.collection.requests import CollectionRequest
from mzpay.domain.collection.statement_text import ParsedLine
from mzpay.domain.common.entity import Entity


class LineStatus(StrEnum):
    UNMATCHED = "unmatched"
    AMBIGUOUS = "ambiguous"
    MATCHED = "matched"
    ASSIGNED = "assigned"
    DISMISSED = "dismissed"


LISTED = tuple(LineStatus)
WAITING = (LineStatus.UNMATCHED, LineStatus.AMBIGUOUS)
"""The statuses of a line that is still the business's to resolve (assign or dismiss)."""

NO_REFERENCE = "no_reference"  # no request's reference in the line
SEVERAL_REQUESTS = "several_requests"  # the line names more than one request
AMOUNT_NOT_FITTING = "amount_not_fitting"  # a part of a request that takes one payment, or below its minimum
PAYMENT_UNDER_WAY = "payment_under_way"  # the payer is paying the request through its link now
MAX_DISMISS_REASON = 200


def _ulid_of(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return str(ULID.from_bytes(digest[:16]))


def statement_id(account_id: str, mode: str, kind: str, content: str) -> str:
    """The same statement (same business, mode, format and bytes) has the same id."""
    return "bst_" + _ulid_of("statement", account_id, mode, kind, content)


def line_identities(account_id: str, mode: str, lines: list[ParsedLine]) -> list[str]:
    """Each line's id: from the bank's transaction id when it gave one; else from (date, amount,
    description, reference) and the line's occurrence among the statement's identical lines, so
    that two statements holding the same day's lines name them alike."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    ids = []
    for line in lines:
        if line.bank_transaction_id:
            ids.append("bsl_" + _ulid_of("bank", account_id, mode, line.bank_transaction_id))
            continue
        signed = format(line.amount if line.credit else -line.amount, "f")
        shape = (line.booked_on, signed, line.description, line.reference or "")
        seen[shape] += 1
        ids.append("bsl_" + _ulid_of("line", account_id, mode, *shape, str(seen[shape])))
    return ids


class StatementLine(Entity):
    """A credit line of a business's bank statement (bsl_...) and what became of it."""

    line_id: str
    account_id: str
    mode: str
    statement_id: str  # the first statement that brought it
    row: int
    booked_on: str
    value_on: str | None = None
    amount: Decimal
    currency: str
    description: str = ""
    reference: str | None = None
    bank_transaction_id: str | None = None
    entity: str | None = None
    balance: Decimal | None = None
    judged: bool = False  # the automatic match ran (a retried import judges the others)
    reason: str | None = None  # why it waits: NO_REFERENCE, SEVERAL_REQUESTS, AMOUNT_NOT_FITTING...
    candidates: list[str] = []  # the requests it could be (ambiguous)
    collection_request_id: str | None = None  # the request it was applied to
    payment_id: str | None = None  # the payment that applied it
    overpayment: Decimal | None = None  # what of it the request could not take: to refund
    resolution: dict[str, Any] | None = None  # {by, at, reason}: who assigned or dismissed it
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        return {
            "id": self.line_id,
            "object": "bank_statement_line",
            "statement_id": self.statement_id,
            "mode": self.mode,
            "status": self.status,
            "row": self.row,
            "booked_on": self.booked_on,
            "value_on": self.value_on,
            "amount": {"currency": self.currency, "value": self.amount},
            "description": self.description,
            "reference": self.reference,
            "bank_transaction_id": self.bank_transaction_id,
            "entity": self.entity,
            "reason": self.reason,
            "candidates": self.candidates,
            "collection_request_id": self.collection_request_id,
            "payment_id": self.payment_id,
            "overpayment": (
                {"currency": self.currency, "value": self.overpayment} if self.overpayment is not None else None
            ),
            "resolution": self.resolution,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def new_line(
    line: ParsedLine, line_id: str, account_id: str, mode: str, statement: str, currency: str, now: str
) -> StatementLine:
    """A credit line as first stored: unmatched, not yet judged."""
    return StatementLine(
        status=LineStatus.UNMATCHED,
        version=1,
        line_id=line_id,
        account_id=account_id,
        mode=mode,
        statement_id=statement,
        row=line.row,
        booked_on=line.booked_on,
        value_on=line.value_on,
        amount=line.amount,
        currency=line.currency or currency,
        description=line.description,
        reference=line.reference,
        bank_transaction_id=line.bank_transaction_id,
        entity=line.entity,
        balance=line.balance,
        created_at=now,
        updated_at=now,
    )


class Named(NamedTuple):
    """A request a line names, and the reference number it names it by."""

    request: CollectionRequest
    number: str


def narrowed(found: dict[str, list[Named]]) -> list[Named]:
    """The requests a line pays among those its references name (by reference, each oldest
    first): the only one. A line naming two references is ambiguous; a standing reference (one
    number several bills carry, allow_reuses) pays the oldest of them still open
    (bank_references.oldest_open); all closed, it is ambiguous."""
    if len(found) != 1:
        return [named for carrying in found.values() for named in carrying]
    (carrying,) = found.values()
    if len(carrying) == 1:
        return carrying
    oldest = oldest_open([named.request for named in carrying])
    return [named for named in carrying if named.request is oldest] if oldest is not None else carrying
