"""Routing: which PSP may carry a charge, decided before any provider is called.

A capability matrix lists each PSP's modes, methods (and networks), currencies, countries and
per-currency limits. Refusals are 422 with the failing `rule` (or 503 no_route when every
eligible PSP is unavailable); each gets a `rejection_id` and a `transaction.rejected` event, and
no payment is created.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from mzpay.domain.common.errors import ServiceError

NO_ROUTE_RETRY_AFTER = 30


@dataclass(frozen=True)
class Psp:
    psp_id: str
    name: str
    modes: frozenset[str]
    methods: dict[str, frozenset[str]]  # method -> networks (empty: the method has none)
    currencies: frozenset[str]
    countries: frozenset[str]
    limits: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)  # currency -> (min, max)
    pilot: bool = False  # newly onboarded: in pilot until an operator graduates it

    @property
    def simulated(self) -> bool:
        return self.modes == frozenset({"test"})

    def carries(self, method: str, network: str | None) -> bool:
        return method in self.methods and (not self.methods[method] or network in self.methods[method])

    def public(self) -> dict[str, object]:
        return {
            "psp_id": self.psp_id,
            "name": self.name,
            "modes": sorted(self.modes),
            "methods": {method: sorted(networks) for method, networks in self.methods.items()},
            "currencies": sorted(self.currencies),
            "countries": sorted(self.countries),
            "limits": {c: {"min_amount": f"{lo:f}", "max_amount": f"{hi:f}"} for c, (lo, hi) in self.limits.items()},
            "pilot_by_default": self.pilot,
        }


_ALL_WALLETS = frozenset({"mpesa", "emola", "mkesh"})

CAPABILITY_MATRIX: tuple[Psp, ...] = (
    Psp(
        "simulator",
        "Test-mode simulator",
        frozenset({"test"}),
        {
            "mobile_wallet": _ALL_WALLETS,
            "card": frozenset(),
            "bank_transfer": frozenset(),
            "reference": frozenset(),
            "ussd": frozenset(),
            "qr": frozenset(),
            "bnpl": frozenset(),
        },
        frozenset({"MZN", "USD"}),
        frozenset({"MZ"}),
    ),
    Psp(
        "vodacom-mpesa",
        "Vodacom M-Pesa",
        frozenset({"live"}),
        {"mobile_wallet": frozenset({"mpesa"})},
        frozenset({"MZN"}),
        frozenset({"MZ"}),
        {"MZN": (Decimal("1.00"), Decimal("125000.00"))},
    ),
    Psp(
        "movitel-emola",
        "Movitel e-Mola",
        frozenset({"live"}),
        {"mobile_wallet": frozenset({"emola"})},
        frozenset({"MZN"}),
        frozenset({"MZ"}),
        {"MZN": (Decimal("1.00"), Decimal("100000.00"))},
    ),
    Psp(
        "tmcel-mkesh",
        "Tmcel mKesh",
        frozenset({"live"}),
        {"mobile_wallet": frozenset({"mkesh"})},
        frozenset({"MZN"}),
        frozenset({"MZ"}),
        {"MZN": (Decimal("1.00"), Decimal("50000.00"))},
        pilot=True,
    ),
    Psp(
        "bci-cards",
        "BCI card acquiring",
        frozenset({"live"}),
        {"card": frozenset()},
        frozenset({"MZN", "USD"}),
        frozenset({"MZ"}),
        {"MZN": (Decimal("10.00"), Decimal("250000.00")), "USD": (Decimal("1.00"), Decimal("5000.00"))},
    ),
)
PSPS = {psp.psp_id: psp for psp in CAPABILITY_MATRIX}
PSP_IDS = frozenset(PSPS)


def refusal(status: int, code: str, rule: str, message: str, rejection_id: str) -> ServiceError:
    headers = {"Retry-After": str(NO_ROUTE_RETRY_AFTER)} if code == "no_route" else None
    return ServiceError(status, code, message, headers=headers, rule=rule, rejection_id=rejection_id)


def eligible(
    method: str,
    network: str | None,
    currency: str,
    country: str,
    amount: Decimal,
    mode: str,
    rejection_id: str,
    matrix: Iterable[Psp] = CAPABILITY_MATRIX,
) -> list[Psp]:
    """The PSPs that may carry the charge, best first; else the refusal (ServiceError)."""
    psps = list(matrix)
    carriers = [p for p in psps if mode in p.modes and p.carries(method, network)]
    if not carriers:
        if mode == "live" and any(p.simulated and p.carries(method, network) for p in psps):
            raise refusal(422, "not_supported", "method_not_live", f"{method} is not live yet.", rejection_id)
        raise refusal(
            422, "not_supported", "method", f"No PSP carries {method} {network or ''}".rstrip() + ".", rejection_id
        )
    carriers = [p for p in carriers if currency in p.currencies]
    if not carriers:
        raise refusal(422, "not_supported", "currency", f"No PSP carries {method} in {currency}.", rejection_id)
    carriers = [p for p in carriers if country in p.countries]
    if not carriers:
        raise refusal(422, "not_supported", "country", f"No PSP carries {method} for country {country}.", rejection_id)
    within = [
        p for p in carriers if currency not in p.limits or p.limits[currency][0] <= amount <= p.limits[currency][1]
    ]
    if not within:
        lowest = min(p.limits[currency][0] for p in carriers)
        if amount < lowest:
            raise refusal(
                422,
                "limit_exceeded",
                "routing_min",
                f"The routing minimum for this charge is {lowest:f} {currency}.",
                rejection_id,
            )
        highest = max(p.limits[currency][1] for p in carriers)
        raise refusal(
            422,
            "limit_exceeded",
            "routing_max",
            f"The routing maximum for this charge is {highest:f} {currency}.",
            rejection_id,
        )
    return within


def choose(candidates: list[Psp], unavailable: set[str], rejection_id: str) -> Psp:
    """The first available candidate; else 503 no_route (retry after 30 s, same Idempotency-Key)."""
    for psp in candidates:
        if psp.psp_id not in unavailable:
            return psp
    raise refusal(
        503,
        "no_route",
        "availability",
        "No eligible PSP is available right now; retry later with the same Idempotency-Key.",
        rejection_id,
    )


# Connector bindings are per (account, mode, method), where a mobile wallet's method is its
# network (each network is its own PSP with its own credentials).
BINDING_METHODS: dict[str, tuple[str, str | None]] = {
    **{network: ("mobile_wallet", network) for network in sorted(_ALL_WALLETS)},
    **{method: (method, None) for method in ("card", "bank_transfer", "reference", "ussd", "qr", "bnpl")},
}


def binding_method(method: str, network: str | None) -> str:
    """The binding a charge of `method` (and `network`) uses."""
    return network if method == "mobile_wallet" and network else method
