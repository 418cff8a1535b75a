"""What each route of the gateway API answers on success, for its OpenAPI document (`ROUTES`).

Every model refuses keys it does not name (`additionalProperties: false`), so checking real answers
against the document catches an undocumented key. A key that is always there is required (`X | None`
when it may be null); a key present in some answers only is optional without a default (`sometimes`).
Money amounts are decimal strings ("150.00"), times UTC ISO 8601 with a Z. The models mirror the views
that build the answers (mzpay.domain.payments.view, mzpay.steps.refunds.refund_result, ...); the
models of access, events and the other small answers are in mzpay.openapi.gateway_more.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, RootModel

from mzpay.answers.balance import Balance
from mzpay.answers.bills import BILL_ROUTES
from mzpay.answers.disputes import Dispute, DisputeList, Evidence, ManualResolution
from mzpay.answers.events import Event, EventList
from mzpay.answers.partners import CashDeposit, CashDepositIntent, PspTransaction, PspTransactionList
from mzpay.answers.receipts import Receipt
from mzpay.openapi.gateway_actions import (
    NextAction,
)
from mzpay.openapi.gateway_batches import PayoutBatch
from mzpay.openapi.gateway_more import (
    Amount,
    Answer,
    ApiKey,
    ClientCertificate,
    DecimalText,
    Health,
    MethodList,
    MtlsSetting,
    NameLookup,
    OAuthToken,
    OpenApiDocument,
    RolledApiKey,
    SecretScanningLabels,
    SignatureRefusal,
    Timestamp,
    WebhookEndpoint,
    WebhookVerification,
    examples,
    sometimes,
)

Network = Literal["mpesa", "emola", "mkesh"]
PaymentStatus = Literal[
    "requires_payment_method", "pending", "requires_action", "authorized", "succeeded", "failed", "canceled", "expired"
]
PayoutStatus = Literal["waiting_for_approval", "pending", "in_transit", "paid", "failed", "canceled", "rejected"]


# ---------------------------------------------------------------- payments
class SourceWallet(Answer):
    """The payer's mobile wallet."""

    network: Network = Field(description="The wallet's network.")
    phone_number: str = Field(description="The payer's number in E.164, e.g. +258841234567.")


class SourceCard(Answer):
    """The card: never its number, only the acquirer's token."""

    token: str = Field(description="The acquirer's card token (a test card number is shown as its token).")
    last4: str = sometimes("The last four digits; only when a test card number was sent.")


class ManualSource(Answer):
    """How the payer paid a manual payment."""

    kind: Literal["cash", "bank_deposit"] = Field(description="Cash at the counter, or a deposit at a bank.")
    reference: str = sometimes("The deposit slip's or receipt's reference, if given.")
    payer_name: str = sometimes("Who paid, if given.")


class PaymentSource(Answer):
    """How the payer pays: `type` plus the sub-object named after it, as the charge sent it."""

    type: Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl", "manual"] = Field(
        description="The payment method (manual: cash or a bank deposit the merchant recorded)."
    )
    mobile_wallet: SourceWallet = sometimes("The wallet; mobile_wallet payments.")
    card: SourceCard = sometimes("The card; card payments.")
    bank_transfer: dict[str, str] = sometimes("The details sent with a bank_transfer source, if any.")
    reference: dict[str, str] = sometimes("The details sent with a reference source, if any.")
    ussd: dict[str, str] = sometimes("The details sent with a ussd source, if any.")
    qr: dict[str, str] = sometimes("The details sent with a qr source, if any.")
    bnpl: dict[str, str] = sometimes("The details sent with a bnpl source, if any.")
    manual: ManualSource = sometimes("How a manual payment was made; manual payments.")


class PaymentView(Answer):
    """What every answer about a payment shows (ChargeResult and PaymentSnapshot add one time)."""

    payment_id: str = Field(description="Your id of the payment (a checkout created without one: the gateway's).")
    provider_payment_id: str = Field(description="The gateway's id (a ULID): the {payment_id} of the routes.")
    status: PaymentStatus = Field(description="Where the payment is in its lifecycle (docs/payments.md).")
    money: Amount = Field(description="The amount charged (an open-amount payment: the payer's, once chosen).")
    source: PaymentSource | None = Field(description="How the payer pays; null for a checkout not paid yet.")
    checkout_url: str | None = Field(description="The hosted page the payer opens; null for a charge.")
    expires_at: Timestamp | None = Field(description="While the payment waits for the payer: when it expires.")
    next_action: NextAction | None = Field(description="What the payer must do while requires_action; else null.")
    authorized_amount: DecimalText = Field(description="The amount authorized (held on the card, or captured).")
    captured_amount: DecimalText = Field(description="The amount captured: money that moved.")
    refunded_amount: DecimalText = Field(description="The amount refunded so far, within captured_amount.")
    failure_code: str | None = Field(description="Why it failed (e.g. insufficient_funds, payer_declined).")
    failure_message: str | None = Field(description="The failure explained in plain words.")
    open_amount: Literal[True] = sometimes("true for an open-amount payment (the payer chooses the amount).")
    min_amount: DecimalText | None = sometimes("The least the payer may choose; open-amount payments only.")
    max_amount: DecimalText | None = sometimes("The most the payer may choose; open-amount payments only.")
    suggested_amounts: list[DecimalText] | None = sometimes("Amounts offered to the payer; open-amount payments.")
    collection_request_id: str = sometimes("The collection request whose payment link opened this checkout.")
    customer_id: str = sometimes("Your customer the payment is for (`customer.id` or ?customer_id=), if named.")
    evidence: Evidence = sometimes("A manual payment's evidence, as given last.")
    resolution: ManualResolution | None = sometimes("A manual payment's confirmation or rejection; null while pending.")


_WALLET: dict[str, Any] = {
    "type": "mobile_wallet",
    "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"},
}
_PAYMENT: dict[str, Any] = {
    "payment_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX",
    "provider_payment_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
    "status": "succeeded",
    "money": {"amount": "150.00", "currency": "MZN"},
    "source": _WALLET,
    "checkout_url": None,
    "expires_at": None,
    "next_action": None,
    "authorized_amount": "150.00",
    "captured_amount": "150.00",
    "refunded_amount": "0.00",
    "failure_code": None,
    "failure_message": None,
}


class ChargeResult(PaymentView):
    """A charge as the request left it (POST /charges, capture, void, complete-action)."""

    model_config = examples(
        {**_PAYMENT, "processed_at": "2026-11-02T10:00:04Z"},
        {
            **_PAYMENT,
            "status": "requires_action",
            "expires_at": "2026-11-02T10:30:00Z",
            "next_action": {"type": "poll", "poll_interval_secs": 5},
            "authorized_amount": "0.00",
            "captured_amount": "0.00",
            "processed_at": "2026-11-02T10:00:01Z",
        },
    )

    processed_at: Timestamp = Field(description="When the payment last changed.")


class PaymentSnapshot(PaymentView):
    """A payment as it is now (reads, a new hosted checkout, a cancel); its events carry it too."""

    model_config = examples(
        {
            **_PAYMENT,
            "payment_id": "7d6f3c1e-2b4a-4c8e-9f10-3a5b6c7d8e9f",
            "status": "requires_payment_method",
            "source": None,
            "checkout_url": "https://pay.mzpay.example/checkout/01JD8Z5M7B2C3D4E5F6G7H8J9K",
            "expires_at": "2026-11-03T10:00:00Z",
            "authorized_amount": "0.00",
            "captured_amount": "0.00",
            "last_updated_at": "2026-11-02T10:00:00Z",
        }
    )

    last_updated_at: Timestamp = Field(description="When the payment last changed.")


# ---------------------------------------------------------------- refunds
class RefundResult(Answer):
    """A refund (made by either route, or read); its events carry it too."""

    model_config = examples(
        {
            "refund_id": "01JD9A1B2C3D4E5F6G7H8J9K0M",
            "provider_refund_id": "01JD9A1C5N6P7Q8R9S0T1V2W3X",
            "provider_payment_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
            "status": "succeeded",
            "money": {"amount": "50.00", "currency": "MZN"},
            "reason": "Returned item",
            "failure_code": None,
            "failure_message": None,
            "processed_at": "2026-11-03T09:12:00Z",
        }
    )

    refund_id: str = Field(description="Your id of the refund (one is made when you sent none).")
    provider_refund_id: str = Field(description="The gateway's id of the refund (a ULID): GET /v1/refunds/{id}.")
    provider_payment_id: str = Field(description="The refunded payment.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="pending until the provider answers.")
    money: Amount = Field(description="The amount refunded.")
    reason: str | None = Field(description="The reason you gave.")
    failure_code: str | None = Field(description="Why it failed (e.g. refund_declined); else null.")
    failure_message: str | None = Field(description="The failure explained in plain words.")
    processed_at: Timestamp = Field(description="When the refund last changed.")


# ---------------------------------------------------------------- payouts
class DestinationWallet(Answer):
    """The recipient's mobile wallet."""

    network: Network = Field(description="The wallet's network.")
    phone_number: str = Field(description="The recipient's number in E.164, shown in full.")


class DestinationBank(Answer):
    """The beneficiary's bank account."""

    name: str = Field(description="The account holder's name.")
    account: str = Field(description="The NIB, every digit but the last four shown as *.")


class DestinationManual(Answer):
    """Paid by you outside the gateway."""

    reference: str = sometimes("Your reference to reconcile it with, when you sent one.")


class DestinationCrypto(Answer):
    """A crypto address."""

    address: str = Field(description="The address.")
    network: str = Field(description="The chain.")


class DestinationCheque(Answer):
    """A cheque."""

    payee_name: str = Field(description="Whom the cheque is made out to.")
    delivery_address: str = sometimes("Where it is delivered, when you sent one.")


class PayoutDestination(Answer):
    """Where the money goes: `type` plus the sub-object named after it."""

    type: Literal["mobile_wallet", "bank_transfer", "manual", "crypto", "cheque"] = Field(description="The kind.")
    mobile_wallet: DestinationWallet = sometimes("The wallet; mobile_wallet payouts.")
    bank_transfer: DestinationBank = sometimes("The bank account; bank_transfer payouts.")
    manual: DestinationManual = sometimes("The manual payout's details, when sent.")
    crypto: DestinationCrypto = sometimes("The address; crypto payouts.")
    cheque: DestinationCheque = sometimes("The cheque; cheque payouts.")


class Payout(Answer):
    """A payout (made by either route, read or canceled); its events carry it too."""

    model_config = examples(
        {
            "payout_id": "01JD9B7E8F9G0H1J2K3M4N5P6Q",
            "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9A",
            "status": "pending",
            "money": {"amount": "2500.00", "currency": "MZN"},
            "destination": {
                "type": "bank_transfer",
                "bank_transfer": {"name": "Ana Machava", "account": "*****************0237"},
            },
            "failure_code": None,
            "failure_message": None,
            "created_at": "2026-11-03T08:00:00Z",
            "processed_at": "2026-11-03T08:00:00Z",
        }
    )

    payout_id: str = Field(description="Your id of the payout (ULID or UUID).")
    provider_payout_id: str = Field(
        description="The gateway's id of the payout (a ULID): the {payout_id} of the routes."
    )
    status: PayoutStatus = Field(description="Where the payout is in its lifecycle (docs/payouts.md).")
    money: Amount = Field(description="The amount paid out.")
    destination: PayoutDestination = Field(description="Where the money goes (a bank account masked).")
    failure_code: str | None = Field(description="Why it failed or was rejected (e.g. payout_declined); else null.")
    failure_message: str | None = Field(description="The failure, or the approver's reason, in plain words.")
    created_at: Timestamp = Field(description="When the payout was created.")
    processed_at: Timestamp = Field(description="When the payout last changed.")
    customer_id: str = sometimes("Your customer the payout is for (?customer_id=), if named.")


Success = type[Answer] | type[RootModel[Any]]
# The models of error answers not in the API's error shape, by the name a route's @errors(shape=) gives.
ERROR_SHAPES: dict[str, type[Answer]] = {"SignatureRefusal": SignatureRefusal}

# (method, path) -> the model of its success answer; None: a page for people or its files (HTML, CSS, JS).
ROUTES: dict[tuple[str, str], Success | None] = {
    ("GET", "/health"): Health,
    ("GET", "/methods"): MethodList,
    ("POST", "/charges"): ChargeResult,
    ("POST", "/charges/{payment_id}/capture"): ChargeResult,
    ("POST", "/charges/{payment_id}/complete-action"): ChargeResult,
    ("POST", "/charges/{payment_id}/void"): ChargeResult,
    ("GET", "/payments/{payment_id}"): PaymentSnapshot,
    ("POST", "/v1/payments"): PaymentSnapshot,
    ("GET", "/v1/payments/{payment_id}"): PaymentSnapshot,
    ("GET", "/v1/payments/{payment_id}/receipt"): Receipt,
    ("POST", "/v1/payments/{payment_id}/cancel"): PaymentSnapshot,
    ("POST", "/v1/manual-payments"): PaymentSnapshot,
    ("PUT", "/v1/payments/{payment_id}/evidence"): PaymentSnapshot,
    ("GET", "/checkout/{payment_id}"): None,
    ("GET", "/checkout/{payment_id}/receipt"): None,
    ("POST", "/checkout/{payment_id}/pay"): None,
    ("POST", "/checkout/{payment_id}/test/{outcome}"): None,
    ("POST", "/refunds"): RefundResult,
    ("POST", "/v1/payments/{payment_id}/refund"): RefundResult,
    ("GET", "/v1/refunds/{refund_id}"): RefundResult,
    ("GET", "/v1/balance"): Balance,
    ("GET", "/v1/disputes"): DisputeList,
    ("GET", "/v1/disputes/{dispute_id}"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/evidence"): Dispute,
    ("POST", "/v1/disputes/{dispute_id}/accept"): Dispute,
    ("POST", "/payouts"): Payout,
    ("GET", "/payouts/{payout_id}"): Payout,
    ("POST", "/v1/payouts"): Payout,
    ("GET", "/v1/payouts/{payout_id}"): Payout,
    ("POST", "/v1/payouts/{payout_id}/cancel"): Payout,
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
    ("GET", "/openapi.json"): OpenApiDocument,
    ("GET", "/docs"): None,
    ("GET", "/docs/{asset}"): None,
}


def models() -> list[type[BaseModel]]:
    """Every model of an answer (success, then the error shapes of ERROR_SHAPES), once each."""
    return list({model: None for model in [*ROUTES.values(), *ERROR_SHAPES.values()] if model is not None})
