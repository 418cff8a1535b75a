"""The gateway's answers for PSP transactions (mzpay.domain.psp_transactions.PspTransaction.view)
and cash deposits at partner agents; the conventions are mzpay.openapi.gateway's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.openapi.gateway_more import ULID, Amount, Answer, Timestamp, examples, sometimes

Network = Literal["mpesa", "emola", "mkesh"]


class PartyWallet(Answer):
    """A mobile wallet that paid or was paid."""

    network: Network = Field(description="The wallet's network.")
    phone_number: str = Field(description="The number in E.164, shown in full.")


class PartyBank(Answer):
    """A bank account that paid or was paid."""

    name: str = Field(description="The account holder's name.")
    account: str = Field(description="The NIB, every digit but the last four shown as *.")


class Party(Answer):
    """Who paid (a payment's source) or was paid (a payout's destination)."""

    type: Literal["mobile_wallet", "bank_transfer"] = Field(description="The kind.")
    mobile_wallet: PartyWallet = sometimes("The wallet; type mobile_wallet.")
    bank_transfer: PartyBank = sometimes("The bank account; type bank_transfer.")


PSP_PAYMENT = {
    "object": "psp_transaction",
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

    object: Literal["psp_transaction"] = Field(description="Always psp_transaction.")
    transaction_id: str = Field(description="The gateway's id of the transaction (a ULID).")
    type: Literal["payment", "payout", "refund"] = Field(description="What the PSP moved.")
    status: Literal["recorded"] = Field(description="Always recorded: the money already moved at the PSP.")
    originator_reference: str = Field(description="The PSP's own reference, unique per account and mode.")
    money: Amount = Field(description="How much.")
    source: Party = sometimes("Who paid; payments.")
    refunded: Amount = sometimes("How much of the payment its refunds gave back so far; payments.")
    destination: Party = sometimes("Who was paid; payouts.")
    original_reference: str = sometimes("The refunded payment's originator_reference; refunds.")
    original_transaction_id: str = sometimes("The refunded payment's transaction_id; refunds.")
    occurred_at: Timestamp = Field(description="When the PSP moved the money (as it said; else when recorded).")
    description: str | None = Field(description="The PSP's description, at most 140 characters; else null.")
    metadata: dict[str, str] = Field(description="The PSP's metadata ({} when none).")
    created_at: Timestamp = Field(description="When the gateway recorded it.")


class PspTransactionList(Answer):
    """A page of PSP transactions, newest first."""

    model_config = examples({"object": "list", "data": [PSP_PAYMENT], "has_more": False, "next_page_token": None})

    object: Literal["list"] = Field(description="Always list.")
    data: list[PspTransaction] = Field(description="The transactions of this page.")
    has_more: bool = Field(description="Whether another page follows.")
    next_page_token: str | None = Field(description="Pass as page_token for the next page; null on the last.")
