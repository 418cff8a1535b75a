"""Which connector carries a payment or a payout: the simulator for test traffic; for live
traffic the connector an operator bound to the account for the method (KMS-sealed credentials),
else 409 no_connector_binding."""

from __future__ import annotations

from typing import Any, TypeVar

from mzpay import deps
from mzpay.connectors.base import ChargeRefusing, Connector, LookingUp, Paying
from mzpay.connectors.registry import LIVE_CONNECTORS, carries
from mzpay.connectors.simulated import SimulatedConnector
from mzpay.domain.common.errors import ServiceError

C = TypeVar("C", LookingUp, Paying)


def no_binding() -> ServiceError:
    return ServiceError(
        409,
        "no_connector_binding",
        "No live connector is bound to this account for this method; ask your operator to bind one.",
    )


def connector_for(account_id: str, mode: str, method: str, psp_id: str) -> Connector:
    """The simulator for test traffic; for live traffic the connector bound to the account for
    `method`, which must be the PSP routing chose or an aggregator that carries it."""
    if mode == "test":
        return SimulatedConnector()
    bound = deps.bindings().credentials(account_id, mode, method)
    if bound is None or not carries(bound[0], psp_id):
        raise no_binding()
    return LIVE_CONNECTORS[bound[0]].build(bound[1])


def refused_source(connector: Connector, source: dict[str, Any]) -> None:
    """Before anything is written: the connector chosen cannot take `source` (422 not_supported,
    rule operation, with its reason), e.g. a card token through an aggregator whose page takes cards."""
    why = connector.charge_refusal(source) if isinstance(connector, ChargeRefusing) else None
    if why:
        raise ServiceError(422, "not_supported", why, rule="operation")


def payout_method(destination: dict[str, Any]) -> str:
    """The binding method a payout destination goes through (a wallet's network, else its type)."""
    if destination["type"] == "mobile_wallet":
        return str(destination["mobile_wallet"]["network"])
    return str(destination["type"])


def payout_connector(account_id: str, mode: str, destination: dict[str, Any]) -> Paying:
    """The simulator for test payouts; for live ones the connector bound for the method, which
    must be able to pay out (else 422 not_supported, rule operation)."""
    if mode == "test":
        return SimulatedConnector()
    return _bound(account_id, mode, payout_method(destination), Paying, "pay out through the API")  # type: ignore[type-abstract]


def lookup_connector(account_id: str, mode: str, network: str) -> LookingUp:
    """The live connector bound for `network` that can say who holds a wallet (else 422
    not_supported, rule operation; nothing bound: 409 no_connector_binding)."""
    return _bound(account_id, mode, network, LookingUp, "look names up")  # type: ignore[type-abstract]


def _bound(account_id: str, mode: str, method: str, able: type[C], to: str) -> C:
    """The live connector bound to the account for `method`, which must be `able` (else 422
    not_supported, rule operation: "The bound provider cannot <to>."). `able` is a runtime-checkable
    Protocol, which mypy will not take for a type[...] (its callers say so: type-abstract)."""
    bound = deps.bindings().credentials(account_id, mode, method)
    if bound is None or bound[0] not in LIVE_CONNECTORS:
        raise no_binding()
    connector = LIVE_CONNECTORS[bound[0]].build(bound[1])
    if not isinstance(connector, able):
        raise ServiceError(422, "not_supported", f"The bound provider cannot {to}.", rule="operation")
    return connector
