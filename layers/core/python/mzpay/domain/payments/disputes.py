"""Disputes (chargebacks): a payer's bank or wallet provider contests a succeeded payment, and the
disputed money is held until the dispute is decided (docs/disputes.md).

The lifecycle follows the common chargeback flow:

| status | moved by | next | ledger (amount A) |
|---|---|---|---|
| (none) | an operator opens it on a succeeded payment | needs_response | available -A, held +A |
| needs_response | the merchant submits evidence | under_review | |
| needs_response | the merchant accepts it | lost | held -A, clearing +A |
| needs_response, under_review | an operator decides `won` | won | available +A, held -A |
| needs_response, under_review | an operator decides `lost` | lost | held -A, clearing +A |

Opening takes the money whatever the balance (the provider has already taken it back): available
may go below zero, and then refunds and payouts wait until payments cover them. While a dispute
is open the payment takes no refund (409 invalid_state), and a lost dispute counts against what
may still be refunded. Evidence is given once, while the dispute needs a response; afterwards it
cannot change (409 invalid_state). won and lost are terminal.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, field_validator

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import allowed_move, refused_field
from mzpay.domain.common.model import StrictText, examples
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments.charges import Money

REASONS = ("fraudulent", "product_not_received", "product_unacceptable", "duplicate", "credit_not_processed", "general")
EVIDENCE_WINDOW = timedelta(days=7)  # the merchant's time to respond (evidence_due_by)
MAX_NOTE_LENGTH = 500
MAX_PROVIDER_REFERENCE_LENGTH = 64


class Status:
    NEEDS_RESPONSE = "needs_response"
    UNDER_REVIEW = "under_review"
    WON = "won"
    LOST = "lost"


OPEN = frozenset({Status.NEEDS_RESPONSE, Status.UNDER_REVIEW})
TERMINAL = frozenset({Status.WON, Status.LOST})

# (status, action) -> the status it leads to. Anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], str] = {
    (Status.NEEDS_RESPONSE, "submit_evidence"): Status.UNDER_REVIEW,
    (Status.NEEDS_RESPONSE, "accept"): Status.LOST,
    (Status.NEEDS_RESPONSE, "won"): Status.WON,
    (Status.NEEDS_RESPONSE, "lost"): Status.LOST,
    (Status.UNDER_REVIEW, "won"): Status.WON,
    (Status.UNDER_REVIEW, "lost"): Status.LOST,
}

EVENT_OF_STATUS = {
    Status.NEEDS_RESPONSE: "dispute.created",
    Status.UNDER_REVIEW: "dispute.evidence_submitted",
    Status.WON: "dispute.won",
    Status.LOST: "dispute.lost",
}

_ACTION_WORDS = {
    "submit_evidence": "submit evidence for",
    "accept": "accept",
    "won": "decide",
    "lost": "decide",
}


def next_status(current: str, action: str) -> str:
    """The status `action` leads to from `current`, or 409 invalid_state."""
    shown = current.replace("_", " ")
    return allowed_move(TRANSITIONS, current, action, f"Cannot {_ACTION_WORDS[action]} a dispute that is {shown}.")


class OpenDisputeRequest(StrictText):
    """The body of the management `POST /v1/disputes`: an operator opens a dispute on a payment."""

    model_config = examples(
        {
            "account_id": "01JD9W7X5Y3Z1A2B3C4D5E6F7G",
            "provider_payment_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8",
            "reason": "product_not_received",
            "amount": {"amount": "150.00", "currency": "MZN"},
            "provider_reference": "CB-2026-000981",
        }
    )

    account_id: str = Field(min_length=1, max_length=26, description="The merchant's account.")
    provider_payment_id: str = Field(min_length=1, max_length=26, description="The disputed payment.")
    reason: Literal[REASONS] = Field(description="Why the payer disputes it.")  # type: ignore[valid-type]
    amount: Money | None = Field(default=None, description="The disputed money (default: what was not refunded).")
    provider_reference: str | None = Field(
        default=None, max_length=MAX_PROVIDER_REFERENCE_LENGTH, description="The provider's id of the chargeback."
    )


class DecideDisputeRequest(StrictText):
    """The body of the management `POST /v1/disputes/{id}/decide`."""

    model_config = examples({"outcome": "won", "note": "Signed delivery note from the Maputo shop matches the order."})

    outcome: Literal["won", "lost"] = Field(description="won: the merchant keeps the money; lost: the payer gets it.")
    note: str = Field(
        min_length=1, max_length=MAX_NOTE_LENGTH, description="How it was decided (kept in the audit record)."
    )

    @field_validator("note")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not value.isprintable():
            raise ValueError("note must be printable text")
        return value


class Dispute(Entity):
    """A dispute as stored (pk DSP#<dispute_id>)."""

    dispute_id: str
    account_id: str
    mode: str
    provider_payment_id: str
    amount: str
    currency: str
    reason: str
    provider_reference: str | None = None
    callback_url: str | None = None  # the payment's: where its events are delivered
    evidence_due_by: str
    evidence: dict[str, Any] | None = None  # {text, files: [{file_type, size, sha256}], submitted_at}
    decision: dict[str, Any] | None = None  # {outcome, note, by, source_ip, at}
    created_at: str
    updated_at: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)


def evidence_due_by(opened: datetime) -> datetime:
    return opened + EVIDENCE_WINDOW


def disputed_amount(requested: Money | None, currency: str, remainder: Decimal) -> Decimal:
    """What an opened dispute takes: the amount asked (in the payment's currency, above zero and
    within what was captured and neither refunded nor charged back), or the whole remainder; 400
    invalid_currency or invalid_amount otherwise (as a refund's amount)."""
    if requested is None:
        amount = remainder
    else:
        if requested.currency != currency:
            message = f"amount.currency: a dispute is in the payment's currency ({currency})."
            raise refused_field("invalid_currency", "amount.currency", message, f"use {currency}")
        amount = Decimal(requested.amount)
    if amount <= 0 or amount > remainder:
        most = f"more than 0 and at most {format_amount(remainder, currency)} {currency}"
        raise refused_field("invalid_amount", "amount.amount", f"A dispute of this payment takes {most}.", most)
    return amount


def view(dispute: Dispute) -> dict[str, Any]:
    """The dispute as merchants and operators read it (evidence files by type, size and checksum)."""
    return {
        "dispute_id": dispute.dispute_id,
        "provider_payment_id": dispute.provider_payment_id,
        "status": dispute.status,
        "mode": dispute.mode,
        "money": {"amount": format_amount(dispute.value, dispute.currency), "currency": dispute.currency},
        "reason": dispute.reason,
        "provider_reference": dispute.provider_reference,
        "evidence_due_by": dispute.evidence_due_by,
        "evidence": dispute.evidence,
        "decision": dispute.decision,
        "created_at": dispute.created_at,
        "updated_at": dispute.updated_at,
    }
