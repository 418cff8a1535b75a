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


@dataclass(frozen=True)
class ProviderResult:
    status: str
    next_action: dict[str, Any] | None = None
    failure_code: str | None = None
    failure_message: str | None = None
    captured: bool = False  # money moved (else held: authorized)
    extra: dict[str, Any] = field(default_factory=dict)


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
class Refunding(Protocol):
    """A connector that can give a payer money back (not every provider's API can)."""

    def refund(self, call: ProviderCall, amount: Decimal) -> ProviderResult: ...


@runtime_checkable
class Reconciling(Protocol):
    """A connector that can say what became of a payment whose outcome was unknown."""

    def status(self, call: ProviderCall) -> ProviderResult: ...
