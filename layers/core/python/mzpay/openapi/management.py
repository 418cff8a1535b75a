"""What each route of the management API answers on success, for its OpenAPI document (`ROUTES`).

The models are the use cases' own answers (mzpay.answers; conventions in mzpay.answers.base): accounts,
keys and webhook secrets (accounts), OAuth clients (oauth_clients), limits, PSPs (psps), connector
bindings (bindings), reconciliation cases (reconciliation), webhook deliveries and dispatch failures,
the audit trail (audit_trail) and identity providers' audit (management_audit), reviews, billers,
PSP onboarding (psp_onboarding), health and the stack (system); a payout approved or rejected is the
gateway's Payout, a manual payment confirmed or rejected its PaymentSnapshot (a KYB document's
download is its file: no model).
"""

from __future__ import annotations

from pydantic import BaseModel

from mzpay.answers.accounts import (
    Account,
    ApiKey,
    Connection,
    ConnectionList,
    Disconnection,
    NewAccount,
    NewApiKey,
    RolledWebhookSecret,
)
from mzpay.answers.audit_trail import AuditTrailList, AuditTrailRecord
from mzpay.answers.bank_statements import BankStatementImported
from mzpay.answers.billers import Biller, BillerList, BillProduct, SmsChannel
from mzpay.answers.bindings import ConnectorBinding, ConnectorBindingList, Unbinding
from mzpay.answers.dispatch_failures import WebhookDispatchFailureList, WebhookDispatchReplay
from mzpay.answers.disputes import Dispute
from mzpay.answers.limits import AccountLimits, PartnerFlag, PayoutLimits, RateLimits
from mzpay.answers.management_audit import IdentityProviderAuditList
from mzpay.answers.messages import MessageSuppression, NotificationDeadLetterReplay
from mzpay.answers.oauth_clients import NewOAuthClient, OAuthClient, OAuthClientList
from mzpay.answers.payouts import PayoutBatch
from mzpay.answers.pricing import FeeSchedule
from mzpay.answers.psp_onboarding import CertificationRun, PspApplication, PspApplicationList
from mzpay.answers.psps import PilotState, PspList, PspStatus
from mzpay.answers.receipts import AccountFiscalDetails
from mzpay.answers.reconciliation import ReconciliationCase, ReconciliationCaseList
from mzpay.answers.reviews import BusinessAccountReviews, BusinessGatewayAccount
from mzpay.answers.route_health import FurtherRoute, RouteHealth, RouteHealthList
from mzpay.answers.system import Health, OpenApiDocument, SystemInfo
from mzpay.answers.webhook_deliveries import WebhookDelivery, WebhookDeliveryList
from mzpay.openapi.gateway import PaymentSnapshot, Payout
from mzpay.openapi.index import Routes, about_routes, models_of

_APP = "/v1/admin/psps/{application_id}"
PSP_ROUTES: Routes = {
    ("POST", "/v1/admin/psps"): PspApplication,
    ("GET", "/v1/admin/psps"): PspApplicationList,
    ("GET", _APP): PspApplication,
    ("PATCH", _APP): PspApplication,
    ("POST", f"{_APP}/submit"): PspApplication,
    ("PUT", f"{_APP}/documents/{{kind}}"): PspApplication,
    ("GET", f"{_APP}/documents/{{kind}}"): None,
    ("PUT", f"{_APP}/logo"): PspApplication,
    ("POST", f"{_APP}/logo/review"): PspApplication,
    ("POST", f"{_APP}/certification-runs"): CertificationRun,
    ("GET", f"{_APP}/certification-runs/{{run_id}}"): CertificationRun,
    ("POST", f"{_APP}/approve"): PspApplication,
    ("POST", f"{_APP}/reject"): PspApplication,
}

ROUTES: Routes = {
    **about_routes(Health, OpenApiDocument),
    ("GET", "/v1/system/info"): SystemInfo,
    ("POST", "/v1/accounts"): NewAccount,
    ("GET", "/v1/accounts/{account_id}"): Account,
    ("POST", "/v1/accounts/{account_id}/suspend"): Account,
    ("POST", "/v1/accounts/{account_id}/reactivate"): Account,
    ("GET", "/v1/accounts/{account_id}/onboarding-reviews"): BusinessAccountReviews,
    ("GET", "/v1/accounts/{account_id}/gateway-account"): BusinessGatewayAccount,
    ("PUT", "/v1/accounts/{account_id}/gateway-account"): BusinessGatewayAccount,
    ("POST", "/v1/accounts/{account_id}/bank-statements"): BankStatementImported,
    ("POST", "/v1/accounts/{account_id}/connected-accounts"): Connection,
    ("GET", "/v1/accounts/{account_id}/connected-accounts"): ConnectionList,
    ("DELETE", "/v1/accounts/{account_id}/connected-accounts/{connected_account_id}"): Disconnection,
    ("POST", "/v1/accounts/{account_id}/api-keys"): NewApiKey,
    ("POST", "/v1/api-keys/{key_id}/revoke"): ApiKey,
    ("POST", "/v1/accounts/{account_id}/oauth-clients"): NewOAuthClient,
    ("GET", "/v1/accounts/{account_id}/oauth-clients"): OAuthClientList,
    ("POST", "/v1/oauth-clients/{client_id}/revoke"): OAuthClient,
    ("POST", "/v1/accounts/{account_id}/webhook-secrets/roll"): RolledWebhookSecret,
    ("PUT", "/v1/accounts/{account_id}/rate-limits"): RateLimits,
    ("PUT", "/v1/accounts/{account_id}/partner"): PartnerFlag,
    ("GET", "/v1/accounts/{account_id}/pricing"): FeeSchedule,
    ("PUT", "/v1/accounts/{account_id}/pricing"): FeeSchedule,
    ("PUT", "/v1/accounts/{account_id}/limits"): AccountLimits,
    ("PUT", "/v1/accounts/{account_id}/payout-limits"): PayoutLimits,
    ("GET", "/v1/psps"): PspList,
    ("PUT", "/v1/psps/{psp_id}/availability"): PspStatus,
    ("PUT", "/v1/psps/{psp_id}/pilot"): PilotState,
    ("POST", "/v1/payouts/{payout_id}/approve"): Payout,
    ("POST", "/v1/payouts/{payout_id}/reject"): Payout,
    ("POST", "/v1/payout-batches/{batch_id}/approve"): PayoutBatch,
    ("POST", "/v1/payout-batches/{batch_id}/reject"): PayoutBatch,
    ("POST", "/v1/disputes"): Dispute,
    ("GET", "/v1/disputes/{dispute_id}"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/decide"): Dispute,
    ("POST", "/v1/payments/{payment_id}/confirm"): PaymentSnapshot,
    ("POST", "/v1/payments/{payment_id}/reject"): PaymentSnapshot,
    ("GET", "/v1/reconciliation-cases"): ReconciliationCaseList,
    ("GET", "/v1/reconciliation-cases/{object_id}"): ReconciliationCase,
    ("POST", "/v1/reconciliation-cases/{object_id}/resolve"): ReconciliationCase,
    ("GET", "/v1/accounts/{account_id}/connector-bindings"): ConnectorBindingList,
    ("PUT", "/v1/accounts/{account_id}/connector-bindings/{mode}/{method}"): ConnectorBinding,
    ("DELETE", "/v1/accounts/{account_id}/connector-bindings/{mode}/{method}"): Unbinding,
    ("PUT", "/v1/accounts/{account_id}/connector-bindings/{mode}/{method}/routes/{psp_id}"): FurtherRoute,
    ("GET", "/v1/route-health"): RouteHealthList,
    ("PUT", "/v1/route-health/{route}/{method}"): RouteHealth,
    ("GET", "/v1/identity-providers/{idp_id}/audit"): IdentityProviderAuditList,
    ("GET", "/v1/audit-records"): AuditTrailList,
    ("GET", "/v1/audit-records/{audit_id}"): AuditTrailRecord,
    ("GET", "/v1/webhook-deliveries/{delivery_id}"): WebhookDelivery,
    ("GET", "/v1/accounts/{account_id}/webhook-deliveries"): WebhookDeliveryList,
    ("POST", "/v1/webhook-deliveries/{delivery_id}/replay"): WebhookDelivery,
    ("GET", "/v1/webhook-dispatch-failures"): WebhookDispatchFailureList,
    ("POST", "/v1/webhook-dispatch-failures/{message_id}/replay"): WebhookDispatchReplay,
    ("POST", "/v1/notification-dead-letters/replay"): NotificationDeadLetterReplay,
    ("GET", "/v1/message-suppressions/{channel}/{address}"): MessageSuppression,
    ("DELETE", "/v1/message-suppressions/{channel}/{address}"): MessageSuppression,
    ("POST", "/v1/billers"): Biller,
    ("GET", "/v1/billers"): BillerList,
    ("GET", "/v1/billers/{biller_id}"): Biller,
    ("PATCH", "/v1/billers/{biller_id}"): Biller,
    ("POST", "/v1/billers/{biller_id}/retire"): Biller,
    ("POST", "/v1/billers/{biller_id}/products"): BillProduct,
    ("POST", "/v1/billers/{biller_id}/products/{product_id}/retire"): BillProduct,
    ("PUT", "/v1/accounts/{account_id}/sms-channel"): SmsChannel,
    ("DELETE", "/v1/accounts/{account_id}/sms-channel"): SmsChannel,
    ("PUT", "/v1/accounts/{account_id}/fiscal-details"): AccountFiscalDetails,
    ("GET", "/v1/accounts/{account_id}/fiscal-details"): AccountFiscalDetails,
    **PSP_ROUTES,
}


def models() -> list[type[BaseModel]]:
    """Every model of a success answer, once each."""
    return models_of(ROUTES.values())
