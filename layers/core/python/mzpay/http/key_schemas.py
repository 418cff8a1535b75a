"""The body of POST /v1/api-keys/{key_id}/roll (gateway access group)."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.keys import MAX_ROLL_OVERLAP_SECONDS, ROLL_OVERLAP_SECONDS
from mzpay.domain.model import StrictText as Strict


class RollApiKey(Strict):
    overlap_seconds: int = Field(default=ROLL_OVERLAP_SECONDS, ge=0, le=MAX_ROLL_OVERLAP_SECONDS)
