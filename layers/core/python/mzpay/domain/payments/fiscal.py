"""What makes a receipt a fiscal document in Mozambique: the merchant's legal name, NUIT and
address, and, when the merchant is registered for IVA (VAT), the tax the amount paid includes,
split into its base, rate and tax. An operator sets them on the gateway account
(PUT /v1/accounts/{id}/fiscal-details); a receipt of the account's payments carries them.

Prices are IVA-inclusive: the base is the amount divided by (1 + rate), rounded half-even to
the centavo, and the tax is the rest, so base + tax is the amount to the centavo. The standard
rate is 16% (Código do IVA, art. 17); an account may carry another (an exempt or reduced one).

A receipt's short number (`short_number`) is what a payer reads and types: `R-` and twelve
characters of Crockford's base 32 in three groups of four (`R-7KX2-M9QD-4FZA`: 16 characters, one
line on a phone), derived from the payment's id by SHA-256 (60 bits, so two payments share one
with odds below one in a million until the service has made 1.5 million payments); the
receipt's `receipt_number` (R- and the whole id) stays the unique key."""

from __future__ import annotations

import hashlib
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from pydantic import Field, field_validator

from mzpay.domain.common.model import StrictText, examples
from mzpay.domain.money.amounts import format_amount

STANDARD_IVA_RATE = Decimal("0.16")
CENTAVO = Decimal("0.01")
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
SHORT_CHARACTERS = 12  # 60 bits


def short_number(provider_payment_id: str) -> str:
    """The receipt's short number of a payment (see the module's note)."""
    digest = int.from_bytes(hashlib.sha256(provider_payment_id.encode()).digest()[:8], "big") >> 4
    code = "".join(CROCKFORD[(digest >> (5 * i)) & 31] for i in reversed(range(SHORT_CHARACTERS)))
    return "R-" + "-".join(code[i : i + 4] for i in range(0, SHORT_CHARACTERS, 4))


def iva_breakdown(amount: Decimal, rate: Decimal) -> tuple[Decimal, Decimal]:
    """(base, tax) of an IVA-inclusive `amount` at `rate` (0.16 for 16%): base half-even to the
    centavo, tax the rest."""
    base = (amount / (1 + rate)).quantize(CENTAVO, rounding=ROUND_HALF_EVEN)
    return base, amount.quantize(CENTAVO, rounding=ROUND_HALF_EVEN) - base


def nuit_fault(text: str) -> str | None:
    """Why `text` is not a NUIT (9 digits, the last a check digit), None when it is one."""
    from stdnum.exceptions import InvalidChecksum, ValidationError
    from stdnum.mz import nuit

    try:
        nuit.validate(text)
    except InvalidChecksum:
        return "the NUIT's check digit does not hold"
    except ValidationError:
        return "a NUIT has 9 digits"
    return None


class FiscalDetails(StrictText):
    """The body of `PUT /v1/accounts/{account_id}/fiscal-details`, and what is kept of it."""

    model_config = examples(
        {
            "legal_name": "Mercearia Central, Lda",
            "nuit": "400339910",
            "address": "Av. 24 de Julho 1234, Maputo",
            "vat_registered": True,
            "vat_rate": "0.16",
        }
    )

    legal_name: str = Field(min_length=1, max_length=200, description="The merchant's registered name.")
    nuit: str = Field(description="Its NUIT (Número Único de Identificação Tributária): 9 digits.")
    address: str = Field(min_length=1, max_length=300, description="Its registered address, one line.")
    vat_registered: bool = Field(description="Whether it is registered for IVA: its receipts then show the tax.")
    vat_rate: Decimal = Field(
        default=STANDARD_IVA_RATE,
        gt=0,
        lt=1,
        decimal_places=4,
        description="The IVA rate its prices include, as a fraction (0.16: the standard 16%).",
    )

    @field_validator("nuit")
    @classmethod
    def _nuit(cls, value: str) -> str:
        fault = nuit_fault(value)
        if fault:
            raise ValueError(fault)
        return value

    def on_receipt(self, amount: Decimal, currency: str) -> dict[str, Any]:
        """What a receipt of `amount` shows: who was paid, and the IVA in it (null when the
        merchant is not registered for IVA)."""
        vat = None
        if self.vat_registered:
            base, tax = iva_breakdown(amount, self.vat_rate)
            vat = {
                "base": {"amount": format_amount(base, currency), "currency": currency},
                "rate": format(self.vat_rate.normalize(), "f"),
                "tax": {"amount": format_amount(tax, currency), "currency": currency},
            }
        return {"legal_name": self.legal_name, "nuit": self.nuit, "address": self.address, "vat": vat}
