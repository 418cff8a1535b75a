"""Payments: methods and their limits, statuses, and the transition table of the lifecycle.

Statuses: requires_payment_method (a hosted checkout waiting for the payer to choose how to
pay), pending (sent to the provider, no answer yet), requires_action (the payer must do
something: next_action says what), authorized (card funds held, to capture or void),
succeeded, failed (failure_code says why), canceled (voided before capture, or a checkout
canceled by the merchant), expired (the payer never finished in time). succeeded, failed,
canceled and expired are terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.money import format_amount


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
    allowed = TRANSITIONS.get((current, action))
    if allowed is None:
        verb = action.replace("_", " ")
        raise ServiceError(409, "invalid_state", f"Cannot {verb} a payment that is {current}.")
    return allowed


@dataclass(frozen=True)
class MethodLimits:
    minimum: Decimal
    maximum: Decimal


@dataclass(frozen=True)
class Method:
    """A payment method the gateway fronts: networks, currencies and per-currency limits."""

    name: str
    networks: tuple[str, ...]
    limits: dict[str, MethodLimits]  # currency -> limits

    def public(self) -> dict[str, object]:
        return {
            "method": self.name,
            "networks": list(self.networks),
            "currencies": sorted(self.limits),
            "limits": {
                currency: {"min_amount": f"{limit.minimum:f}", "max_amount": f"{limit.maximum:f}"}
                for currency, limit in sorted(self.limits.items())
            },
        }


# Mozambican mobile-money networks and the number prefixes that belong to them.
NETWORK_PREFIXES: dict[str, tuple[str, ...]] = {
    "mpesa": ("84", "85"),
    "emola": ("86", "87"),
    "mkesh": ("82", "83"),
}

NETWORK_NAMES = {"mpesa": "M-Pesa", "emola": "e-Mola", "mkesh": "mKesh"}

METHODS: dict[str, Method] = {
    "mobile_wallet": Method(
        "mobile_wallet", tuple(NETWORK_PREFIXES), {"MZN": MethodLimits(Decimal("1.00"), Decimal("125000.00"))}
    ),
    "card": Method(
        "card",
        (),
        {
            "MZN": MethodLimits(Decimal("10.00"), Decimal("500000.00")),
            "USD": MethodLimits(Decimal("1.00"), Decimal("10000.00")),
        },
    ),
    "bank_transfer": Method("bank_transfer", (), {"MZN": MethodLimits(Decimal("1.00"), Decimal("10000000.00"))}),
    "reference": Method("reference", (), {"MZN": MethodLimits(Decimal("1.00"), Decimal("1000000.00"))}),
    "ussd": Method("ussd", (), {"MZN": MethodLimits(Decimal("1.00"), Decimal("125000.00"))}),
    "qr": Method("qr", (), {"MZN": MethodLimits(Decimal("1.00"), Decimal("125000.00"))}),
    "bnpl": Method("bnpl", (), {"MZN": MethodLimits(Decimal("500.00"), Decimal("100000.00"))}),
}


def money_view(amount: str, currency: str) -> dict[str, str]:
    return {"amount": amount, "currency": currency}


def view(payment: dict[str, Any]) -> dict[str, Any]:
    view = {
        "payment_id": payment["payment_id"],
        "provider_payment_id": payment["provider_payment_id"],
        "status": payment["status"],
        "money": money_view(payment["amount"], payment["currency"]),
        "source": payment.get("source"),
        "checkout_url": payment.get("checkout_url"),
        "expires_at": payment.get("expires_at") if payment["status"] not in TERMINAL else None,
        "next_action": payment.get("next_action"),
        "authorized_amount": payment["authorized_amount"],
        "captured_amount": payment["captured_amount"],
        "refunded_amount": format_amount(Decimal(payment.get("refunded_amount", 0)), payment["currency"]),
        "failure_code": payment.get("failure_code"),
        "failure_message": payment.get("failure_message"),
    }
    if payment.get("open_amount"):
        view |= {
            "open_amount": True,
            "min_amount": payment.get("min_amount"),
            "max_amount": payment.get("max_amount"),
            "suggested_amounts": payment.get("suggested_amounts"),
        }
    return view


def charge_result(payment: dict[str, Any]) -> dict[str, Any]:
    """ChargeResult (answers of charge, capture, void, complete-action)."""
    return {**view(payment), "processed_at": payment["updated_at"]}


def snapshot(payment: dict[str, Any]) -> dict[str, Any]:
    """PaymentSnapshot (answer of GET /payments/{id})."""
    return {**view(payment), "last_updated_at": payment["updated_at"]}


def amount_error(field: str, message: str) -> ServiceError:
    return ServiceError(
        400, "invalid_amount", f"{field}: {message}", errors=[FieldError(field, "invalid_amount", message)]
    )
