"""What each route of the collection API answers on success, for its OpenAPI document (`ROUTES`).

The models are the answers the use cases return (mzpay.answers.collection_*: one module per
capability): every model refuses keys it does not name; a key that is always there is required
(`X | None` when it may be null); a key present in some answers only is optional without a default
(`sometimes`). Money here is a JSON number with two decimals (`{"currency": "MZN", "value":
1500.00}`, mzpay.answers.base.Number), never a string as on the gateway; times are UTC ISO 8601
with a Z.
"""

from __future__ import annotations

from pydantic import BaseModel

from mzpay.answers.bank_statements import BankLineList, BankLineRead, BankStatementImported
from mzpay.answers.collection_accounts import (
    AccountSettings,
    BusinessAccount,
    OnboardingDetails,
    OnboardingStatus,
    UploadedFile,
)
from mzpay.answers.collection_identity import (
    DeviceCheck,
    DeviceTrusted,
    IdentityProviderDeleted,
    IdentityProviderList,
    IdentityProviderResult,
)
from mzpay.answers.collection_kyc import Customer, DocumentDateSaved, KycLog, KycRead, KycReady, LoggedOk
from mzpay.answers.collection_licence import ActivatedLicense, CurrentLicense, LicenseDeactivated, LicenseValidation
from mzpay.answers.collection_partners import (
    CardLogo,
    PartnerList,
    PartnerRead,
    PaymentMethodList,
    PaymentMethodResult,
)
from mzpay.answers.collection_payments import CollectionPaymentList, CollectionPaymentRead, RecordedPayment
from mzpay.answers.collection_requests import REQUEST_ROUTES
from mzpay.answers.collection_system import Checklist, Health, OpenApiDocument, SupportedDocuments, Version
from mzpay.answers.collection_transactions import TransactionList, TransactionRead, TransactionResult
from mzpay.answers.customers import CustomerKycList, CustomerList, CustomerRead, CustomerRequests
from mzpay.answers.messages import NotificationList
from mzpay.openapi.index import Routes, about_routes, models_of

# POST /v1/account/onboarding/initialize is left out on purpose: it answers 200 with an empty body,
# which the route documents itself (a None here would document an HTML page).
ROUTES: Routes = {
    **about_routes(Health, OpenApiDocument),
    ("GET", "/v1/version"): Version,
    ("POST", "/v1/license/activate"): ActivatedLicense,
    ("GET", "/v1/license"): CurrentLicense,
    ("POST", "/v1/license/deactivate"): LicenseDeactivated,
    ("POST", "/v1/license/validate"): LicenseValidation,
    ("GET", "/v1/system/config/supported-docs"): SupportedDocuments,
    ("GET", "/v1/system/accountopening/checklist"): Checklist,
    ("GET", "/v1/account"): BusinessAccount,
    ("GET", "/v1/account/settings"): AccountSettings,
    ("PATCH", "/v1/account/settings"): AccountSettings,
    ("GET", "/v1/account/onboarding"): OnboardingStatus,
    ("GET", "/v1/account/onboarding/details"): OnboardingDetails,
    ("PUT", "/v1/account/onboarding/details"): OnboardingDetails,
    ("POST", "/v1/account/onboarding/finish"): BusinessAccount,
    ("POST", "/v1/files"): UploadedFile,
    ("POST", "/v1/accounts/{account_id}/approve"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/reject"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/suspend"): BusinessAccount,
    ("POST", "/v1/accounts/{account_id}/reactivate"): BusinessAccount,
    **REQUEST_ROUTES,
    ("GET", "/v1/collection-requests/{request_id}/notifications"): NotificationList,
    ("GET", "/v1/payments"): CollectionPaymentList,
    ("POST", "/v1/payments"): RecordedPayment,
    ("GET", "/v1/payments/{payment_id}"): CollectionPaymentRead,
    ("POST", "/v1/bank-statements"): BankStatementImported,
    ("GET", "/v1/bank-statement-lines"): BankLineList,
    ("GET", "/v1/bank-statement-lines/{line_id}"): BankLineRead,
    ("POST", "/v1/bank-statement-lines/{line_id}/assign"): BankLineRead,
    ("POST", "/v1/bank-statement-lines/{line_id}/dismiss"): BankLineRead,
    ("POST", "/v1/customers"): Customer,
    ("GET", "/v1/customers"): CustomerList,
    ("GET", "/v1/customers/{customer_id}"): CustomerRead,
    ("PUT", "/v1/customers/{customer_id}"): CustomerRead,
    ("DELETE", "/v1/customers/{customer_id}"): CustomerRead,
    ("GET", "/v1/customers/{customer_id}/collection-requests"): CustomerRequests,
    ("GET", "/v1/customers/{customer_id}/kyc"): CustomerKycList,
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
}


def models() -> list[type[BaseModel]]:
    """Every model of a success answer, once each."""
    return models_of(ROUTES.values())
