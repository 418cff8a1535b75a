"""The gateway's own charge and payout paths, as the collection surface reaches them (a partner's
customer paying in by a charge, paid out by a payout, paying a bill by a charge and the gateway's
bill payment, refunded when the bill fails; mzpay.collection.transactions). The port
sits below both use-case packages, so mzpay.collection never imports mzpay.cases; the composition
root, mzpay.entry, binds it to mzpay.cases.charges.create_charge and mzpay.cases.payouts.create_payout
(and the bills' quote and payment, the refunds' refund) when a function imports it (every
collection function does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mzpay.domain.access.principal import Principal
    from mzpay.domain.bills.payments import BillPaymentRequest
    from mzpay.domain.bills.quotes import QuoteRequest
    from mzpay.domain.payments.charges import ChargeRequest
    from mzpay.domain.payouts.rules import PayoutRequest


class Gateway(Protocol):
    """The gateway's answers as its use cases give them (a ChargeResult, a Payout, a BillQuote, a
    BillPayment and a RefundResult of mzpay.answers, which this port, below the answers, names as Any)."""

    def create_charge(self, principal: Principal, request: ChargeRequest) -> Any: ...

    def create_payout(self, principal: Principal, request: PayoutRequest) -> Any: ...

    def quote_bill(self, principal: Principal, request: QuoteRequest) -> Any: ...

    def pay_bill(self, principal: Principal, request: BillPaymentRequest, payment_id: str) -> Any: ...

    def refund_payment(self, principal: Principal, provider_payment_id: str, refund_id: str, reason: str) -> Any: ...


_bound: list[Gateway] = []


def bind(implementation: Gateway) -> None:
    """Have `gateway()` answer `implementation` (mzpay.entry does it once per process)."""
    _bound[:] = [implementation]


def gateway() -> Gateway:
    """The bound gateway; RuntimeError when nothing bound it (import mzpay.entry first)."""
    if not _bound:
        raise RuntimeError("mzpay.ports.gateway is not bound: mzpay.entry binds it")
    return _bound[0]
