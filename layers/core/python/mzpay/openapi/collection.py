"""What each route of the collection API answers on success, for its OpenAPI document (`ROUTES`).

The gateway's conventions (mzpay.openapi.gateway) with the collection surface's wire types: every
model refuses keys it does not name; a key that is always there is required (`X | None` when it
may be null); a key present in some answers only is optional without a default (`sometimes`).
Money here is a JSON number with two decimals (`{"currency": "MZN", "value": 1500.00}`), never a
string as on the gateway; times are UTC ISO 8601 with a Z. The models mirror the views the use
cases answer (mzpay.domain.collection_requests: CollectionMethod.view, CollectionRequest.view,
created_view, summary). The parts of a request and the payer's app's views of it are in
mzpay.openapi.collection_parts; the other answers in mzpay.openapi.collection_more (onboarding,
files, identity providers, devices, licence, system) and mzpay.openapi.collection_customers (KYC,
partners, payment methods, transactions).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, RootModel

from mzpay.answers.collection_identity import (
    DeviceCheck,
    DeviceTrusted,
    IdentityProviderDeleted,
    IdentityProviderList,
    IdentityProviderResult,
)
from mzpay.answers.collection_licence import ActivatedLicense, CurrentLicense, LicenseDeactivated, LicenseValidation
from mzpay.openapi.collection_customers import (
    CardLogo,
    Customer,
    DocumentDateSaved,
    KycLog,
    KycRead,
    KycReady,
    LoggedOk,
    PartnerList,
    PartnerRead,
    PaymentMethodList,
    PaymentMethodResult,
)
from mzpay.openapi.collection_more import (
    BusinessAccount,
    Checklist,
    Health,
    OnboardingDetails,
    OnboardingStatus,
    OpenApiDocument,
    SupportedDocuments,
    UploadedFile,
    Version,
)
from mzpay.openapi.collection_parts import (
    AMOUNT,
    CR,
    PAYER,
    REQUEST,
    Biller,
    BillInfo,
    CollectionAmount,
    ComplianceAudit,
    FinancialDetails,
    IntegrationRouting,
    InvoiceMetadata,
    MethodDetail,
    MethodType,
    Payer,
    PayerRequestList,
    PayerRequestRead,
    PayerType,
    PaymentReconciliation,
    RequestStatus,
)
from mzpay.openapi.collection_transactions import (
    TransactionList,
    TransactionRead,
    TransactionResult,
)
from mzpay.openapi.gateway_more import Answer, Mode, Timestamp, examples

# ---------------------------------------------------------------- collection methods
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
    updated_at: Timestamp = Field(description="When it last changed.")


class CollectionMethodList(Answer):
    """A business's collection methods (at most 50)."""

    model_config = examples({"object": "list", "data": [_METHOD], "has_more": False})

    object: Literal["list"] = Field(description="Always list.")
    data: list[CollectionMethod] = Field(description="Every method of the business.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")


_LISTED = "false: left out of the payer app's list by phone (the business's choice; default true)."
_CREATED = (  # CollectionRequest.created_view's fields
    "id",
    "collection_method_ids",
    "description",
    "bill_info",
    "amount",
    "collection_method_details",
    "payer",
    "third_party_reference",
    "status",
    "metadata",
    "invoice_metadata",
    "mode",
    "listed",
    "created_at",
)


class CollectionRequest(Answer):
    """A collection request in full: an invoice a business issues to a payer."""

    id: str = Field(description="The request's id (cr_...).")
    account_id: str = Field(description="The business account that issued it.")
    mode: Mode = Field(description="The mode of its collection methods (test: no money moves).")
    description: str | None = Field(description="What it is for; null: none given.")
    collection_method_ids: list[str] = Field(description="The methods it is payable through (1 to 10).")
    amount: CollectionAmount = Field(description="The amount to pay.")
    payer: Payer = Field(description="Who pays.")
    third_party_reference: str | None = Field(description="The business's own reference; null: none.")
    metadata: dict[str, str] = Field(description="The business's key-value pairs (empty: none).")
    bill_info: BillInfo = Field(description="The bill.")
    collection_method_details: list[MethodDetail] = Field(description="The methods, as they were when named.")
    invoice_metadata: InvoiceMetadata = Field(description="The invoice number, dates and payment link.")
    financial_details: FinancialDetails = Field(description="Lines, tax, discount and total.")
    payment_reconciliation: PaymentReconciliation = Field(description="Where its payment is.")
    integration_routing: IntegrationRouting = Field(description="Where it came from and where its events go.")
    compliance_audit: ComplianceAudit = Field(description="Who did what, and when.")
    biller: Biller = Field(description="The business, as the payer sees it.")
    status: RequestStatus = Field(description="paid once a payment of its amount settled it.")
    listed: bool = Field(description=_LISTED)
    created_at: Timestamp = Field(description="When it was created.")
    updated_at: Timestamp = Field(description="When it last changed.")


class CollectionRequestRead(Answer):
    """A collection request of the caller's business."""

    model_config = examples({"object": "collection_request", "collection_request": REQUEST})

    object: Literal["collection_request"] = Field(description="Always collection_request.")
    collection_request: CollectionRequest = Field(description="The request.")


class CollectionRequestChanged(Answer):
    """A collection request after the change (only the fields given changed)."""

    model_config = examples(
        {
            "object": "collection_request",
            "collection_request": {**REQUEST, "description": "November invoice (corrected)"},
            "error": None,
        }
    )

    object: Literal["collection_request"] = Field(description="Always collection_request.")
    collection_request: CollectionRequest = Field(description="The request as changed.")
    error: None = Field(description="Always null.")


class CreatedCollectionRequest(Answer):
    """A new collection request: pending, with its invoice number and payment link."""

    model_config = examples({"object": "collection_request", **{k: v for k, v in REQUEST.items() if k in _CREATED}})

    object: Literal["collection_request"] = Field(description="Always collection_request.")
    id: str = Field(description="The request's id (cr_...).")
    collection_method_ids: list[str] = Field(description="The methods it is payable through.")
    description: str | None = Field(description="What it is for; null: none given.")
    bill_info: BillInfo = Field(description="The bill (open).")
    amount: CollectionAmount = Field(description="The amount to pay.")
    collection_method_details: list[MethodDetail] = Field(description="The methods, as they are now.")
    payer: Payer = Field(description="Who pays.")
    third_party_reference: str | None = Field(description="The business's own reference; null: none.")
    status: Literal["pending"] = Field(description="Always pending.")
    metadata: dict[str, str] = Field(description="The business's key-value pairs (empty: none).")
    invoice_metadata: InvoiceMetadata = Field(description="The invoice number, dates and payment link.")
    mode: Mode = Field(description="The mode of its collection methods.")
    listed: bool = Field(description=_LISTED)
    created_at: Timestamp = Field(description="When it was created.")


class DeletedCollectionRequest(Answer):
    """A collection request deleted: it leaves every read and list (kept for the audit)."""

    model_config = examples({"object": "collection_request", "id": CR, "deleted": True, "error": None})

    object: Literal["collection_request"] = Field(description="Always collection_request.")
    id: str = Field(description="The request deleted.")
    deleted: Literal[True] = Field(description="Always true.")
    error: None = Field(description="Always null.")


class PayerSummary(Answer):
    """Who pays, in a list."""

    first_name: str = Field(description="The payer's first name.")
    last_name: str = Field(description="The payer's last name.")
    legal_name: str = Field(description="The payer's legal name.")
    type: PayerType = Field(description="business or individual.")
    delivery_method: Literal["email", "sms", "erp"] = Field(description="How the invoice reaches the payer.")


class CollectionRequestSummary(Answer):
    """A collection request in a business's list."""

    id: str = Field(description="The request's id.")
    account_id: str = Field(description="The business account.")
    description: str | None = Field(description="What it is for; null: none given.")
    amount: CollectionAmount = Field(description="The amount to pay.")
    payer: PayerSummary = Field(description="Who pays.")
    status: RequestStatus = Field(description="pending or paid.")
    created_at: Timestamp = Field(description="When it was created.")
    updated_at: Timestamp = Field(description="When it last changed.")


class CollectionRequestList(Answer):
    """A page of the business's collection requests, newest first."""

    model_config = examples(
        {
            "object": "list",
            "items": [
                {
                    "id": CR,
                    "account_id": "acct_loja_ana",
                    "description": "November invoice",
                    "amount": AMOUNT,
                    "payer": {
                        k: PAYER[k] for k in ("first_name", "last_name", "legal_name", "type", "delivery_method")
                    },
                    "status": "pending",
                    "created_at": "2026-11-02T10:00:00Z",
                    "updated_at": "2026-11-02T10:00:00Z",
                }
            ],
            "has_more": False,
            "next_page_token": None,
            "error": None,
        }
    )

    object: Literal["list"] = Field(description="Always list.")
    items: list[CollectionRequestSummary] = Field(description="The requests of this page (items, not data).")
    has_more: bool = Field(description="Whether another page follows.")
    next_page_token: str | None = Field(description="Send it as page_token for the next page; null at the end.")
    error: None = Field(description="Always null.")


Success = type[Answer] | type[RootModel[Any]]

# (method, path) -> the model of its success answer; None: a page for people or its files (HTML, CSS, JS).
# POST /v1/account/onboarding/initialize is left out on purpose: it answers 200 with an empty body,
# which the route documents itself (a None here would document an HTML page).
ROUTES: dict[tuple[str, str], Success | None] = {
    ("GET", "/health"): Health,
    ("GET", "/v1/version"): Version,
    ("POST", "/v1/license/activate"): ActivatedLicense,
    ("GET", "/v1/license"): CurrentLicense,
    ("POST", "/v1/license/deactivate"): LicenseDeactivated,
    ("POST", "/v1/license/validate"): LicenseValidation,
    ("GET", "/v1/system/config/supported-docs"): SupportedDocuments,
    ("GET", "/v1/system/accountopening/checklist"): Checklist,
    ("GET", "/v1/account"): BusinessAccount,
    ("GET", "/v1/account/onboarding"): OnboardingStatus,
    ("GET", "/v1/account/onboarding/details"): OnboardingDetails,
    ("PUT", "/v1/account/onboarding/details"): OnboardingDetails,
    ("POST", "/v1/account/onboarding/finish"): BusinessAccount,
    ("POST", "/v1/files"): UploadedFile,
    ("POST", "/v1/accounts/{account_id}/approve"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/reject"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/suspend"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/reactivate"): BusinessAccount,
    ("POST", "/v1/collection-methods"): CollectionMethod,
    ("GET", "/v1/collection-methods"): CollectionMethodList,
    ("GET", "/v1/collection-methods/{method_id}"): CollectionMethod,
    ("POST", "/v1/collection-methods/{method_id}/status"): CollectionMethod,
    ("POST", "/v1/collection-requests"): CreatedCollectionRequest,
    ("GET", "/v1/collection-requests"): CollectionRequestList,
    ("GET", "/v1/collection-requests/{request_id}"): CollectionRequestRead,
    ("PUT", "/v1/collection-requests/{request_id}"): CollectionRequestChanged,
    ("DELETE", "/v1/collection-requests/{request_id}"): DeletedCollectionRequest,
    ("GET", "/v1/kulpay/collection-requests/list-by-phone-number/{phone_number}"): PayerRequestList,
    ("GET", "/v1/kulpay/collection-requests/get-request/{request_id}"): PayerRequestRead,
    ("GET", "/pay/{request_id}"): None,
    ("POST", "/v1/customers"): Customer,
    ("GET", "/v1/customers/{customer_id}/kyc/logs"): KycLog,
    ("GET", "/v1/customers/{customer_id}/kyc/{kyc_id}"): KycRead,
    ("PUT", "/v1/customers/{customer_id}/kyc/{kyc_id}/reviews"): KycRead,
    ("POST", "/v1/customers/{customer_id}/kyc/{kyc_id}/reviews/ready"): KycReady,
    ("GET", "/v1/kyc/{kyc_id}/logs"): KycLog,
    ("POST", "/v1/kyc/{kyc_id}/logs"): LoggedOk,
    ("POST", "/v1/kyc/{kyc_id}/logs/save"): LoggedOk,
    ("POST", "/v1/kyc/{kyc_id}/logs/save-date"): DocumentDateSaved,
    ("GET", "/v1/partners"): PartnerList,
    ("GET", "/v1/partners/{partner_id}"): PartnerRead,
    ("POST", "/v1/partners/get-logo"): CardLogo,
    ("POST", "/v1/customers/{customer_id}/payment_methods"): PaymentMethodResult,
    ("GET", "/v1/customers/{customer_id}/payment_methods"): PaymentMethodList,
    ("GET", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}"): PaymentMethodResult,
    ("POST", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}/status"): PaymentMethodResult,
    ("POST", "/v1/customers/{customer_id}/payment_methods/{payment_method_id}/transactions"): TransactionResult,
    ("GET", "/v1/customers/{customer_id}/transactions"): TransactionList,
    ("GET", "/v1/customers/{customer_id}/transactions/{instruction_id}"): TransactionRead,
    ("POST", "/v1/identity_providers"): IdentityProviderResult,
    ("GET", "/v1/identity_providers/{idp_id}"): IdentityProviderResult,
    ("GET", "/v1/identity_providers"): IdentityProviderList,
    ("PUT", "/v1/identity_providers"): IdentityProviderResult,
    ("DELETE", "/v1/identity_providers"): IdentityProviderDeleted,
    ("POST", "/v1/devices/trust"): DeviceTrusted,
    ("GET", "/v1/devices/{device_id}"): DeviceCheck,
    ("GET", "/openapi.json"): OpenApiDocument,
    ("GET", "/docs"): None,
    ("GET", "/docs/{asset}"): None,
}


def models() -> list[type[BaseModel]]:
    """Every model of a success answer, once each."""
    return list({model: None for model in ROUTES.values() if model is not None})
