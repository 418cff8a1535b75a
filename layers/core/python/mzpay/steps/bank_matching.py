"""Which of a business's collection requests a bank statement line names (docs/bank-statements.md,
"Matching"): the requests whose reference the line's reference or description carries, however the
bank mangled it."""

from __future__ import annotations

from mzpay.domain.collection.bank_lines import StatementLine
from mzpay.domain.collection.requests import CollectionRequest


def requests_named(line: StatementLine) -> list[CollectionRequest]:
    """The distinct requests of the line's business and mode that its text names."""
    return []
