"""The collection API's answers about collection methods (mzpay.domain.collection.methods:
CollectionMethod.view), as mzpay.collection.collection_methods returns them."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, ListOf, Mode, Timestamp, UpdatedAt, examples, sometimes
from mzpay.answers.collection_request_parts import MethodType

_METHOD = {
    "object": "collection_method",
    "id": "cm_01JD9H0A1B2C3D4E5F6G7H8J9K",
    "account_id": "acct_loja_ana",
    "name": "M-Pesa",
    "type": "mpesa",
    "mode": "live",
    "status": "active",
    "created_at": "2026-11-01T08:00:00Z",
    "updated_at": "2026-11-01T08:00:00Z",
}


class MethodDetails(Answer):
    """Kulpay's details of a bank method (simo_erv, interbank)."""

    entity_number: str = sometimes("simo_erv: the business's SIMO entity number (5 digits); only for simo_erv.")
    nib: str = sometimes("interbank: the business's NIB (21 digits); only for interbank.")
    allow_installments: bool = Field(description="true: its requests may be paid in parts.")
    allow_reuses: bool = Field(
        description="true: a payer gets the same reference for the same amount on each new request (standing)."
    )


class CollectionMethod(Answer):
    """A way a business is paid, in one mode."""

    model_config = examples(_METHOD)

    object: Literal["collection_method"] = Field(description="Always collection_method.")
    id: str = Field(description="The method's id (cm_...).")
    account_id: str = Field(description="The business account it belongs to.")
    name: str = Field(description="Its display name (the type's name when none was given).")
    type: MethodType = Field(description="How the payer pays.")
    mode: Mode = Field(description="test: its payments run on the simulator, no money moves.")
    status: Literal["active", "inactive"] = Field(description="Only active methods may be named by new requests.")
    created_at: Timestamp = Field(description="When it was added.")
    updated_at: UpdatedAt
    allow_installments: bool = sometimes("true: its requests may be paid in parts; only when true.")
    min_installment: Decimal | None = sometimes(
        "The least one instalment may be (in the request's currency); null: any; only with allow_installments."
    )
    details: MethodDetails = sometimes("Where a bank method is paid and its settings; only for simo_erv, interbank.")


class CollectionMethodList(ListOf[CollectionMethod]):
    """A business's collection methods (at most 50)."""

    model_config = examples({"object": "list", "data": [_METHOD], "has_more": False})

    data: list[CollectionMethod] = Field(description="Every method of the business.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")
