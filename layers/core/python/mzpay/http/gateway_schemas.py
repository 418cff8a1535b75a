"""Request bodies of the gateway API (merchants) that no domain module owns: capture, complete-action,
select a name-lookup candidate (rolling a key: http.key_schemas). Kept apart from the operators'
bodies so a gateway function imports only these."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.common.bounds import Code
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples


class CaptureMoney(Strict):
    model_config = examples({"amount": "60.00", "currency": "MZN"})

    amount: Code
    currency: Code | None = None


class Capture(Strict):
    """The amount to capture, at most the authorised amount; none: all of it."""

    model_config = examples({"amount": {"amount": "60.00", "currency": "MZN"}})

    amount: CaptureMoney | None = None


class CompleteAction(Strict):
    model_config = examples({"otp": "123456"})

    otp: str | None = Field(default=None, max_length=12)
    amount: Code | None = None  # open-amount payments: what the payer chose


class SelectCandidate(Strict):
    model_config = examples({"candidate_id": "cand_1"})

    candidate_id: str = Field(min_length=1, max_length=64)
