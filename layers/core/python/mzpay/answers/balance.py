"""The gateway's balance answers: GET /v1/balance (mzpay.cases.refunds.balance) and its
transactions, GET /v1/balance/transactions (mzpay.cases.balance_transactions)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import (
    Answer,
    CreatedAt,
    DecimalText,
    Mode,
    Page,
    SignedDecimalText,
    TheCurrency,
    examples,
    sometimes,
)


class CurrencyBalance(Answer):
    """The balance in one currency."""

    currency: TheCurrency
    available: SignedDecimalText = Field(description="What may be refunded or paid out now.")
    held: DecimalText = Field(description="What refunds and payouts not settled yet hold.")
    fees: DecimalText = Field(
        description="What providers reported keeping of captured payments, in total; never part of available."
    )
    service_fees: DecimalText = sometimes(
        "What this service charged on captured payments, in total (docs/pricing.md); never part of available. "
        "Present once the account was charged a service fee in the currency."
    )


class Balance(Answer):
    """The account's balances in the key's mode."""

    model_config = examples(
        {
            "mode": "test",
            "balances": [
                {"currency": "MZN", "available": "970.00", "held": "30.00", "fees": "0.00", "service_fees": "15.00"}
            ],
        }
    )

    mode: Mode = Field(description="The key's mode.")
    balances: list[CurrencyBalance] = Field(description="One per currency the account has moved money in.")


BalanceTransactionType = Literal[
    "charge",
    "refund",
    "refund_failure",
    "payout",
    "payout_failure",
    "dispute",
    "dispute_reversal",
    "bill_payment",
    "bill_payment_failure",
    "service_fee",
    "adjustment",
]


class BalanceAfter(Answer):
    """The balance of the transaction's currency right after it, in the ledger's order."""

    available: SignedDecimalText = Field(description="Available right after this transaction.")
    held: SignedDecimalText = Field(description="Held right after this transaction.")


TRANSACTION = {
    "id": "btx_01JD8Z5K3M2N4P6Q7R8S9T0VWX",
    "type": "charge",
    "kind": "payment.captured",
    "amount": "150.00",
    "fee": "4.50",
    "provider_fee": "4.50",
    "service_fee": "0.00",
    "net": "145.50",
    "held": "0.00",
    "currency": "MZN",
    "source": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "event_id": "01JD8Z5M9C3D4E5F6G7H8J9K0M",
    "created_at": "2026-11-29T08:00:00Z",
    "balance_after": {"available": "970.00", "held": "30.00"},
}


class BalanceTransaction(Answer):
    """One movement of the balance: a ledger entry as the merchant reads it. `net` is what it
    changed of available, `held` what it changed of held; `amount` is the gross, so that
    `net = amount - fee`. The nets of all transactions of a currency add up to its available
    balance, their `held` to its held balance (docs/balance.md)."""

    model_config = examples(TRANSACTION)

    id: str = Field(description="btx_ and the ledger entry's ULID.")
    type: BalanceTransactionType = Field(description="What moved the balance (docs/balance.md has the table).")
    kind: str = Field(
        description="The ledger's own name of the movement: the event type that caused it "
        "(payment.captured, refund.created, refund.succeeded, payout.paid, ...) or service_fee."
    )
    amount: SignedDecimalText = Field(description="The gross: net + fee (negative: money out of available).")
    fee: SignedDecimalText = Field(description="The fees taken: provider_fee + service_fee (negative: given back).")
    provider_fee: SignedDecimalText = Field(description="What the provider reported keeping.")
    service_fee: SignedDecimalText = Field(description="What the service charged (negative: a service fee returned).")
    net: SignedDecimalText = Field(description="The change of the available balance.")
    held: SignedDecimalText = Field(description="The change of the held balance.")
    currency: TheCurrency
    source: str = Field(description="The payment, refund, payout, dispute or bill payment it is about.")
    event_id: str = Field(description="The event that recorded it (GET /v1/events/{id}).")
    created_at: CreatedAt
    balance_after: BalanceAfter = Field(description="The currency's balance right after it, in the ledger's order.")


class BalanceTransactionList(Page[BalanceTransaction]):
    """A page of balance transactions, newest first."""

    model_config = examples({"data": [TRANSACTION], "has_more": False, "next_page_token": None})
