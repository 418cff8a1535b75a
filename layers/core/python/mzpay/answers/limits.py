"""The management API's answers about an account's own limits: rate limits (mzpay.cases.rate_limits),
charge ceilings (mzpay.operators.psps), payout limits (mzpay.cases.payouts) and the partner flag
(mzpay.cases.cash_deposits)."""

from __future__ import annotations

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AccountId, Answer, Currency, Mode, Timestamp, examples
from mzpay.answers.management import Ceilings


class RateLimits(Answer):
    """An account's own rate limits, replacing the stack's defaults for it."""

    model_config = examples({"account_id": ACCOUNT, "per_key": 50, "per_account": 200})

    account_id: AccountId
    per_key: int = Field(description="Requests per second per API key.")
    per_account: int = Field(description="Requests per second of the account, all keys together.")


class PartnerFlag(Answer):
    """Whether an account is a partner agent network (docs/deposits.md)."""

    model_config = examples({"account_id": ACCOUNT, "partner": True, "updated_at": "2026-11-25T08:00:00Z"})

    account_id: AccountId
    partner: bool = Field(description="true: its keys may open cash-deposit intents and confirm deposits.")
    updated_at: Timestamp = Field(description="When the account last changed.")


_MODE_LIMITS = {"account_id": ACCOUNT, "mode": "live"}


class ModeLimits(Answer):
    """An account's limits of one mode: whose, and which mode (AccountLimits, PayoutLimits)."""

    account_id: AccountId
    mode: Mode = Field(description="The mode they apply to.")


class AccountLimits(ModeLimits):
    """An account's charge ceilings in one mode, replacing the previous ones."""

    model_config = examples(
        {**_MODE_LIMITS, "currencies": ["MZN"], "per_transaction": {"MZN": "50000.00"}, "daily": {"MZN": "500000.00"}}
    )

    currencies: list[Currency] | None = Field(description="The currencies it may charge in; null: any.")
    per_transaction: Ceilings = Field(description="Per currency, the most one charge may be.")
    daily: Ceilings = Field(description="Per currency, the most the charges of a day (Maputo) may add up to.")


class PayoutLimits(ModeLimits):
    """An account's payout limits in one mode, replacing the previous ones."""

    model_config = examples(
        {
            **_MODE_LIMITS,
            "per_transaction": {"MZN": "100000.00"},
            "daily": {"MZN": "1000000.00"},
            "beneficiary_daily": {"MZN": "250000.00"},
            "approval_threshold": {"MZN": "50000.00"},
            "debit_daily": {"MZN": "2000000.00"},
        }
    )

    per_transaction: Ceilings = Field(description="Per currency, the most one payout may be.")
    daily: Ceilings = Field(description="Per currency, the most the payouts of a day may add up to.")
    beneficiary_daily: Ceilings = Field(description="Per currency, the most one beneficiary may get in a day.")
    approval_threshold: Ceilings = Field(
        description="Per currency, above which amount a payout or a payout batch waits for approval."
    )
    debit_daily: Ceilings = Field(
        description="Per currency, the most the payout batches released in a day may add up to (rule debit_daily)."
    )
