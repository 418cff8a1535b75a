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

from mzpay.domain.errors import ServiceError


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
