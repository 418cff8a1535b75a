"""The gateway's payout batch answer (mzpay.domain.payout_batches.batch_view); the conventions are
mzpay.openapi.gateway's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.openapi.gateway_more import ULID, Amount, Answer, Mode, Timestamp, examples, sometimes

BatchStatus = Literal["open", "closed", "awaiting_approval", "released", "sent", "rejected"]


class LineFieldError(Answer):
    """One failed field of a refused line, as POST /payouts names it."""

    field: str = Field(description="The field in the line, in dot notation (money.amount).")
    code: str = Field(description="The field's code (invalid_phone, required, ...).")
    message: str = Field(description="What the field must be.")


class LineRefusal(Answer):
    """A line of the batch that will not be paid, and why."""

    line: int = Field(description="Its place in `lines` (1 is the first).")
    payout_id: str | None = Field(description="The line's payout_id when it had one.")
    code: str = Field(description="The code POST /payouts would answer (invalid_phone, limit_exceeded, ...).")
    message: str = Field(description="The refusal in plain words.")
    rule: str | None = Field(description="For limit_exceeded, the ceiling (per_transaction, daily, ...); else null.")
    errors: list[LineFieldError] = Field(description="The failed fields (empty when the refusal names none).")


class BatchPayout(Answer):
    """What sending made of one accepted line."""

    line: int = Field(description="Its place in `lines`.")
    payout_id: str | None = Field(description="The line's payout_id.")
    provider_payout_id: str | None = Field(description="The payout made (read it at GET /v1/payouts/{id}); or null.")
    refusal: LineRefusal | None = Field(
        description="Why sending refused the line (e.g. insufficient_balance); else null."
    )


class PayoutBatch(Answer):
    """A payout batch: its status, totals, the report of refused lines and, once sent, its payouts."""

    model_config = examples(
        {
            "object": "payout_batch",
            "batch_id": ULID,
            "reference": "Salaries 2026-11",
            "status": "sent",
            "mode": "live",
            "total": {"amount": "3000.00", "currency": "MZN"},
            "lines": 3,
            "accepted": 2,
            "refused": 1,
            "sent": 2,
            "failed": 0,
            "failure_message": None,
            "created_at": "2026-11-03T08:00:00Z",
            "closed_at": "2026-11-03T08:01:00Z",
            "released_at": "2026-11-03T08:02:00Z",
            "sent_at": "2026-11-03T08:02:01Z",
            "report": [
                {
                    "line": 2,
                    "payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6X9",
                    "code": "invalid_phone",
                    "message": "destination.mobile_wallet.phone_number: not a Mozambican mobile number.",
                    "rule": None,
                    "errors": [
                        {
                            "field": "destination.mobile_wallet.phone_number",
                            "code": "invalid_phone",
                            "message": "not a Mozambican mobile number",
                        }
                    ],
                }
            ],
            "payouts": [
                {
                    "line": 1,
                    "payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8",
                    "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9A",
                    "refusal": None,
                },
                {
                    "line": 3,
                    "payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6XA",
                    "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9B",
                    "refusal": None,
                },
            ],
        }
    )

    object: Literal["payout_batch"] = Field(description="Always payout_batch.")
    batch_id: str = Field(description="The gateway's id of the batch (a ULID): the {batch_id} of the routes.")
    reference: str | None = Field(description="Your label for the batch, when given.")
    status: BatchStatus = Field(description="Where the batch is in its lifecycle (docs/payouts.md).")
    mode: Mode = Field(description="test or live.")
    total: Amount = Field(description="The sum of the accepted lines: what the release debits.")
    lines: int = Field(description="How many lines were uploaded.")
    accepted: int = Field(description="How many lines passed every rule.")
    refused: int = Field(description="How many lines the report refuses.")
    sent: int | None = Field(description="Once sent, how many payouts were made; else null.")
    failed: int | None = Field(description="Once sent, how many accepted lines sending refused; else null.")
    failure_message: str | None = Field(description="The approver's reason of a rejected batch; else null.")
    created_at: Timestamp = Field(description="When the batch was uploaded.")
    closed_at: Timestamp | None = Field(description="When it was closed.")
    released_at: Timestamp | None = Field(description="When it was released (after approval, when it needed one).")
    sent_at: Timestamp | None = Field(description="When its last payout was made.")
    report: list[LineRefusal] = sometimes("The refused lines with their codes, in upload order (not in events).")
    payouts: list[BatchPayout] | None = sometimes(
        "Once sent, each accepted line's payout; before, null (not in events)."
    )
