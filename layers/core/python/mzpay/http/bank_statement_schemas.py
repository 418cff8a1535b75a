"""Request bodies of the bank statement routes (docs/bank-statements.md): shapes and sizes, every
string bounded. What a statement's content may hold is mzpay.domain.collection.statement_formats'."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from mzpay.domain.collection.bank_lines import MAX_DISMISS_REASON
from mzpay.domain.collection.statement_formats import MAPPING_FIELDS, MAPPING_OPTIONS
from mzpay.domain.collection.statement_text import (
    MAX_BYTES,
    MAX_DESCRIPTION,
    MAX_REFERENCE,
    MAX_ROWS,
    MAX_TRANSACTION_ID,
)
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples

Day = Annotated[str, StringConstraints(min_length=8, max_length=32)]
MappingName = Annotated[str, StringConstraints(min_length=1, max_length=32)]  # a name of MAPPING_FIELDS or options
Column = Annotated[str, StringConstraints(min_length=1, max_length=64)]

CSV_EXAMPLE = (
    "Data Movimento;Data Valor;Descrição;Referência;Débito;Crédito;Saldo;N.º Operação\n"
    "03/11/2026;03/11/2026;TRF DE RITA SITOE FT 2026/0117;;;1.500,00;48.250,00;BCI-000731\n"
)


def _a_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise ValueError("a number, e.g. 1500.00")
    return value


class StatementLineIn(Strict):
    """A line posted as JSON: a signed amount (or unsigned with credit_debit)."""

    date: Day = Field(description="The booking date, YYYY-MM-DD.")
    amount: Decimal = Field(allow_inf_nan=False, description="The amount: positive for a credit.")
    credit_debit: Literal["C", "D", "CR", "DR", "CRDT", "DBIT"] | None = None
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION)] | None = None
    reference: Annotated[str, StringConstraints(max_length=MAX_REFERENCE)] | None = None
    transaction_id: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TRANSACTION_ID)] | None = None
    value_date: Day | None = None
    balance: Decimal | None = Field(default=None, allow_inf_nan=False)

    _numbers = field_validator("amount", "balance", mode="before")(_a_number)


class BankStatementIn(Strict):
    """POST /v1/bank-statements: a statement's content (or its lines) and the mode it reconciles."""

    model_config = examples({"mode": "live", "format": "csv", "content": CSV_EXAMPLE})

    mode: Literal["test", "live"] = Field(description="The mode of the collection requests its lines pay.")
    format: Literal["csv", "camt053", "simo_erv", "lines"] = Field(
        description="csv (with `mapping`, or the default one), camt053 (CAMT.053 XML), simo_erv (SIMO's ERV "
        "settlement layout) or lines (posted in `lines`)."
    )
    content: Annotated[str, StringConstraints(min_length=1, max_length=MAX_BYTES)] | None = Field(
        default=None, description=f"The file's text (UTF-8), at most {MAX_BYTES} bytes: csv, camt053, simo_erv."
    )
    mapping: (
        Annotated[dict[MappingName, Column], Field(max_length=len(MAPPING_FIELDS) + len(MAPPING_OPTIONS))] | None
    ) = Field(default=None, description="A csv statement's columns by header name, and its options.")
    lines: Annotated[list[StatementLineIn], Field(min_length=1, max_length=MAX_ROWS)] | None = Field(
        default=None, description=f"format lines: 1 to {MAX_ROWS} lines."
    )
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")] | None = Field(
        default=None, description="The account's currency (ISO 4217) when the file names none: MZN."
    )

    def fields(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class AssignIn(Strict):
    """POST /v1/bank-statement-lines/{id}/assign: the request the line pays."""

    model_config = examples({"collection_request_id": "cr_01JD9H1J2K3M4N5P6Q7R8S9T0V"})

    collection_request_id: Annotated[str, StringConstraints(min_length=1, max_length=64)] = Field(
        description="One of the business's collection requests, of the line's mode."
    )


class DismissIn(Strict):
    """POST /v1/bank-statement-lines/{id}/dismiss: why the line is not the business's (optional)."""

    model_config = examples({"reason": "A transfer between our own accounts"})

    reason: Annotated[str, StringConstraints(min_length=1, max_length=MAX_DISMISS_REASON)] | None = None
