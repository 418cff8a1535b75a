"""What each route of the gateway API answers on success, for its OpenAPI document (`ROUTES`): an
index of the answer models, each declared once in mzpay.answers (one module per capability) and
returned by its use case; the conventions are mzpay.answers.base's and docs/conventions.md's
("Gateway answers")."""

from __future__ import annotations

from pydantic import BaseModel

from mzpay.answers.access import ApiKey, ClientCertificate, MtlsSetting, OAuthToken, RolledApiKey, WebhookEndpoint
from mzpay.answers.balance import Balance, BalanceTransaction, BalanceTransactionList
from mzpay.answers.base import Answer
from mzpay.answers.bills import BILL_ROUTES
from mzpay.answers.disputes import Dispute, DisputeList
from mzpay.answers.events import Event, EventList, SignatureRefusal, WebhookVerification
from mzpay.answers.name_lookups import NameLookup
from mzpay.answers.partners import (
    CashDeposit,
    CashDepositIntent,
    CashDepositList,
    PspTransaction,
    PspTransactionList,
)
from mzpay.answers.payments import ChargeResult, MethodList, PaymentList, PaymentSnapshot
from mzpay.answers.payouts import Payout, PayoutBatch, PayoutBatchList, PayoutList
from mzpay.answers.receipts import Receipt
from mzpay.answers.refunds import RefundList, RefundResult
from mzpay.answers.reports import Report, ReportList
from mzpay.answers.service import Health, OpenApiDocument, ProviderCallbackReceipt, SecretScanningLabels
from mzpay.openapi.index import Routes, about_routes, models_of

__all__ = ["ERROR_SHAPES", "ROUTES", "PaymentSnapshot", "Payout", "PayoutBatch", "SignatureRefusal", "models"]

# The models of error answers not in the API's error shape, by the name a route's @errors(shape=) gives.
ERROR_SHAPES: dict[str, type[Answer]] = {"SignatureRefusal": SignatureRefusal}

ROUTES: Routes = {
    **about_routes(Health, OpenApiDocument),
    ("GET", "/methods"): MethodList,
    ("POST", "/charges"): ChargeResult,
    ("POST", "/charges/{payment_id}/capture"): ChargeResult,
    ("POST", "/charges/{payment_id}/complete-action"): ChargeResult,
    ("POST", "/charges/{payment_id}/void"): ChargeResult,
    ("GET", "/payments/{payment_id}"): PaymentSnapshot,
    ("POST", "/v1/payments"): PaymentSnapshot,
    ("GET", "/v1/payments"): PaymentList,
    ("GET", "/v1/payments/{payment_id}"): PaymentSnapshot,
    ("GET", "/v1/payments/{payment_id}/refunds"): RefundList,
    ("GET", "/v1/payments/{payment_id}/receipt"): Receipt,
    ("POST", "/v1/payments/{payment_id}/cancel"): PaymentSnapshot,
    ("POST", "/v1/manual-payments"): PaymentSnapshot,
    ("PUT", "/v1/payments/{payment_id}/evidence"): PaymentSnapshot,
    ("GET", "/checkout/{payment_id}"): None,
    ("GET", "/checkout/{payment_id}/receipt"): None,
    ("GET", "/checkout/{payment_id}/return"): None,
    ("POST", "/checkout/{payment_id}/pay"): None,
    ("POST", "/checkout/{payment_id}/test/{outcome}"): None,
    ("POST", "/refunds"): RefundResult,
    ("POST", "/v1/payments/{payment_id}/refund"): RefundResult,
    ("GET", "/v1/refunds"): RefundList,
    ("GET", "/v1/refunds/{refund_id}"): RefundResult,
    ("GET", "/v1/balance"): Balance,
    ("POST", "/v1/reports"): Report,
    ("GET", "/v1/reports"): ReportList,
    ("GET", "/v1/reports/{report_id}"): Report,
    ("GET", "/v1/balance/transactions"): BalanceTransactionList,
    ("GET", "/v1/balance/transactions/{transaction_id}"): BalanceTransaction,
    ("GET", "/v1/disputes"): DisputeList,
    ("GET", "/v1/disputes/{dispute_id}"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/evidence"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/accept"): Dispute,
    ("POST", "/payouts"): Payout,
    ("GET", "/payouts/{payout_id}"): Payout,
    ("POST", "/v1/payouts"): Payout,
    ("GET", "/v1/payouts"): PayoutList,
    ("GET", "/v1/payouts/{payout_id}"): Payout,
    ("POST", "/v1/payouts/{payout_id}/cancel"): Payout,
    ("GET", "/v1/payout-batches"): PayoutBatchList,
    ("POST", "/v1/payout-batches"): PayoutBatch,
    ("GET", "/v1/payout-batches/{batch_id}"): PayoutBatch,
    ("POST", "/v1/payout-batches/{batch_id}/close"): PayoutBatch,
    ("POST", "/v1/payout-batches/{batch_id}/release"): PayoutBatch,
    ("POST", "/v1/name-lookups"): NameLookup,
    ("POST", "/v1/name-lookups/{lookup_id}/select"): NameLookup,
    ("POST", "/v1/psp/transactions"): PspTransaction,
    ("GET", "/v1/psp/transactions"): PspTransactionList,
    ("GET", "/v1/psp/transactions/{transaction_id}"): PspTransaction,
    ("POST", "/v1/cash-deposits/intents"): CashDepositIntent,
    ("GET", "/v1/cash-deposits/intents/{intent_id}"): CashDepositIntent,
    ("POST", "/v1/cash-deposits"): CashDeposit,
    ("GET", "/v1/cash-deposits"): CashDepositList,
    ("GET", "/v1/cash-deposits/{deposit_id}"): CashDeposit,
    **BILL_ROUTES,
    ("GET", "/v1/events"): EventList,
    ("GET", "/v1/events/{event_id}"): Event,
    ("POST", "/v1/admin/webhooks/verify"): WebhookVerification,
    ("GET", "/v1/api-keys/current"): ApiKey,
    ("POST", "/v1/api-keys/{key_id}/roll"): RolledApiKey,
    ("GET", "/v1/webhook-endpoint"): WebhookEndpoint,
    ("PUT", "/v1/webhook-endpoint"): WebhookEndpoint,
    ("DELETE", "/v1/webhook-endpoint"): WebhookEndpoint,
    ("POST", "/v1/client-certificates"): ClientCertificate,
    ("GET", "/v1/mtls"): MtlsSetting,
    ("PUT", "/v1/mtls"): MtlsSetting,
    ("POST", "/oauth/token"): OAuthToken,
    ("POST", "/secret-scanning/{provider}"): SecretScanningLabels,
    ("POST", "/callbacks/{provider}"): ProviderCallbackReceipt,
}


def models() -> list[type[BaseModel]]:
    """Every model of an answer (success, then the error shapes of ERROR_SHAPES), once each."""
    return models_of(ROUTES.values(), ERROR_SHAPES.values())
