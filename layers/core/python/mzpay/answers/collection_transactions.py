"""The collection API's answers about a customer's transactions (mzpay.domain.partners.transactions:
CustomerTransaction.result, history_item), as mzpay.collection.transactions returns them. Money is
a JSON number (`Number`), as everywhere on the collection surface."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import Answer, Currency, ListOf, MadeAt, Number, TheCurrency, Timestamp, examples

# ---------------------------------------------------------------- transactions
# Keys that answers of this module share, described once.
ProcessedAt = Annotated[Timestamp, Field(description="When it was processed.")]
TransactionObject = Annotated[Literal["transaction"], Field(description="Always transaction.")]


class WalletBalance(Answer):
    """A wallet's balance (test mode: the simulator's)."""

    available: Number = Field(description="What may be spent.")
    pending: Number = Field(description="What is not settled yet.")
    currency: TheCurrency


class Authorization(Answer):
    """An authorization code (test mode: the simulator's)."""

    code: str = Field(description="The code.")
    expires_in: int = Field(description="Seconds it is valid for.")


class TransactionResult(Answer):
    """A transaction processed (a declined one is answered 400 transaction_failed instead)."""

    model_config = examples(
        {
            "object": "transaction",
            "transaction_id": "ins_01JD9K4A5B6C7D8E9F0G1H2J3K",
            "transaction_type": "pay_in",
            "status": "pending",
            "balance": None,
            "authorization": None,
            "processed_at": "2026-11-02T10:00:01Z",
            "error_code": None,
            "error_message": None,
        },
        {
            "object": "transaction",
            "transaction_id": "ins_01JD9K4B6C7D8E9F0G1H2J3K4M",
            "transaction_type": "check_balance",
            "status": "succeeded",
            "balance": {"available": 10000.0, "pending": 0.0, "currency": "MZN"},
            "authorization": None,
            "processed_at": "2026-11-02T10:00:01Z",
            "error_code": None,
            "error_message": None,
        },
    )

    object: TransactionObject
    transaction_id: str = Field(description="The transaction's id (ins_...): its instruction_id in the history.")
    transaction_type: Literal[
        "check_balance", "transfer", "deposit", "pay_in", "pay_out", "get_authorization", "validata"
    ] = Field(description="What was done (pay_bill is refused before anything is done).")
    status: Literal["pending", "succeeded"] = Field(description="pending: money moving through the gateway.")
    balance: WalletBalance | None = Field(description="The balance; check_balance only, else null.")
    authorization: Authorization | None = Field(description="The code; get_authorization only, else null.")
    processed_at: ProcessedAt
    error_code: None = Field(description="Always null here: a declined transaction is 400 transaction_failed.")
    error_message: None = Field(description="Always null here.")


_ITEM = {
    "reference": "01JD9K4C7D8E9F0G1H2J3K4M5N",
    "instruction_id": "ins_01JD9K4A5B6C7D8E9F0G1H2J3K",
    "transaction_type": "PAY_IN",
    "amount": 150.0,
    "currency": "MZN",
    "description": "Top-up",
    "destination": None,
    "status": "succeeded",
    "role": "receiver",
    "payment_method_id": "pm_01JD9K3A4B5C6D7E8F9G0H1J2K",
    "partner_id": "ptn_mpesa",
    "created_at": "2026-11-02T10:00:00Z",
    "processed_at": "2026-11-02T10:00:01Z",
}


class TransactionItem(Answer):
    """A transaction in a customer's history (a pending money movement as the gateway has it now)."""

    reference: str = Field(description="The gateway payment or payout that moved the money, else instruction_id.")
    instruction_id: str = Field(description="The transaction's id (ins_...).")
    transaction_type: Literal[
        "BALANCE_QUERY", "TRANSFER", "DEPOSIT", "PAY_IN", "PAY_OUT", "AUTHORIZATION", "VALIDATION"
    ] = Field(description="What was done, upper-case (the process answer's lower-case names differ).")
    amount: Number | None = Field(description="The amount moved, a JSON number; null for a query.")
    currency: Currency = Field(description="The currency: MZN.")
    description: str | None = Field(description="The description given; null: none.")
    destination: str | None = Field(description="The wallet paid out to, when given; else null.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="Declined transactions are kept: failed.")
    role: Literal["receiver", "sender"] = Field(description="receiver: the business was paid (pay_in).")
    payment_method_id: str = Field(description="The customer's payment method.")
    partner_id: str = Field(description="Its partner.")
    created_at: MadeAt
    processed_at: ProcessedAt


class TransactionList(ListOf[TransactionItem]):
    """A page of a customer's transactions, newest first."""

    model_config = examples({"object": "list", "data": [_ITEM], "has_more": False})

    data: list[TransactionItem] = Field(description="The transactions of this page.")


class TransactionRead(Answer):
    """A customer's transaction."""

    model_config = examples({"object": "transaction", "transaction": _ITEM})

    object: TransactionObject
    transaction: TransactionItem = Field(description="The transaction.")
