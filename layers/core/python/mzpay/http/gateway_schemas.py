"""Request bodies of the gateway API (merchants) that no domain module owns: capture, complete-action,
roll an API key, select a name-lookup candidate. Kept apart from the operators' bodies so a gateway
function imports only these."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.bounds import Code
from mzpay.domain.keys import MAX_ROLL_OVERLAP_SECONDS, ROLL_OVERLAP_SECONDS
from mzpay.domain.model import StrictText as Strict


class RollApiKey(Strict):
    overlap_seconds: int = Field(default=ROLL_OVERLAP_SECONDS, ge=0, le=MAX_ROLL_OVERLAP_SECONDS)


class CaptureMoney(Strict):
    amount: Code
    currency: Code | None = None


class Capture(Strict):
    amount: CaptureMoney | None = None


class CompleteAction(Strict):
    otp: str | None = Field(default=None, max_length=12)
    amount: Code | None = None  # open-amount payments: what the payer chose


class SelectCandidate(Strict):
    candidate_id: str = Field(min_length=1, max_length=64)
