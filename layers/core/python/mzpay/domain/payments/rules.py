"""Payments: methods and their limits, statuses, and the transition table of the lifecycle.

Statuses: requires_payment_method (a hosted checkout waiting for the payer to choose how to
pay), pending (sent to the provider, no answer yet), requires_action (the payer must do
something: next_action says what), authorized (card funds held, to capture or void),
succeeded, failed (failure_code says why), canceled (voided before capture, or a checkout
canceled by the merchant), expired (the payer never finished in time). succeeded, failed,
canceled and expired are terminal.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.common.entity import Reserved, Settling
from mzpay.domain.common.errors import ServiceError, allowed_move, refused_field
from mzpay.domain.money.amounts import format_amount


class Status:
    REQUIRES_PAYMENT_METHOD = "requires_payment_method"
    PENDING = "pending"
    REQUIRES_ACTION = "requires_action"
    AUTHORIZED = "authorized"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"
    EXPIRED = "expired"


TERMINAL = frozenset({Status.SUCCEEDED, Status.FAILED, Status.CANCELED, Status.EXPIRED})
# Statuses a payment leaves by itself at its expires_at (pending: test mode only, see expire).
EXPIRABLE = frozenset({Status.REQUIRES_PAYMENT_METHOD, Status.REQUIRES_ACTION, Status.PENDING})
_OUTCOMES = frozenset({Status.PENDING, Status.REQUIRES_ACTION, Status.AUTHORIZED, Status.SUCCEEDED, Status.FAILED})

# (status, action) -> the statuses the action may lead to. Anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], frozenset[str]] = {
    (Status.REQUIRES_ACTION, "complete_action"): frozenset(
        {Status.SUCCEEDED, Status.FAILED, Status.AUTHORIZED, Status.REQUIRES_ACTION}
    ),
    (Status.AUTHORIZED, "capture"): frozenset({Status.SUCCEEDED}),
    (Status.AUTHORIZED, "void"): frozenset({Status.CANCELED}),
    (Status.REQUIRES_PAYMENT_METHOD, "pay"): _OUTCOMES,
    (Status.REQUIRES_PAYMENT_METHOD, "cancel"): frozenset({Status.CANCELED}),
    (Status.REQUIRES_ACTION, "cancel"): frozenset({Status.CANCELED}),
    **{(status, "expire"): frozenset({Status.EXPIRED}) for status in EXPIRABLE},
}

# A terminal outcome becomes this event (and webhook); other changes get payment.updated.
EVENT_OF_STATUS = {
    Status.SUCCEEDED: "payment.succeeded",
    Status.FAILED: "payment.failed",
    Status.CANCELED: "payment.canceled",
    Status.AUTHORIZED: "payment.authorized",
    Status.REQUIRES_ACTION: "payment.requires_action",
    Status.PENDING: "payment.pending",
    Status.EXPIRED: "payment.expired",
}


def ensure_transition(current: str, action: str) -> frozenset[str]:
    """The statuses `action` may reach from `current`, or 409 invalid_state."""
    verb = action.replace("_", " ")
    return allowed_move(TRANSITIONS, current, action, f"Cannot {verb} a payment that is {current}.")


class Payment(Settling):
    """A payment: a charge (POST /charges) or a hosted checkout (POST /v1/payments). Amounts are
    decimal strings in the currency's exponent; `refunded_amount` is the running total refunds
    raise within `captured_amount`."""

    provider_payment_id: str
    payment_id: str
    account_id: str
    mode: str
    key_id: str | None = None
    psp_id: str | None = None  # chosen at admission (a checkout: when the payer pays)
    # which of the account's routes (connectors) carried it and why, when it had more than one
    # (routing by health, docs/connectors.md): {route, reason}; later calls keep to that route
    routing: dict[str, str] | None = None
    provider_reference: str | None = None  # the provider's own id of the money movement (M-Pesa's transaction ID)
    captured_at: str | None = None  # when money moved (the receipt's date)
    # the fees of its capture, as they were then (docs/pricing.md): what the provider reported
    # keeping and this service's fee under the account's schedule at that moment
    provider_fee: str | None = None
    service_fee: str | None = None
    reservations: tuple[Reserved, ...] | None = None
    amount: str
    currency: str
    source: dict[str, Any] | None = None  # as stored: never a card number
    country: str
    customer: dict[str, Any] | None = None
    callback_url: str | None = None
    return_url: str | None = None
    metadata: dict[str, Any] | None = None
    open_amount: bool | None = None
    min_amount: str | None = None
    max_amount: str | None = None
    suggested_amounts: list[str] | None = None
    checkout: bool | None = None
    checkout_url: str | None = None
    statement: dict[str, str] | None = None  # what the hosted page shows: biller, invoice_number, description
    networks: list[str] | None = None  # the wallets the hosted page offers (None: every one)
    collection_request_id: str | None = None  # the collection request whose payment link opened it
    # a payment its business recorded against a collection request (money received outside the
    # service: mzpay.domain.collection.recorded): how it came (bank_transfer, cash, ...)
    channel: str | None = None
    next_action: dict[str, Any] | None = None
    authorized_amount: str
    captured_amount: str
    refunded_amount: Decimal = Decimal(0)
    open_dispute: str | None = None  # the id of a dispute not decided yet (no refund meanwhile)
    charged_back_amount: Decimal = Decimal(0)  # what lost disputes gave the payer back
    fingerprint: str
    created_at: str
    updated_at: str
    # the sweep's expiry (see domain.payments.expiry) and the creating request's submission lease
    expires_at: str | None = None
    submit_lease_until: str | None = None
    evidence: dict[str, Any] | None = None  # a manual payment's: text, files (type, size, sha256, key), at

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)

    @property
    def customer_id(self) -> str | None:
        """The merchant's customer the payment is for (`customer.id`), if it names one."""
        named = (self.customer or {}).get("id")
        return str(named) if named is not None else None

    @property
    def refundable(self) -> Decimal:
        """What of the captured amount is not refunded (or charged back) yet."""
        return Decimal(self.captured_amount) - self.refunded_amount - self.charged_back_amount


def money_view(amount: str, currency: str) -> dict[str, str]:
    return {"amount": amount, "currency": currency}


def refund_state(captured_amount: str | None, refunded_amount: str | None) -> str | None:
    """What refunds made of a payment, as the console shows it beside its status (which stays the
    API's): "refunded" once refunds reach what was captured, "partially_refunded" while they are
    less, None with no refund."""
    refunded = Decimal(refunded_amount or 0)
    if refunded <= 0:
        return None
    return "refunded" if refunded >= Decimal(captured_amount or 0) else "partially_refunded"


def view(payment: Payment) -> dict[str, Any]:
    view: dict[str, Any] = {
        "payment_id": payment.payment_id,
        "provider_payment_id": payment.provider_payment_id,
        "status": payment.status,
        "money": money_view(payment.amount, payment.currency),
        "source": payment.source,
        "checkout_url": payment.checkout_url,
        "expires_at": payment.expires_at if payment.status not in TERMINAL else None,
        "next_action": payment.next_action,
        "authorized_amount": payment.authorized_amount,
        "captured_amount": payment.captured_amount,
        "refunded_amount": format_amount(payment.refunded_amount, payment.currency),
        "failure_code": payment.failure_code,
        "failure_message": payment.failure_message,
    }
    if payment.open_amount:
        view |= {
            "open_amount": True,
            "min_amount": payment.min_amount,
            "max_amount": payment.max_amount,
            "suggested_amounts": payment.suggested_amounts,
        }
    if payment.collection_request_id:
        view["collection_request_id"] = payment.collection_request_id
    if payment.customer_id is not None:
        view["customer_id"] = payment.customer_id
    if payment.evidence is not None:  # a manual payment
        view |= {"evidence": payment.evidence, "resolution": payment.resolution}
    if charged_fees(payment):
        view["fees"] = {"provider": payment.provider_fee or "0.00", "service": payment.service_fee or "0.00"}
    return view


def charged_fees(payment: Payment) -> bool:
    """Whether its capture carried a fee, the provider's or the service's (docs/pricing.md): the
    answers show `fees` then only, so a payment that paid none answers as it always did."""
    return any(Decimal(fee or 0) for fee in (payment.provider_fee, payment.service_fee))


def charge_result(payment: Payment) -> dict[str, Any]:
    """ChargeResult (answers of charge, capture, void, complete-action)."""
    return {**view(payment), "processed_at": payment.updated_at}


def snapshot(payment: Payment) -> dict[str, Any]:
    """PaymentSnapshot (answer of GET /payments/{id})."""
    return {**view(payment), "last_updated_at": payment.updated_at}


def amount_error(field: str, message: str) -> ServiceError:
    return refused_field("invalid_amount", field, f"{field}: {message}", message)
