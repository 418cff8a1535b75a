"""What every connector answers, and what it is asked."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

# failure_code of a charge its provider has no record of (it never reached the provider).
NOT_RECEIVED = "not_received"


@dataclass(frozen=True)
class ProviderCall:
    """A payment as a connector sees it."""

    provider_payment_id: str
    amount: Decimal
    currency: str
    source: dict[str, Any]
    return_url: str | None = None
    open_amount: bool = False  # the payer chooses the amount on the provider's page
    provider_reference: str | None = None  # the provider's id of the charge once money moved


@dataclass(frozen=True)
class ProviderResult:
    status: str
    next_action: dict[str, Any] | None = None
    failure_code: str | None = None
    failure_message: str | None = None
    captured: bool = False  # money moved (else held: authorized)
    extra: dict[str, Any] = field(default_factory=dict)
    fee: Decimal | None = None  # what the provider kept of the captured money, when it reports it


class Connector(Protocol):
    def charge(self, call: ProviderCall) -> ProviderResult: ...

    def complete_action(self, call: ProviderCall, next_action: dict[str, Any], otp: str | None) -> ProviderResult: ...

    def capture(self, call: ProviderCall, amount: Decimal) -> ProviderResult: ...

    def void(self, call: ProviderCall) -> ProviderResult: ...


@dataclass(frozen=True)
class PayoutCall:
    """A payout as a connector sees it."""

    provider_payout_id: str
    amount: Decimal
    currency: str
    destination: dict[str, Any]


@runtime_checkable
class Paying(Protocol):
    """A connector that can send money out (payouts)."""

    def payout(self, call: PayoutCall) -> ProviderResult: ...


@runtime_checkable
class ChargeRefusing(Protocol):
    """A connector that cannot take some sources it is bound for: `charge_refusal` says, before
    anything is written, why it cannot charge `source` (the request's source, as the wire has
    it; None: it can)."""

    def charge_refusal(self, source: dict[str, Any]) -> str | None: ...


@runtime_checkable
class Refunding(Protocol):
    """A connector that can give a payer money back (not every provider's API can).
    `refund_refusal` says, before anything is written, why it cannot refund `call` (None: it
    can); `reference` is the refund's own id (the provider's idempotency and query key)."""

    def refund_refusal(self, call: ProviderCall) -> str | None: ...

    def refund(self, call: ProviderCall, amount: Decimal, reference: str = "") -> ProviderResult: ...


@runtime_checkable
class RefundReconciling(Protocol):
    """A connector that can say what became of a refund or a payout whose outcome was unknown."""

    def refund_status(self, call: ProviderCall, reference: str) -> ProviderResult: ...

    def payout_status(self, call: PayoutCall) -> ProviderResult: ...


@dataclass(frozen=True)
class NameAnswer:
    """What a provider says of a wallet's holder: found with a (masked) name, or not found."""

    found: bool
    name: str | None = None


@runtime_checkable
class LookingUp(Protocol):
    """A connector that can say who holds a wallet (raises ProviderUnavailable when it cannot)."""

    def lookup_name(self, phone_number: str, reference: str) -> NameAnswer: ...


@runtime_checkable
class Reconciling(Protocol):
    """A connector that can say what became of a payment whose outcome was unknown."""

    def status(self, call: ProviderCall) -> ProviderResult: ...


@runtime_checkable
class Notified(Protocol):
    """A connector whose provider posts a charge's outcome to us (a signed callback):
    `verify_callback` checks the raw body's signature, `callback_outcome` reads a verified one
    (pending: it decides nothing)."""

    def verify_callback(self, body: bytes, signed: str) -> bool: ...

    def callback_outcome(self, event: dict[str, Any], call: ProviderCall) -> ProviderResult: ...
