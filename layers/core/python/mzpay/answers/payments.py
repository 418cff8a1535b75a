"""The answers about payments (mzpay.domain.payments.rules.view, charge_result, snapshot): a charge as a
request left it, a payment as it is now, what the payer must do next (`next_action`), and the
payment methods (GET /methods)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mzpay.answers.base import (
    Amount,
    AmountRange,
    Answer,
    Currency,
    DecimalText,
    FailureExplained,
    Page,
    Timestamp,
    examples,
    sometimes,
)
from mzpay.answers.disputes import Evidence, ManualResolution

Network = Literal["mpesa", "emola", "mkesh"]
Method = Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]
PaymentStatus = Literal[
    "requires_payment_method", "pending", "requires_action", "authorized", "succeeded", "failed", "canceled", "expired"
]


# Keys that answers of this module share, described once.
CodeExpiresAt = Annotated[Timestamp, Field(description="When the code stops working.")]
PaymentChangedAt = Annotated[Timestamp, Field(description="When the payment last changed.")]


# ---------------------------------------------------------------- what the payer must do next
class PollAction(Answer):
    """The payer approves a prompt on their phone: read the payment again until it moves on."""

    type: Literal["poll"] = Field(description="poll: nothing to show the payer.")
    poll_interval_secs: int = Field(description="Seconds to wait between two reads of the payment.")


class RedirectAction(Answer):
    """Send the payer to `redirect_url` (3-D Secure, their bank, a lender, the open-amount page)."""

    type: Literal["redirect_to_url"] = Field(description="redirect_to_url: open redirect_url for the payer.")
    redirect_url: str = Field(description="The page where the payer completes the payment.")
    return_url: str | None = Field(description="Where the payer is sent back afterwards: the charge's return_url.")
    bnpl_provider: str = sometimes("The lender's name; buy-now-pay-later payments only.")


class OtpFormAction(Answer):
    """Ask the payer for the one-time code they received, then send it to complete-action as `otp`."""

    type: Literal["display_otp_form"] = Field(description="display_otp_form: show a form for the code.")
    otp_hint: str = Field(description="A hint to show beside the form.")
    otp_length: int = Field(description="How many digits the code has.")
    masked_dest: str = Field(description="Where the code was sent, masked.")


class ReferenceAction(Answer):
    """Show the payer an entity and reference to pay at an ATM or in their banking app."""

    type: Literal["display_reference"] = Field(description="display_reference: show entity and reference.")
    entity: str = Field(description="The payment entity number.")
    reference: str = Field(description="The payment reference for this payment and amount.")
    expires_at: Timestamp = Field(description="When the reference stops being payable.")


class UssdCodeAction(Answer):
    """Show the payer a USSD code to dial."""

    type: Literal["display_ussd_code"] = Field(description="display_ussd_code: show ussd_code.")
    ussd_code: str = Field(description="The code the payer dials, e.g. *500*21000*123456789#.")
    expires_at: CodeExpiresAt


class QrCodeAction(Answer):
    """Show the payer a QR code to scan with their wallet app."""

    type: Literal["display_qr_code"] = Field(description="display_qr_code: show the QR code.")
    qr_code_url: str = Field(description="An image of the QR code.")
    qr_code_data: str = Field(description="The QR code's content, to render it yourself.")
    expires_at: CodeExpiresAt


NextAction = Annotated[
    PollAction | RedirectAction | OtpFormAction | ReferenceAction | UssdCodeAction | QrCodeAction,
    Field(discriminator="type"),
]


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

    kind: Literal["cash", "bank_deposit", "bank_transfer", "simo_reference", "other"] = Field(
        description="Cash at the counter, or a deposit at a bank; a payment a business recorded against a collection "
        "request (the collection API's POST /v1/payments) also: a bank transfer, a SIMO/interbank reference payment "
        "or another way."
    )
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


class PaymentFees(Answer):
    """The fees of a payment's capture, fixed when it was captured (docs/pricing.md)."""

    provider: DecimalText = Field(description="What the provider reported keeping of the captured amount.")
    service: DecimalText = Field(
        description="This service's fee under the account's fee schedule at capture; a later schedule never changes it."
    )


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
    failure_message: FailureExplained
    open_amount: Literal[True] = sometimes("true for an open-amount payment (the payer chooses the amount).")
    min_amount: DecimalText | None = sometimes("The least the payer may choose; open-amount payments only.")
    max_amount: DecimalText | None = sometimes("The most the payer may choose; open-amount payments only.")
    suggested_amounts: list[DecimalText] | None = sometimes("Amounts offered to the payer; open-amount payments.")
    collection_request_id: str = sometimes("The collection request whose payment link opened this checkout.")
    customer_id: str = sometimes("Your customer the payment is for (`customer.id` or ?customer_id=), if named.")
    evidence: Evidence = sometimes("A manual payment's evidence, as given last.")
    resolution: ManualResolution | None = sometimes("A manual payment's confirmation or rejection; null while pending.")
    fees: PaymentFees = sometimes("The fees of its capture, when it carried one (the provider's or the service's).")


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
        {**_PAYMENT, "fees": {"provider": "0.00", "service": "2.25"}, "processed_at": "2026-11-02T10:00:04Z"},
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

    processed_at: PaymentChangedAt


_SNAPSHOT: dict[str, Any] = {
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


class PaymentSnapshot(PaymentView):
    """A payment as it is now (reads, a new hosted checkout, a cancel); its events carry it too."""

    model_config = examples(_SNAPSHOT)

    last_updated_at: PaymentChangedAt


# ---------------------------------------------------------------- methods
class MethodLimit(AmountRange):
    """The amounts a method takes in one currency."""


class MethodInfo(Answer):
    """A payment method the gateway offers."""

    method: Method = Field(description="The source.type that selects it.")
    networks: list[Network] = Field(description="Its networks (mobile wallets only).")
    currencies: list[Currency] = Field(description="The currencies it takes.")
    limits: dict[Currency, MethodLimit] = Field(description="Per currency, the amounts it takes.")


class MethodList(Answer):
    """The payment methods, their networks, currencies and limits."""

    model_config = examples(
        {
            "methods": [
                {
                    "method": "mobile_wallet",
                    "networks": ["mpesa", "emola", "mkesh"],
                    "currencies": ["MZN"],
                    "limits": {"MZN": {"min_amount": "1.00", "max_amount": "125000.00"}},
                }
            ]
        }
    )

    methods: list[MethodInfo] = Field(description="Every method.")


class PaymentList(Page[PaymentSnapshot]):
    """A page of the account's payments in the key's mode, newest first (GET /v1/payments)."""

    model_config = examples(
        {"data": [_SNAPSHOT], "has_more": True, "next_page_token": "eyJwIjoiMjAyNi0xMS0wMlQxMD.c2lnbmF0dXJl"}
    )
