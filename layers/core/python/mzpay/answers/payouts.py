"""The answers about payouts (mzpay.domain.payouts.rules.payout_view) and payout batches
(mzpay.domain.payouts.batches.batch_view). A payout batch is the management API's answer too (its
approvals): it keeps its `object` with that API's answers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import ULID, Amount, Answer, Page, TestOrLive, Timestamp, examples, sometimes
from mzpay.answers.partners import PartyBank
from mzpay.answers.payments import SourceWallet

PayoutStatus = Literal["waiting_for_approval", "pending", "in_transit", "paid", "failed", "canceled", "rejected"]
BatchStatus = Literal["open", "closed", "awaiting_approval", "released", "sent", "rejected"]


# ---------------------------------------------------------------- payouts
class DestinationWallet(SourceWallet):
    """The recipient's mobile wallet."""

    phone_number: str = Field(description="The recipient's number in E.164, shown in full.")


class DestinationBank(PartyBank):
    """The beneficiary's bank account."""


class DestinationManual(Answer):
    """Paid by you outside the gateway."""

    reference: str = sometimes("Your reference to reconcile it with, when you sent one.")


class DestinationCrypto(Answer):
    """A crypto address."""

    address: str = Field(description="The address.")
    network: str = Field(description="The chain.")


class DestinationCheque(Answer):
    """A cheque."""

    payee_name: str = Field(description="Whom the cheque is made out to.")
    delivery_address: str = sometimes("Where it is delivered, when you sent one.")


class PayoutDestination(Answer):
    """Where the money goes: `type` plus the sub-object named after it."""

    type: Literal["mobile_wallet", "bank_transfer", "manual", "crypto", "cheque"] = Field(description="The kind.")
    mobile_wallet: DestinationWallet = sometimes("The wallet; mobile_wallet payouts.")
    bank_transfer: DestinationBank = sometimes("The bank account; bank_transfer payouts.")
    manual: DestinationManual = sometimes("The manual payout's details, when sent.")
    crypto: DestinationCrypto = sometimes("The address; crypto payouts.")
    cheque: DestinationCheque = sometimes("The cheque; cheque payouts.")


_PAYOUT: dict[str, Any] = {
    "payout_id": "01JD9B7E8F9G0H1J2K3M4N5P6Q",
    "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9A",
    "status": "pending",
    "money": {"amount": "2500.00", "currency": "MZN"},
    "destination": {
        "type": "bank_transfer",
        "bank_transfer": {"name": "Ana Machava", "account": "*****************0237"},
    },
    "failure_code": None,
    "failure_message": None,
    "created_at": "2026-11-03T08:00:00Z",
    "processed_at": "2026-11-03T08:00:00Z",
}


class Payout(Answer):
    """A payout (made by either route, read or canceled); its events carry it too."""

    model_config = examples(_PAYOUT)

    payout_id: str = Field(description="Your id of the payout (ULID or UUID).")
    provider_payout_id: str = Field(
        description="The gateway's id of the payout (a ULID): the {payout_id} of the routes."
    )
    status: PayoutStatus = Field(description="Where the payout is in its lifecycle (docs/payouts.md).")
    money: Amount = Field(description="The amount paid out.")
    destination: PayoutDestination = Field(description="Where the money goes (a bank account masked).")
    failure_code: str | None = Field(description="Why it failed or was rejected (e.g. payout_declined); else null.")
    failure_message: str | None = Field(description="The failure, or the approver's reason, in plain words.")
    created_at: Timestamp = Field(description="When the payout was created.")
    processed_at: Timestamp = Field(description="When the payout last changed.")
    customer_id: str = sometimes("Your customer the payout is for (?customer_id=), if named.")


# ---------------------------------------------------------------- payout batches
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
    mode: TestOrLive
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


class PayoutList(Page[Payout]):
    """A page of payouts, newest first (GET /v1/payouts)."""

    model_config = examples({"data": [_PAYOUT], "has_more": False, "next_page_token": None})
