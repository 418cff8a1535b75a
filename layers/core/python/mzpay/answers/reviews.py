"""The management API's answers about business accounts' review records
(mzpay.collection.onboarding.reviews)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, BusinessAccountId, ListObject, MadeAt, examples
from mzpay.answers.collection_accounts import AccountFieldProblem, BusinessStatus
from mzpay.answers.management_audit import Actor


# The collection API's field problem, under the name the management document gives it.
class ReviewedField(AccountFieldProblem):
    """A field problem a rejection lists."""


class BusinessAccountReview(Answer):
    """A reviewer's decision on a business account."""

    id: str = Field(description="The record's id (rev_...).")
    account_id: BusinessAccountId
    action: Literal["approve", "reject", "suspend", "reactivate"] = Field(description="The decision.")
    from_status: BusinessStatus = Field(description="The account's status before.")
    to_status: BusinessStatus = Field(description="Its status after.")
    reason: str = Field(description="The reason of a rejection or suspension; empty otherwise.")
    errors: list[ReviewedField] = Field(description="The field problems of a rejection; empty otherwise.")
    reviewer: Actor = Field(description="The reviewer.")
    source_ip: str = Field(description="The address the decision came from.")
    at: MadeAt


class BusinessAccountReviews(Answer):
    """A business account's last 100 review decisions, newest first."""

    model_config = examples(
        {
            "object": "list",
            "data": [
                {
                    "id": "rev_01JD9F1G2H3J4K5M6N7P8Q9R0S",
                    "account_id": "acct_loja_ana",
                    "action": "reject",
                    "from_status": "pending_review",
                    "to_status": "rejected",
                    "reason": "The NIB does not match the bank declaration.",
                    "errors": [{"field": "bank_details.nib", "message": "Another holder", "code": "NOT_FOUND"}],
                    "reviewer": {
                        "kind": "administrator",
                        "subject": "reviewer-7",
                        "issuer": "https://id.mzpay.example",
                        "account_id": None,
                    },
                    "source_ip": "198.51.100.7",
                    "at": "2026-11-02T11:00:00Z",
                }
            ],
        }
    )

    object: ListObject
    data: list[BusinessAccountReview] = Field(description="The decisions, newest first.")


class BusinessGatewayAccount(Answer):
    """The gateway account a business account collects through (docs/onboarding.md, "From
    approval to collecting"): its payment links' checkouts and its customers' transactions are
    that account's payments."""

    model_config = examples(
        {
            "object": "business_gateway_account",
            "business_account_id": "acct_loja_ana",
            "gateway_account_id": "01JC0A1B2C3D4E5F6G7H8J9K0M",
            "how": "linked",
            "region": "mz",
        },
        {
            "object": "business_gateway_account",
            "business_account_id": "acct_escola",
            "gateway_account_id": None,
            "how": None,
            "region": "mz",
        },
    )

    object: Literal["business_gateway_account"] = Field(description="The kind of object.")
    business_account_id: BusinessAccountId
    gateway_account_id: str | None = Field(description="The gateway account; null before approval or a link.")
    how: Literal["opened", "linked"] | None = Field(
        description="opened: the approval opened the account of the business's own id; linked: an operator linked it."
    )
    region: Literal["mz", "regional-sa"] = Field(description="The region of both accounts.")
