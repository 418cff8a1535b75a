"""The collection API's answers about a customer's transactions (mzpay.domain.partners.transactions:
CustomerTransaction.result, history_item), as mzpay.collection.transactions returns them. Money is
a JSON number (`Number`), as everywhere on the collection surface."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import (
    Answer,
    Currency,
    ListOf,
    MadeAt,
    Number,
    TheCurrency,
    Timestamp,
    examples,
    sometimes,
)

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


class BillPaid(Answer):
    """A pay_bill's bill: what the gateway's bill payment paid (docs/partners.md, "pay_bill")."""

    payment_id: str | None = Field(description="The gateway's bill payment (GET /v1/bill-payments/{id}); null: none.")
    biller_id: str = Field(description="The biller.")
    product_id: str = Field(description="The bill product.")
    reference: str = Field(description="The meter, account, phone or invoice number paid (the body's destination).")
    customer_name: str = Field(description="The customer the biller knows for the reference.")
    amount: Number = Field(description="What the reference is credited with (the body's amount).")
    total: Number = Field(description="What the customer's method was charged: amount + a payer's fee - discount.")
    status: Literal["pending", "succeeded", "failed"] | None = Field(
        description="The bill payment's status; null: no bill was paid (the charge did not succeed, or a refusal)."
    )
    token: str | None = Field(description="A prepaid product's 20-digit token once succeeded; else null.")
    receipt_number: str | None = Field(description="The biller's receipt number once succeeded; else null.")
    failure_code: str | None = Field(description="Why the bill was not paid; else null.")
    refund_id: str | None = Field(description="The gateway refund giving the charge back when it was not; else null.")


BILL_EXAMPLE = {
    "payment_id": "4c1f8a2e-6d3b-5e7f-9a0b-1c2d3e4f5a6b",
    "biller_id": "01M8A0MH8BAHW8JZV956J9ME1Z",
    "product_id": "01M8A0MH8BAHW8JZV956J9ME20",
    "reference": "04000000001",
    "customer_name": "Ana Machava",
    "amount": 500.0,
    "total": 505.0,
    "status": "succeeded",
    "token": "12345678901234567890",
    "receipt_number": None,
    "failure_code": None,
    "refund_id": None,
}


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
        {
            "object": "transaction",
            "transaction_id": "ins_01JD9K4C7D8E9F0G1H2J3K4M5N",
            "transaction_type": "pay_bill",
            "status": "succeeded",
            "balance": None,
            "authorization": None,
            "processed_at": "2026-11-02T10:00:01Z",
            "error_code": None,
            "error_message": None,
            "bill": BILL_EXAMPLE,
        },
    )

    object: TransactionObject
    transaction_id: str = Field(description="The transaction's id (ins_...): its instruction_id in the history.")
    transaction_type: Literal[
        "check_balance", "transfer", "deposit", "pay_in", "pay_out", "pay_bill", "get_authorization", "validata"
    ] = Field(description="What was done.")
    status: Literal["pending", "succeeded"] = Field(description="pending: money moving through the gateway.")
    balance: WalletBalance | None = Field(description="The balance; check_balance only, else null.")
    authorization: Authorization | None = Field(description="The code; get_authorization only, else null.")
    processed_at: ProcessedAt
    error_code: None = Field(description="Always null here: a declined transaction is 400 transaction_failed.")
    error_message: None = Field(description="Always null here.")
    bill: BillPaid = sometimes("A pay_bill's bill (its token or receipt); absent for the other types.")


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
        "BALANCE_QUERY", "TRANSFER", "DEPOSIT", "PAY_IN", "PAY_OUT", "PAY_BILL", "AUTHORIZATION", "VALIDATION"
    ] = Field(description="What was done, upper-case (the process answer's lower-case names differ).")
    amount: Number | None = Field(description="The amount moved, a JSON number; null for a query.")
    currency: Currency = Field(description="The currency: MZN.")
    description: str | None = Field(description="The description given; null: none.")
    destination: str | None = Field(
        description="The wallet paid out to, when given, or a pay_bill's meter, account or invoice; else null."
    )
    status: Literal["pending", "succeeded", "failed"] = Field(description="Declined transactions are kept: failed.")
    role: Literal["receiver", "sender"] = Field(description="receiver: the business was paid (pay_in).")
    payment_method_id: str = Field(description="The customer's payment method.")
    partner_id: str = Field(description="Its partner.")
    created_at: MadeAt
    processed_at: ProcessedAt
    bill: BillPaid = sometimes("A pay_bill's bill (its token or receipt, as the gateway has it now); else absent.")


class TransactionList(ListOf[TransactionItem]):
    """A page of a customer's transactions, newest first."""

    model_config = examples({"object": "list", "data": [_ITEM], "has_more": False})

    data: list[TransactionItem] = Field(description="The transactions of this page.")


class TransactionRead(Answer):
    """A customer's transaction."""

    model_config = examples({"object": "transaction", "transaction": _ITEM})

    object: TransactionObject
    transaction: TransactionItem = Field(description="The transaction.")
