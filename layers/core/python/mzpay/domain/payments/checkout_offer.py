"""What the hosted checkout offers its payer, and what the payer chose on it.

The page offers every method the payer can finish from a browser or a phone (mobile wallets,
cards, payment references, USSD codes, QR codes, bank transfers) whose currency and limits take
the checkout's amount and that the account can take in the checkout's mode: in test mode every
one (the simulator plays each), in live mode the ones bound to a provider. A collection
request's payment link names its wallets and offers those only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from mzpay.domain.payments.methods import METHODS, NETWORK_PREFIXES
from mzpay.domain.payments.routing import binding_method

# The order the page lists them in: what most Mozambican payers use first.
PAGE_METHODS = ("mobile_wallet", "card", "reference", "ussd", "qr", "bank_transfer")
# Test mode takes documented test card numbers only: the page says which (docs/test-mode.md).
TEST_CARD_HINT = "4242 4242 4242 4242"
_EXPIRY = re.compile(r"\s*(\d{1,2})\s*/\s*(\d{2}|\d{4})\s*")


@dataclass(frozen=True)
class Offer:
    """One way to pay on the page: a method, and for a wallet its network."""

    method: str
    network: str | None = None

    @property
    def key(self) -> str:
        """The form's value for it (a wallet's network, else the method)."""
        return self.network or self.method


@dataclass(frozen=True)
class PayerChoice:
    """What the payer sent from the page's form. Free text, checked by the charge's own rules."""

    method: str
    network: str | None = None
    phone_number: str = ""
    card_number: str = ""
    card_expiry: str = ""

    @classmethod
    def from_form(cls, fields: dict[str, str]) -> PayerChoice:
        """A wallet's form names its `network`; every other form names its `method`."""
        network = fields.get("network") or None
        method = fields.get("method") or ("mobile_wallet" if network else "")
        return cls(
            method=method,
            network=network if method == "mobile_wallet" else None,
            phone_number=fields.get("phone_number", "").strip(),
            card_number=fields.get("card_number", "").replace(" ", "").replace("-", ""),
            card_expiry=fields.get("card_expiry", "").strip(),
        )

    @property
    def key(self) -> str:
        return self.network or self.method


def offers(
    amount: Decimal,
    currency: str,
    mode: str,
    networks: Collection[str] | None,
    bound: Callable[[str], bool],
) -> list[Offer]:
    """The ways to pay a checkout of `amount` `currency`: `networks` (a payment link's wallets)
    limits the page to those wallets; in live mode `bound(binding)` says whether the account
    has a provider for a method (or a wallet's network)."""
    found: list[Offer] = []
    for name in PAGE_METHODS if networks is None else ("mobile_wallet",):
        limits = METHODS[name].limits.get(currency)
        if limits is None or not limits.minimum <= amount <= limits.maximum:
            continue
        choices = (
            [n for n in NETWORK_PREFIXES if networks is None or n in networks] if name == "mobile_wallet" else [None]
        )
        for network in choices:
            if mode == "test" or bound(binding_method(name, network)):
                found.append(Offer(name, network))
    return found


def expiry_problem(text: str, today: date) -> str | None:
    """Why `text` is not a card's expiry (MM/YY or MM/YYYY, this month or later), or None."""
    matched = _EXPIRY.fullmatch(text)
    if matched is None:
        return "format"
    month, year = int(matched.group(1)), int(matched.group(2))
    year += 2000 if year < 100 else 0
    if not 1 <= month <= 12:
        return "format"
    if (year, month) < (today.year, today.month):
        return "past"
    return None
