"""The answers' base (mzpay.answers.base) under the name the management and collection models still
import it by; it goes when they import mzpay.answers.base (and mzpay.answers.access.Scope) directly."""

from mzpay.answers.access import Scope
from mzpay.answers.base import (
    ACCOUNT,
    ULID,
    Amount,
    Answer,
    Currency,
    DecimalText,
    Mode,
    Timestamp,
    examples,
    sometimes,
)

__all__ = [
    "ACCOUNT",
    "ULID",
    "Amount",
    "Answer",
    "Currency",
    "DecimalText",
    "Mode",
    "Scope",
    "Timestamp",
    "examples",
    "sometimes",
]
