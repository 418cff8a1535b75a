"""The name lookup answer (mzpay.domain.payouts.name_lookups, NameLookup.view): who holds a wallet or a
bank account."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import ULID, Answer, Timestamp, UpdatedAt, examples


class Candidate(Answer):
    """A possible holder of the looked-up account."""

    candidate_id: str = Field(description="Its id in this lookup (cand_1, cand_2, ...): send it to select.")
    name: str = Field(description="The holder's name.")


class NameLookup(Answer):
    """Who holds a wallet or bank account, as the provider answered."""

    model_config = examples(
        {
            "lookup_id": ULID,
            "type": "mobile_wallet",
            "status": "resolved",
            "name": "Ana Machava",
            "candidates": [{"candidate_id": "cand_1", "name": "Ana Machava"}],
            "expires_at": "2026-11-03T08:15:00Z",
            "created_at": "2026-11-03T08:00:00Z",
            "updated_at": "2026-11-03T08:00:00Z",
        }
    )

    lookup_id: str = Field(description="The lookup's id (a ULID).")
    type: Literal["mobile_wallet", "bank_transfer"] = Field(description="What was looked up.")
    status: Literal["resolved", "ambiguous", "selected"] = Field(description="ambiguous: select one candidate.")
    name: str | None = Field(description="The holder's name; null while ambiguous.")
    candidates: list[Candidate] = Field(description="The possible holders, in the provider's order.")
    expires_at: Timestamp | None = Field(description="Until when a cash deposit may start from it.")
    created_at: Timestamp = Field(description="When the lookup was made.")
    updated_at: UpdatedAt
