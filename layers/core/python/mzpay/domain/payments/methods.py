"""The payment methods the gateway fronts (GET /methods): their networks, currencies and
per-currency limits, and Mozambique's mobile-money networks with their number prefixes."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


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
