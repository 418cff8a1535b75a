"""Which connector talks to which live PSP, and the credentials each needs to be bound.

Live connectors are imported only when a live payment needs one (cold start)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from mzpay.connectors.base import Connector


@dataclass(frozen=True)
class LiveConnector:
    module: str
    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    # An aggregator: the rails (PSPs of the routing matrix) it carries, each bound per method in
    # place of the rail's own connector. Empty: the connector is the PSP's own.
    rails: tuple[str, ...] = ()

    def build(self, credentials: dict[str, str]) -> Connector:
        factory = getattr(importlib.import_module(self.module), self.name)
        connector: Connector = factory(credentials)
        return connector


LIVE_CONNECTORS: dict[str, LiveConnector] = {
    "vodacom-mpesa": LiveConnector(
        "mzpay.connectors.mpesa",
        "MpesaConnector",
        required=("api_key", "public_key", "service_provider_code"),
        optional=("base_url", "origin", "query_base_url", "initiator_identifier", "security_credential"),
    ),
    "paysuite": LiveConnector(
        "mzpay.connectors.paysuite",
        "PaysuiteConnector",
        required=("api_token", "webhook_secret"),
        optional=("base_url", "callback_url"),
        rails=("vodacom-mpesa", "movitel-emola", "bci-cards"),
    ),
}

# Why a live binding of a PSP without a connector is refused: what a live connection needs.
NOT_CONNECTED: dict[str, str] = {
    "tmcel-mkesh": (
        "There is no live connector for tmcel-mkesh yet: a live mKesh connection needs Tmcel's merchant "
        "API contract and credentials (or an aggregator that carries mKesh); see docs/connectors.md."
    ),
    "bci-cards": (
        "There is no live connector for bci-cards yet: live cards need BCI's acquiring API and PCI DSS "
        "scope for its tokens; cards on an aggregator's page are live: bind paysuite for card (see docs/connectors.md)."
    ),
}


def carries(connector_psp: str, rail: str) -> bool:
    """Whether the connector bound as `connector_psp` carries charges routed to `rail`: the PSP's
    own connector, or an aggregator that carries that rail."""
    connector = LIVE_CONNECTORS.get(connector_psp)
    return connector is not None and (connector_psp == rail or rail in connector.rails)
