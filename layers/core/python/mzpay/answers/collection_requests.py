"""The collection API's answers about collection methods and collection requests
(mzpay.domain.collection.requests: CollectionMethod.view, CollectionRequest.view, created_view,
summary, public_view, public_item), as mzpay.collection.collection_methods and collection_requests
return them: the business's views of a request and its payer's app's (the unsecured reads); their
parts are mzpay.answers.collection_request_parts."""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal

from pydantic import Field, model_validator

from mzpay.answers.base import (
    AlwaysNull,
    AlwaysTrue,
    Answer,
    BusinessAccountId,
    CreatedAt,
    HasMore,
    Item,
    ListObject,
    Mode,
    NextPageToken,
    UpdatedAt,
    examples,
    sometimes,
)
from mzpay.answers.collection_methods import CollectionMethod, CollectionMethodList
from mzpay.answers.collection_request_parts import (
    BILLER,
    CR,
    PAYER,
    REQUEST,
    Biller,
    BillerContact,
    BillerLogo,
    BillInfo,
    CollectionAmount,
    ComplianceAudit,
    Delivery,
    FinancialDetails,
    IntegrationRouting,
    InvoiceMetadata,
    MethodDetail,
    PaidAt,
    Payer,
    PayerKindOf,
    PayerNames,
    PaymentReconciliation,
    RequestStatus,
)

# ---------------------------------------------------------------- collection requests
# The keys of a collection request that several of its views show alike, described once.
RequestId = Annotated[str, Field(description="The request's id.")]
Purpose = Annotated[str | None, Field(description="What it is for; null: none given.")]
ToPay = Annotated[CollectionAmount, Field(description="The amount to pay.")]
PendingOrPaid = Annotated[
    RequestStatus,
    Field(
        description="pending (open), partially_paid, paid, cancelled, or overdue (pending or partially_paid "
        "past its due date)."
    ),
]
Invoice = Annotated[InvoiceMetadata, Field(description="The invoice number, dates and payment link.")]
BusinessReference = Annotated[str | None, Field(description="The business's own reference; null: none.")]
BusinessMetadata = Annotated[dict[str, str], Field(description="The business's key-value pairs (empty: none).")]
TheBill = Annotated[BillInfo, Field(description="The bill.")]
RequestObject = Annotated[Literal["collection_request"], Field(description="Always collection_request.")]
FullId = Annotated[str, Field(description="The request's id (cr_...).")]
WhatFor = Annotated[str | None, Field(description="What it is for.")]
WhoPays = Annotated[Payer, Field(description="Who pays.")]
Listed = Annotated[
    bool, Field(description="false: left out of the payer app's list by phone (the business's choice; default true).")
]

# The full view's fields that the creation answer leaves out (CollectionRequest.created_view).
_FULL_ONLY = {"account_id", "financial_details", "payment_reconciliation", "integration_routing", "biller"}
_FULL_ONLY |= {"compliance_audit", "updated_at"}


class Cancellation(Answer):
    """How a collection request was cancelled."""

    cancelled_at: str = Field(description="When (UTC).")
    cancelled_by: str = Field(description="The user who cancelled it.")
    reason: str | None = Field(description="The reason given; null: none.")


class CollectionRequest(Answer):
    """A collection request in full: an invoice a business issues to a payer."""

    id: FullId
    account_id: str = Field(description="The business account that issued it.")
    mode: Mode = Field(description="The mode of its collection methods (test: no money moves).")
    description: Purpose
    collection_method_ids: list[str] = Field(description="The methods it is payable through (1 to 10).")
    amount: ToPay
    payer: WhoPays
    third_party_reference: BusinessReference
    metadata: BusinessMetadata
    bill_info: TheBill
    collection_method_details: list[MethodDetail] = Field(description="The methods, as they were when named.")
    invoice_metadata: Invoice
    financial_details: FinancialDetails = Field(description="Lines, tax, discount and total.")
    payment_reconciliation: PaymentReconciliation = Field(description="Where its payment is.")
    integration_routing: IntegrationRouting = Field(description="Where it came from and where its events go.")
    compliance_audit: ComplianceAudit = Field(description="Who did what, and when.")
    biller: Biller = Field(description="The business, as the payer sees it.")
    status: PendingOrPaid
    listed: Listed
    created_at: CreatedAt
    updated_at: UpdatedAt
    allow_installments: bool = sometimes(
        "Whether it may be paid in several payments; only a request that takes instalments or has payments recorded."
    )
    amount_paid: CollectionAmount = sometimes("What the payments recorded against it paid so far; likewise.")
    amount_due: CollectionAmount = sometimes("What is still due; likewise.")
    customer_id: str = sometimes("The directory's customer (usr_...) it was issued to, when it named one.")
    min_installment: CollectionAmount = sometimes("The least one instalment may be (its methods' minimum); likewise.")
    overpayment: CollectionAmount = sometimes("Money received beyond what was due or after a cancel: to refund.")
    cancellation: Cancellation = sometimes("When, by whom and why it was cancelled; only a cancelled request.")


class RequestEnvelope(Answer, Generic[Item]):
    """One collection request as the collection surface answers it: `{object, collection_request}`."""

    object: RequestObject
    collection_request: Item = Field(description="The request.")


class CollectionRequestRead(RequestEnvelope[CollectionRequest]):
    """A collection request of the caller's business."""

    model_config = examples({"object": "collection_request", "collection_request": REQUEST})


class ChangedRequest(CollectionRequest):
    """A collection request after a change: in full, with the spec's `name` and `type`."""

    name: WhatFor = Field(description="The spec's name of the request: its description.")
    type: str | None = Field(description="The type of its first collection method (the spec's type).")

    @model_validator(mode="before")
    @classmethod
    def _spec_names(cls, view: Any) -> Any:
        """A request's view named as the spec's answer names it: its description, its first type."""
        if isinstance(view, dict) and "name" not in view:
            kinds = [detail["type"] for detail in view.get("collection_method_details") or []]
            view = {**view, "name": view.get("description"), "type": kinds[0] if kinds else None}
        return view


class CollectionRequestChanged(RequestEnvelope[ChangedRequest]):
    """A collection request after the change (only the fields given changed)."""

    model_config = examples(
        {
            "object": "collection_request",
            "collection_request": {
                **REQUEST,
                "description": "November invoice (corrected)",
                "name": "November invoice (corrected)",
                "type": REQUEST["collection_method_details"][0]["type"],
            },
            "error": None,
        }
    )

    collection_request: ChangedRequest = Field(description="The request as changed.")
    error: AlwaysNull


class CollectionRequestCancelled(RequestEnvelope[CollectionRequest]):
    """A collection request cancelled: it takes no payment any more."""

    model_config = examples(
        {
            "object": "collection_request",
            "collection_request": {
                **REQUEST,
                "status": "cancelled",
                "bill_info": {**REQUEST["bill_info"], "status": "cancelled"},
                "cancellation": {
                    "cancelled_at": "2026-11-02T10:00:00Z",
                    "cancelled_by": "usr_01JBZ8",
                    "reason": "Issued twice",
                },
            },
            "error": None,
        }
    )

    collection_request: CollectionRequest = Field(description="The request, cancelled.")
    error: AlwaysNull


class CreatedCollectionRequest(Answer):
    """A new collection request: pending, with its invoice number and payment link."""

    model_config = examples(
        {"object": "collection_request", **{k: v for k, v in REQUEST.items() if k not in _FULL_ONLY}}
    )

    object: RequestObject
    id: FullId
    collection_method_ids: list[str] = Field(description="The methods it is payable through.")
    description: Purpose
    bill_info: BillInfo = Field(description="The bill (open).")
    amount: ToPay
    collection_method_details: list[MethodDetail] = Field(description="The methods, as they are now.")
    payer: WhoPays
    third_party_reference: BusinessReference
    status: Literal["pending"] = Field(description="Always pending.")
    metadata: BusinessMetadata
    invoice_metadata: Invoice
    mode: Mode = Field(description="The mode of its collection methods.")
    listed: Listed
    created_at: CreatedAt
    allow_installments: bool = sometimes("true: it may be paid in several recorded payments; only when asked.")
    customer_id: str = sometimes("The directory's customer (usr_...) it was issued to, when it named one.")


class DeletedCollectionRequest(Answer):
    """A collection request deleted: it leaves every read and list (kept for the audit)."""

    model_config = examples({"object": "collection_request", "id": CR, "deleted": True, "error": None})

    object: RequestObject
    id: str = Field(description="The request deleted.")
    deleted: AlwaysTrue
    error: AlwaysNull


class Items(Answer, Generic[Item]):
    """A page of `items` (the collection requests' lists say items, not data), newest first."""

    object: ListObject
    items: list[Item] = Field(description="The requests of this page.")
    has_more: HasMore
    next_page_token: NextPageToken
    error: AlwaysNull


def _page(item: dict[str, Any]) -> dict[str, Any]:
    return {"object": "list", "items": [item], "has_more": False, "next_page_token": None, "error": None}


class PayerSummary(PayerNames):
    """Who pays, in a list."""

    type: PayerKindOf
    delivery_method: Delivery


class CollectionRequestSummary(Answer):
    """A collection request in a business's list."""

    id: RequestId
    account_id: BusinessAccountId
    description: Purpose
    amount: ToPay
    payer: PayerSummary = Field(description="Who pays.")
    status: PendingOrPaid
    created_at: CreatedAt
    updated_at: UpdatedAt


class CollectionRequestList(Items[CollectionRequestSummary]):
    """A page of the business's collection requests, newest first."""

    model_config = examples(
        _page(
            {
                **{k: REQUEST[k] for k in ("id", "account_id", "description", "amount")},
                "payer": {k: PAYER[k] for k in ("first_name", "last_name", "legal_name", "type", "delivery_method")},
                **{k: REQUEST[k] for k in ("status", "created_at", "updated_at")},
            }
        )
    )

    items: list[CollectionRequestSummary] = Field(description="The requests of this page (items, not data).")


# ---------------------------------------------------------------- the payer's app (no token)
class PayerRequestItem(Answer):
    """A collection request as the payer's app lists it."""

    id: RequestId
    description: WhatFor
    amount: ToPay
    status: PendingOrPaid
    created_at: CreatedAt


class PayerRequestList(Items[PayerRequestItem]):
    """A page of the requests whose payer has the phone number, newest first (empty for an unknown number)."""

    model_config = examples(_page({k: REQUEST[k] for k in ("id", "description", "amount", "status", "created_at")}))


class PayerKind(Answer):
    """Who pays, without any personal data (names, NUIT, contact, address)."""

    type: PayerKindOf


class PaymentProgress(Answer):
    """Where the payment of the request is."""

    payment_status: Literal["pending", "in_process", "paid", "failed"] = Field(description="As in the full view.")
    date_payment: PaidAt


class BusinessShown(Answer):
    """The business, as its payer sees it."""

    business_name: str | None = Field(description="Its name.")
    logo: BillerLogo | None = Field(description="Its logo; null: none.")
    contact: BillerContact = Field(description="Its person of contact.")


class PayerView(Answer):
    """A collection request as its payer sees it: no personal data of the payer, metadata, routing
    or audit."""

    id: RequestId
    description: WhatFor
    amount: ToPay
    collection_method_details: list[MethodDetail] = Field(description="How it may be paid.")
    invoice_metadata: Invoice
    bill_info: TheBill
    biller: BusinessShown = Field(description="The business that issued it.")
    status: PendingOrPaid
    created_at: CreatedAt
    updated_at: UpdatedAt
    payer: PayerKind = Field(description="Whether an individual or a business pays (no personal data).")
    payment_reconciliation: PaymentProgress = Field(description="Where its payment is.")


class PayerRequestRead(RequestEnvelope[PayerView]):
    """A collection request as its payer's app reads it (no token: the request id is all it takes)."""

    model_config = examples(
        {
            "object": "collection_request",
            "collection_request": {
                **{k: REQUEST[k] for k in ("id", "description", "amount", "collection_method_details")},
                **{k: REQUEST[k] for k in ("invoice_metadata", "bill_info", "status", "created_at", "updated_at")},
                "biller": {k: BILLER[k] for k in ("business_name", "logo", "contact")},
                "payer": {"type": PAYER["type"]},
                "payment_reconciliation": {"payment_status": "pending", "date_payment": None},
            },
        }
    )


# The collection-method and collection-request routes' answers (their routes: functions/collection_requests),
# in mzpay.openapi.collection.ROUTES; /pay/{request_id} is the payment link's page for people.
REQUEST_ROUTES: dict[tuple[str, str], type[Answer] | None] = {
    ("POST", "/v1/collection-methods"): CollectionMethod,
    ("GET", "/v1/collection-methods"): CollectionMethodList,
    ("GET", "/v1/collection-methods/{method_id}"): CollectionMethod,
    ("POST", "/v1/collection-methods/{method_id}/status"): CollectionMethod,
    ("POST", "/v1/collection-requests"): CreatedCollectionRequest,
    ("GET", "/v1/collection-requests"): CollectionRequestList,
    ("GET", "/v1/collection-requests/{request_id}"): CollectionRequestRead,
    ("PUT", "/v1/collection-requests/{request_id}"): CollectionRequestChanged,
    ("DELETE", "/v1/collection-requests/{request_id}"): DeletedCollectionRequest,
    ("POST", "/v1/collection-requests/{request_id}/cancel"): CollectionRequestCancelled,
    ("GET", "/v1/kulpay/collection-requests/list-by-phone-number/{phone_number}"): PayerRequestList,
    ("GET", "/v1/kulpay/collection-requests/get-request/{request_id}"): PayerRequestRead,
    ("GET", "/pay/{request_id}"): None,
    ("GET", "/pay/assets/copy.js"): None,  # the page's script (its copy buttons)
}
