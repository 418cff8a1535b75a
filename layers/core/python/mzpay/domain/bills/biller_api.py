"""The billers' own API (docs/bills.md, "The billers' own API"): a key of an account that
operators registered as a biller's (Biller.account_id) changes its invoices while they are open
and unpaid (409 invoice_locked) and attaches their PDF (409 invoice_closed on a cancelled or
expired invoice); any other key is 403 not_a_biller. Invoices paid through channels reach the
biller as the signed webhook bill_payment.received."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.bills.billers import positive_amount
from mzpay.domain.bills.quotes import OPEN, Invoice
from mzpay.domain.common.bounds import MAX_NAME, MAX_TEXT
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.model import StrictText, examples

RECEIVED_EVENT = "bill_payment.received"
MAX_DOCUMENT_BYTES = 5 * 1024 * 1024
CLOSED = ("cancelled", "expired")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def not_a_biller() -> ServiceError:
    return ServiceError(
        403, "not_a_biller", "This account is not a registered biller: the billers' API is for billers."
    )


class InvoicePatch(StrictText):
    """The body of `PATCH /v1/biller/invoices/{number}`: only the fields given change."""

    model_config = examples({"amount_due": "1850.00", "due_date": "2026-12-31"})

    amount_due: str | None = Field(default=None, description="What the invoice is for.")
    due_date: str | None = Field(default=None, description="When it is due (YYYY-MM-DD).")
    customer_name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    description: str | None = Field(default=None, max_length=MAX_TEXT)

    @field_validator("amount_due", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> Any:
        return None if value is None else positive_amount(value)

    @field_validator("due_date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is not None and not _DATE.fullmatch(value):
            raise PydanticCustomError("invalid_value", "due_date must be a date, YYYY-MM-DD")
        return value

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


def check_editable(invoice: Invoice) -> None:
    """409 invoice_locked unless the invoice is open and nothing of it was paid."""
    if invoice.status != OPEN or invoice.outstanding != invoice.amount_due_value:
        raise ServiceError(
            409, "invoice_locked", f"Invoice {invoice.number} is {invoice.status} or paid in part: it cannot change."
        )


@dataclass(frozen=True)
class Document:
    content: bytes
    sha256: str

    @property
    def size(self) -> int:
        return len(self.content)


def document_of(media_type: str, content: bytes) -> Document:
    """A PDF of at most 5 MB, else 400 invalid_request."""
    if media_type != "application/pdf" or not content.startswith(b"%PDF-"):
        raise ServiceError(400, "invalid_request", "The document must be a PDF sent as application/pdf.")
    if len(content) > MAX_DOCUMENT_BYTES:
        raise ServiceError(400, "invalid_request", f"The document is over {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB.")
    return Document(content, hashlib.sha256(content).hexdigest())


def check_attachable(invoice: Invoice) -> None:
    if invoice.status in CLOSED:
        raise ServiceError(409, "invoice_closed", f"Invoice {invoice.number} is {invoice.status}.")
