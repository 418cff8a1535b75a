"""The collection API's answers of the payer directory (mzpay.collection.customers; the views of
mzpay.domain.collection.directory)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, HasMore, ListObject, Timestamp, UpdatedAt, examples, sometimes
from mzpay.answers.collection_kyc import _VERIFICATION, CUSTOMER, KycVerification
from mzpay.answers.collection_request_parts import PayerAddress
from mzpay.answers.collection_requests import CollectionRequestList, Items

_CUSTOMER = {
    "object": "customer",
    "id": CUSTOMER,
    "status": "active",
    "name": "Ana Machava",
    "email": "ana.machava@example.co.mz",
    "phone_number": "+258841234567",
    "nuit": "400123454",
    "address": {"country": "MZ", "city": "Maputo"},
    "language": "pt",
    "kyc_id": _VERIFICATION["kyc_id"],
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
}
_REMOVED = {
    "object": "customer",
    "id": CUSTOMER,
    "status": "removed",
    "removed": True,
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-20T09:00:00Z",
}


class CustomerRecord(Answer):
    """A customer of the business's directory; a removed one has only its id, status and dates."""

    object: Literal["customer"] = Field(description="Always customer.")
    id: str = Field(description="The customer's id (usr_...).")
    status: Literal["active", "removed"] = Field(description="active, or removed (its personal data erased).")
    removed: Literal[True] = sometimes("true: the customer was removed (DELETE); only then.")
    name: str = sometimes("Its name; not for a removed customer.")
    email: str | None = sometimes("Its e-mail, or null; not for a removed customer.")
    phone_number: str | None = sometimes("Its phone (E.164), or null; not for a removed customer.")
    nuit: str | None = sometimes("Its NUIT, or null; not for a removed customer.")
    address: PayerAddress | None = sometimes("Its address, or null; not for a removed customer.")
    language: Literal["pt", "en"] | None = sometimes("Its language for messages; null: the business's.")
    kyc_id: str = sometimes("Its KYC verification (kyc_...); not for a removed customer.")
    kyc: KycVerification = sometimes("Its KYC verification, in a read of the customer (not in lists).")
    created_at: Timestamp = Field(description="When it was registered.")
    updated_at: UpdatedAt


class CustomerRead(CustomerRecord):
    """A customer (GET, PUT, DELETE /v1/customers/{id})."""

    model_config = examples({**_CUSTOMER, "kyc": _VERIFICATION}, _REMOVED)


class CustomerList(Items[CustomerRecord]):
    """A page of the business's directory, by name (accents and case ignored), or its search."""

    model_config = examples(
        {"object": "list", "items": [_CUSTOMER], "has_more": False, "next_page_token": None, "error": None}
    )


class CustomerRequests(CollectionRequestList):
    """A page of the customer's collection requests, newest first."""


class CustomerKycList(Answer):
    """The customer's KYC verifications."""

    model_config = examples({"object": "list", "data": [_VERIFICATION], "has_more": False})

    object: ListObject
    data: list[KycVerification] = Field(description="Its verifications.")
    has_more: HasMore
