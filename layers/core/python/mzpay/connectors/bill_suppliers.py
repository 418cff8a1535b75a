"""Bill suppliers: what a biller's system answers for its references (a lookup and a quote) and
for payments (the token or receipt). One interface, `BillSupplier`; the deterministic simulator
answers from data (domain/data/billers.json, documented in docs/test-mode.md), decided by the
reference alone: never randomness or time. Live suppliers are not connected yet: a live quote of
a simulated biller is refused (422 biller_unavailable), so test traffic and live traffic never mix.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

DATA = Path(__file__).resolve().parents[1] / "domain" / "data" / "billers.json"
QUOTE_VALIDITY_SECONDS = 900
FAST_VALIDITY_SECONDS = 1  # the simulator's `expires_fast` references
TOKEN_DIGITS = 20
SUCCEEDED, FAILED, PENDING = "succeeded", "failed", "pending"


class ReferenceNotFound(Exception):
    """The biller knows no customer or account for the reference."""


class ReferenceRejected(Exception):
    """The supplier refused the lookup or the quote (the message says why)."""


class AmountRefused(Exception):
    """The supplier does not take this amount for this reference (the message says why)."""


class SupplierUnavailable(Exception):
    """The supplier did not answer (an outage): retry later."""


class SupplierTimeout(Exception):
    """A payment was sent and no answer came: its outcome is unknown until asked again."""


@dataclass(frozen=True)
class SupplierInvoice:
    number: str
    amount_due: Decimal
    status: str  # open, paid, cancelled, expired (the supplier's own view)
    due_date: str | None


@dataclass(frozen=True)
class SupplierQuote:
    customer_name: str
    valid_for: int  # seconds
    invoice: SupplierInvoice | None = None


@dataclass(frozen=True)
class BillCall:
    """A bill payment as a supplier sees it (`payment_id` is its idempotency key there)."""

    payment_id: str
    product_code: str
    reference: str
    amount: Decimal
    yields: str  # token | receipt


@dataclass(frozen=True)
class SupplierPayment:
    status: str  # succeeded | failed | pending
    token: str | None = None
    receipt_number: str | None = None
    failure_code: str | None = None
    failure_message: str | None = None


class BillSupplier(Protocol):
    def quote(self, product_code: str, reference: str, amount: Decimal | None) -> SupplierQuote: ...

    def pay(self, call: BillCall) -> SupplierPayment: ...

    def payment_status(self, call: BillCall) -> SupplierPayment: ...


@functools.cache
def simulated_references() -> dict[str, dict[str, dict[str, Any]]]:
    return json.loads(DATA.read_text(encoding="utf-8"))["simulator"]  # type: ignore[no-any-return]


class SimulatedSupplier:
    """The test-mode supplier: each reference of the data behaves as its `behaviour` says."""

    def _reference(self, product_code: str, reference: str) -> dict[str, Any]:
        known = simulated_references().get(product_code, {}).get(reference)
        if known is None:
            raise ReferenceNotFound()
        if known.get("behaviour") == "outage":
            raise SupplierUnavailable()
        if known.get("behaviour") == "rejected":
            raise ReferenceRejected("The biller refused this reference (blocked or suspended there).")
        return known

    def quote(self, product_code: str, reference: str, amount: Decimal | None) -> SupplierQuote:
        known = self._reference(product_code, reference)
        ceiling = known.get("max_amount")
        if amount is not None and ceiling is not None and amount > Decimal(ceiling):
            raise AmountRefused(f"The biller takes at most {ceiling} for this reference.")
        invoice = known.get("invoice")
        fast = known.get("behaviour") == "expires_fast"
        return SupplierQuote(
            customer_name=known["name"],
            valid_for=FAST_VALIDITY_SECONDS if fast else QUOTE_VALIDITY_SECONDS,
            invoice=SupplierInvoice(
                reference, Decimal(invoice["amount_due"]), invoice["status"], invoice.get("due_date")
            )
            if invoice
            else None,
        )

    def pay(self, call: BillCall) -> SupplierPayment:
        """The payment's outcome; a reference refused or unknown by then fails it (the
        interface's answer, never the quote's exceptions), a timeout raises SupplierTimeout."""
        try:
            known = self._reference(call.product_code, call.reference)
        except (ReferenceNotFound, ReferenceRejected) as refused:
            return _refused(refused)
        if known.get("behaviour") == "timeout":
            raise SupplierTimeout()
        return self._outcome(call, known)

    def payment_status(self, call: BillCall) -> SupplierPayment:
        """What became of a payment: as `pay` answers it (a timeout's payment went through)."""
        try:
            known = self._reference(call.product_code, call.reference)
        except (ReferenceNotFound, ReferenceRejected) as refused:
            return _refused(refused)
        return self._outcome(call, known)

    def _outcome(self, call: BillCall, known: dict[str, Any]) -> SupplierPayment:
        if known.get("behaviour") == "fails":
            return SupplierPayment(FAILED, failure_code="supplier_declined", failure_message="The biller declined it.")
        digest = hashlib.sha256(call.payment_id.encode()).hexdigest()
        number = str(int(digest, 16))
        if call.yields == "token":
            token = number[-TOKEN_DIGITS:].rjust(TOKEN_DIGITS, "0")
            return SupplierPayment(SUCCEEDED, token=token, receipt_number=f"SIM{number[:10]}")
        return SupplierPayment(SUCCEEDED, receipt_number=f"SIM{number[:10]}")


def _refused(refused: ReferenceNotFound | ReferenceRejected) -> SupplierPayment:
    if isinstance(refused, ReferenceNotFound):
        return SupplierPayment(
            FAILED, failure_code="reference_not_found", failure_message="The biller knows no such reference."
        )
    return SupplierPayment(FAILED, failure_code="reference_rejected", failure_message=str(refused))


def supplier_for(name: str, mode: str) -> BillSupplier | None:
    """The supplier `name` for `mode`; None when none is configured (the simulator is test only)."""
    if name == "simulator" and mode == "test":
        return SimulatedSupplier()
    return None
