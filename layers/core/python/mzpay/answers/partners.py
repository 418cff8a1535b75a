"""The gateway's answers for PSP transactions (mzpay.domain.psp.transactions.PspTransaction.view)
and cash deposits at partner agents; the conventions are mzpay.answers.base's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import (
    ULID,
    Amount,
    Answer,
    FailureInWords,
    Page,
    Timestamp,
    UpdatedAt,
    WhyFailed,
    YourMetadata,
    examples,
    sometimes,
)
from mzpay.answers.payments import SourceWallet


class PartyWallet(SourceWallet):
    """A mobile wallet that paid or was paid."""

    phone_number: str = Field(description="The number in E.164, shown in full.")


class PartyBank(Answer):
    """A bank account that paid or was paid."""

    name: str = Field(description="The account holder's name.")
    account: str = Field(description="The NIB, every digit but the last four shown as *.")


class Counterparty(Answer):
    """Who paid (a payment's source) or was paid (a payout's destination)."""

    type: Literal["mobile_wallet", "bank_transfer"] = Field(description="The kind.")
    mobile_wallet: PartyWallet = sometimes("The wallet; type mobile_wallet.")
    bank_transfer: PartyBank = sometimes("The bank account; type bank_transfer.")


PSP_PAYMENT = {
    "transaction_id": ULID,
    "type": "payment",
    "status": "recorded",
    "originator_reference": "PSP-2026-000123",
    "money": {"amount": "250.00", "currency": "MZN"},
    "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
    "refunded": {"amount": "0.00", "currency": "MZN"},
    "occurred_at": "2026-11-25T08:30:00Z",
    "description": None,
    "metadata": {},
    "created_at": "2026-11-25T08:30:02Z",
}


class PspTransaction(Answer):
    """A transaction a PSP recorded: a payment, a payout or a refund of an earlier payment."""

    model_config = examples(PSP_PAYMENT)

    transaction_id: str = Field(description="The gateway's id of the transaction (a ULID).")
    type: Literal["payment", "payout", "refund"] = Field(description="What the PSP moved.")
    status: Literal["recorded"] = Field(description="Always recorded: the money already moved at the PSP.")
    originator_reference: str = Field(description="The PSP's own reference, unique per account and mode.")
    money: Amount = Field(description="How much.")
    source: Counterparty = sometimes("Who paid; payments.")
    refunded: Amount = sometimes("How much of the payment its refunds gave back so far; payments.")
    destination: Counterparty = sometimes("Who was paid; payouts.")
    original_reference: str = sometimes("The refunded payment's originator_reference; refunds.")
    original_transaction_id: str = sometimes("The refunded payment's transaction_id; refunds.")
    occurred_at: Timestamp = Field(description="When the PSP moved the money (as it said; else when recorded).")
    description: str | None = Field(description="The PSP's description, at most 140 characters; else null.")
    metadata: dict[str, str] = Field(description="The PSP's metadata ({} when none).")
    created_at: Timestamp = Field(description="When the gateway recorded it.")


class PspTransactionList(Page[PspTransaction]):
    """A page of PSP transactions, newest first."""

    model_config = examples({"data": [PSP_PAYMENT], "has_more": False, "next_page_token": None})


class DepositWallet(SourceWallet):
    """The payer's wallet a cash deposit credits."""

    phone_number: str = Field(description="The payer's number in E.164.")


# What the examples of an intent and of the deposit confirmed from it share, in the answers' order.
_CASH = {
    "money": {"amount": "500.00", "currency": "MZN"},
    "wallet": {"network": "mpesa", "phone_number": "+258841234567"},
    "name": "Ana Machava",
}


class CashDepositIntent(Answer):
    """An agent's intent to deposit cash into the wallet a name lookup found."""

    model_config = examples(
        {
            "intent_id": ULID,
            "lookup_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWY",
            "status": "open",
            **_CASH,
            "deposit_id": None,
            "metadata": {},
            "expires_at": "2026-11-25T08:45:00Z",
            "created_at": "2026-11-25T08:31:00Z",
        }
    )

    intent_id: str = Field(description="The intent's id (a ULID).")
    lookup_id: str = Field(description="The name lookup it started from.")
    status: Literal["open", "used"] = Field(description="used: its deposit was confirmed.")
    money: Amount = Field(description="The cash to deposit.")
    wallet: DepositWallet = Field(description="Where it goes.")
    name: str = Field(description="The wallet holder's name, as the provider gave it (masked by some).")
    deposit_id: str | None = Field(description="The deposit confirmed from it; null while open.")
    metadata: YourMetadata
    expires_at: Timestamp = Field(description="After this the deposit is refused: look the payer up again.")
    created_at: Timestamp = Field(description="When it was opened.")


_DEPOSIT = {
    "deposit_id": ULID,
    "intent_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWZ",
    "status": "pending",
    **_CASH,
    "failure_code": None,
    "failure_message": None,
    "metadata": {},
    "created_at": "2026-11-25T08:32:00Z",
    "updated_at": "2026-11-25T08:32:00Z",
}


class CashDeposit(Answer):
    """Cash taken by a partner's agent and paid into a payer's wallet."""

    model_config = examples(_DEPOSIT)

    deposit_id: str = Field(description="The deposit's id: also the id of the partner's payout that carries it.")
    intent_id: str = Field(description="The intent it confirmed.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="succeeded: the wallet was credited.")
    money: Amount = Field(description="The cash deposited.")
    wallet: DepositWallet = Field(description="The wallet credited.")
    name: str = Field(description="The wallet holder's name.")
    failure_code: WhyFailed
    failure_message: FailureInWords
    metadata: YourMetadata
    created_at: Timestamp = Field(description="When it was confirmed.")
    updated_at: UpdatedAt


class CashDepositList(Page[CashDeposit]):
    """A page of cash deposits, newest first (GET /v1/cash-deposits)."""

    model_config = examples({"data": [_DEPOSIT], "has_more": False, "next_page_token": None})
