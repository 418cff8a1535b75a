"""The gateway's balance answer (GET /v1/balance, mzpay.cases.refunds.balance)."""

from __future__ import annotations

from pydantic import Field

from mzpay.answers.base import Answer, DecimalText, Mode, SignedDecimalText, TheCurrency, examples, sometimes


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
