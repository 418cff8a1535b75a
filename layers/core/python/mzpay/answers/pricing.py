"""The management API's answers about an account's fee schedule (mzpay.operators.pricing; docs/pricing.md)."""

from __future__ import annotations

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AccountId, Answer, Currency, DecimalText, Timestamp, examples
from mzpay.domain.payments.pricing import EXAMPLE_RULE, PricedMethod


class FeeRule(Answer):
    """The fee of payments by one method (a wallet's network) in one currency."""

    method: PricedMethod = Field(description="A mobile wallet's network, or another payment method.")
    currency: Currency = Field(description="The payments' currency; fixed, minimum and maximum are in it.")
    percent: DecimalText = Field(description="Percent of the captured amount (0 to 100).")
    fixed: DecimalText = Field(description="Added to the percentage.")
    minimum: DecimalText = Field(description="The least fee (still never more than the amount).")
    maximum: DecimalText | None = Field(description="The most fee; null: no ceiling but the amount.")


class FeeSchedule(Answer):
    """An account's fee schedule: the service's own fee on each payment captured (both modes)."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "default": False,
            "fees": [EXAMPLE_RULE],
            "updated_at": "2026-11-29T08:00:00Z",
        }
    )

    account_id: AccountId
    default: bool = Field(description="true: the account has no schedule of its own and the default one applies.")
    fees: list[FeeRule] = Field(description="One rule per (method, currency); a payment without one pays no fee.")
    updated_at: Timestamp | None = Field(description="When an operator last set it; null for the default.")
