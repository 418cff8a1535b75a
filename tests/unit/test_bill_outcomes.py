"""How a pending bill payment ends (mzpay.steps.bill_outcomes), with in-memory stores: the sweep
asks the simulated supplier and applies its answer (the held float leaves, or comes back with the
daily totals and the invoice's paid amount); a biller with its own account hears of it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.domain.bills.billers import Biller, BillProduct
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.bills.quotes import Invoice
from mzpay.steps.bill_outcomes import reconcile_bill_payment
from tests.unit import builders

NOW = "2026-11-25T08:00:00Z"


class Catalogue:
    def __init__(self, account_id: str | None) -> None:
        self.biller = builders.biller(biller_id="B1", account_id=account_id)
        limits = {"min_amount": "1.00", "max_amount": "900.00"}
        supply = {"yields": "token", "supplier_product": "sim-electricity"}
        self.item = builders.bill_product(product_id="P1", biller_id="B1", name="Credelec", **limits, **supply)

    def get(self, biller_id: str) -> Biller:
        return self.biller

    def product(self, product_id: str) -> BillProduct:
        return self.item


class Payments:
    def __init__(self) -> None:
        self.written: list[dict[str, Any]] = []

    def transition(
        self,
        payment: BillPayment,
        changes: dict[str, Any],
        events: list[Any],
        entry: Any = None,
        release: bool = False,
        invoice: Any = None,
    ) -> BillPayment:
        self.written.append(
            {
                "changes": changes,
                "events": [e.type for e in events],
                "entry": entry,
                "release": release,
                "invoice": invoice,
            }
        )
        return payment.changed(changes)


class Quotes:
    def invoice(self, biller_id: str, mode: str, number: str) -> Invoice:
        return builders.invoice(
            biller_id="B1", mode=mode, number=number, paid="400.00", status="partially_paid", version=3
        )


class Endpoints:
    def read(self, account_id: str, mode: str) -> dict[str, str]:
        return {"url": "https://biller.example/hooks", "updated_at": NOW}


def pending(reference: str, invoice_number: str | None = None) -> BillPayment:
    ids = {"payment_id": "5b7c3f5e-8f4e-5d63-9a0e-3c1b2a4d5e6f", "quote_id": "Q", "account_id": "CH", "mode": "test"}
    names = {"product_name": "Credelec", "biller_id": "B1", "biller_name": "EDM", "customer_name": "Ana"}
    return builders.bill_payment(
        **ids, **names, product_id="P1", reference=reference, yields="token", invoice_number=invoice_number
    )


def test_a_timed_out_payment_is_settled_by_the_supplier_s_answer() -> None:
    stores = Payments()
    with deps.substitute(billers=Catalogue("BILLER-ACC"), bill_payments=stores, account_endpoints=Endpoints()):
        assert reconcile_bill_payment(pending("04000000408")) == 1
    (written,) = stores.written
    assert written["changes"]["status"] == "succeeded" and len(written["changes"]["token"]) == 20
    assert (written["changes"]["expiry_shard"], written["changes"]["due_at"]) == (None, None)
    assert written["events"] == ["bill_payment.succeeded", "bill_payment.received"]
    assert written["entry"].movement.legs() == {
        "available": 0,
        "held": Decimal("-405.00"),
        "clearing": Decimal("405.00"),
    }
    assert written["release"] is False


def test_a_refused_payment_gives_the_float_the_totals_and_the_invoice_back() -> None:
    stores = Payments()
    with deps.substitute(billers=Catalogue(None), bill_payments=stores, bill_quotes=Quotes()):
        assert reconcile_bill_payment(pending("04000000402", invoice_number="F1")) == 1
    (written,) = stores.written
    assert (written["changes"]["status"], written["changes"]["failure_code"]) == ("failed", "supplier_declined")
    assert written["events"] == ["bill_payment.failed"]
    assert written["entry"].movement.legs() == {
        "available": Decimal("405.00"),
        "held": Decimal("-405.00"),
        "clearing": 0,
    }
    assert written["release"] is True
    kept, changes = written["invoice"]
    assert (kept.version, changes["paid"], changes["status"]) == (3, "0.00", "open")
    assert (kept.biller_id, kept.mode, kept.number) == ("B1", "test", "F1")  # the payment's own mode's invoice
