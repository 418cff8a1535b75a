"""The management API's answers about reconciliation cases (mzpay.operators.reconciliation)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import (
    ACCOUNT,
    AccountId,
    Answer,
    CreatedAt,
    Currency,
    DecimalText,
    Mode,
    Paged,
    Timestamp,
    When,
    examples,
)

_CASE = {
    "object": "payout",
    "id": "01JD9M4A5B6C7D8E9F0G1H2J3K",
    "account_id": ACCOUNT,
    "mode": "live",
    "status": "in_transit",
    "amount": "250.00",
    "currency": "MZN",
    "created_at": "2026-11-20T09:00:00Z",
    "reconciliation": "gave_up",
    "waiting_since": "2026-11-23T09:00:00Z",
    "resolution": None,
}


class Resolution(Answer):
    """The audit record of an operator's resolution."""

    outcome: Literal["succeeded", "failed"] = Field(description="What the operator established.")
    note: str = Field(description="How it was established.")
    by: Literal["operator"] = Field(description="Who resolved it (the operator token's holder).")
    source_ip: str = Field(description="The address the resolution came from.")
    at: When


class ReconciliationCase(Answer):
    """A live payment, refund, payout or bill payment whose provider never answered within the horizon."""

    model_config = examples(_CASE)

    object: Literal["payment", "refund", "payout", "bill_payment"] = Field(description="What it is.")
    id: str = Field(
        description="Its provider id (provider_payment_id, provider_refund_id, provider_payout_id; "
        "a bill payment's payment_id)."
    )
    account_id: AccountId
    mode: Mode = Field(description="Always live (test traffic is answered by the simulator).")
    status: str = Field(description="Its status now (pending or in_transit while it waits).")
    amount: DecimalText = Field(description="Its amount.")
    currency: Currency = Field(description="Its currency.")
    created_at: CreatedAt
    reconciliation: Literal["gave_up", "resolved"] | None = Field(description="gave_up: waits for an operator.")
    waiting_since: Timestamp | None = Field(description="When it was handed to operators; null once resolved.")
    resolution: Resolution | None = Field(description="The resolution's audit record; null while it waits.")


class ReconciliationCaseList(Paged[ReconciliationCase]):
    """What waits for an operator, oldest first."""

    model_config = examples({"object": "list", "data": [_CASE], "has_more": False, "next_page_token": None})

    data: list[ReconciliationCase] = Field(description="The cases of this page.")
