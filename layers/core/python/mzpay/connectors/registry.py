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
}
