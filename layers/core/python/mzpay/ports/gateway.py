"""The gateway's own charge and payout paths, as the collection surface reaches them (a partner's
customer paying in by a charge, paid out by a payout; mzpay.collection.transactions). The port
sits below both use-case packages, so mzpay.collection never imports mzpay.cases; the composition
root, mzpay.entry, binds it to mzpay.cases.charges.create_charge and mzpay.cases.payouts.create_payout
when a function imports it (every collection function does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mzpay.domain.access.principal import Principal
    from mzpay.domain.payments.charges import ChargeRequest
    from mzpay.domain.payouts.rules import PayoutRequest


class Gateway(Protocol):
    """The gateway's answers as its use cases give them (a ChargeResult and a Payout of mzpay.answers,
    which this port, below the answers, names as Any)."""

    def create_charge(self, principal: Principal, request: ChargeRequest) -> Any: ...

    def create_payout(self, principal: Principal, request: PayoutRequest) -> Any: ...


_bound: list[Gateway] = []


def bind(implementation: Gateway) -> None:
    """Have `gateway()` answer `implementation` (mzpay.entry does it once per process)."""
    _bound[:] = [implementation]


def gateway() -> Gateway:
    """The bound gateway; RuntimeError when nothing bound it (import mzpay.entry first)."""
    if not _bound:
        raise RuntimeError("mzpay.ports.gateway is not bound: mzpay.entry binds it")
    return _bound[0]
