"""Manual payments: money a payer handed over outside the gateway's providers (cash at the
counter, a deposit at a bank branch), recorded by the merchant with its evidence and confirmed
or rejected by an operator (docs/payments.md, "Manual payments").

| status | moved by | next |
|---|---|---|
| (none) | the merchant records it with evidence (`POST /v1/manual-payments`) | pending |
| pending | the merchant replaces the evidence (`PUT /v1/payments/{id}/evidence`) | pending |
| pending | the merchant cancels it (`POST /v1/payments/{id}/cancel`) | canceled |
| pending | an operator confirms it (`POST /v1/payments/{id}/confirm`) | succeeded (money in the ledger) |
| pending | an operator rejects it (`POST /v1/payments/{id}/reject`) | failed (`manual_payment_rejected`) |

Every other move is 409 invalid_state: the evidence cannot change once the payment left
pending (the spec's rule). A manual payment never reaches a provider, so it is never swept,
expired or reconciled: it waits for an operator.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, field_validator

from mzpay.domain.common.errors import ServiceError, allowed_move
from mzpay.domain.common.evidence import EvidenceRequest
from mzpay.domain.common.model import StrictText, examples
from mzpay.domain.payments.charges import Money, PaymentDetails, Text, _payment_id_rule
from mzpay.domain.payments.rules import Payment, Status

MANUAL = "manual"
MAX_REFERENCE_LENGTH = 64
MAX_NAME_LENGTH = 140
MAX_NOTE_LENGTH = 500
REJECTED = ("manual_payment_rejected", "An operator rejected the evidence of this payment.")

# (status, action) -> the status it leads to; anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], str] = {
    (Status.PENDING, "change the evidence of"): Status.PENDING,
    (Status.PENDING, "cancel"): Status.CANCELED,
    (Status.PENDING, "confirm"): Status.SUCCEEDED,
    (Status.PENDING, "reject"): Status.FAILED,
}


def is_manual(payment: Payment) -> bool:
    return (payment.source or {}).get("type") == MANUAL


def next_status(payment: Payment, action: str) -> str:
    """The status `action` leads a manual payment to, or 409 invalid_state."""
    if not is_manual(payment):
        raise ServiceError(409, "invalid_state", f"Only a manual payment can be {_done(action)}.")
    return allowed_move(TRANSITIONS, payment.status, action, f"Cannot {action} a payment that is {payment.status}.")


def _done(action: str) -> str:
    return {"confirm": "confirmed", "reject": "rejected", "cancel": "canceled"}.get(action, "given evidence")


class ManualPaymentRequest(PaymentDetails):
    """The body of `POST /v1/manual-payments`."""

    model_config = examples(
        {
            "payment_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8",
            "money": {"amount": "1500.00", "currency": "MZN"},
            "kind": "bank_deposit",
            "reference": "BCI-20261125-0042",
            "payer_name": "Ana Machava",
            "description": "Invoice 2026/118",
            "evidence": {
                "text": "Deposit slip of BCI Baixa branch, 25 Nov.",
                "files": [{"file_type": "jpg", "content_base64": "/9j/4AAQSkZJRg..."}],
            },
        }
    )

    payment_id: str | None = None  # the merchant's own id (ULID or UUID); one is made when absent
    money: Money
    kind: Literal["cash", "bank_deposit"]
    reference: str | None = Field(default=None, min_length=1, max_length=MAX_REFERENCE_LENGTH)
    payer_name: Text | None = Field(default=None, max_length=MAX_NAME_LENGTH)
    description: Text | None = Field(default=None, max_length=MAX_NAME_LENGTH)
    evidence: EvidenceRequest

    _payment_id = field_validator("payment_id")(_payment_id_rule)

    @property
    def value(self) -> Decimal:
        return Decimal(self.money.amount)

    def source(self) -> dict[str, Any]:
        """The payment's source as stored and shown (the evidence is kept beside it)."""
        details = {"kind": self.kind, "reference": self.reference, "payer_name": self.payer_name}
        return {"type": MANUAL, MANUAL: {k: v for k, v in details.items() if v is not None}}


class OperatorNote(StrictText):
    """The body of the management `POST /v1/payments/{id}/confirm` and `.../reject`."""

    model_config = examples({"note": "BCI statement of 25 Nov shows the deposit of 1500.00 MZN."})

    note: str = Field(min_length=1, max_length=MAX_NOTE_LENGTH, description="Why (kept in the audit record).")
