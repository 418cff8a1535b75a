"""Bill quote rules (mzpay.domain.bills.quotes): the amount each kind of product takes, invoice payment
rules, and what a payment costs the payer, the channel and the biller."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.bills.billers import BillProduct
from mzpay.domain.bills.quotes import Invoice, chosen_amount, invoice_amount, paid_status, pricing
from mzpay.domain.common.errors import ServiceError
from tests.unit import builders

NOW = "2026-11-25T08:00:00Z"


def product(kind: str, **extra: Any) -> BillProduct:
    return builders.bill_product(kind=kind, **extra)


def invoice(paid: str = "0.00", status: str = "open") -> Invoice:
    return builders.invoice(paid=paid, status=status)


def code_of(call: Any) -> tuple[int, str]:
    with pytest.raises(ServiceError) as refused:
        call()
    return refused.value.status, refused.value.code


def test_each_kind_takes_its_amounts() -> None:
    assert chosen_amount(product("fixed", price="1250.00"), None) == Decimal("1250.00")
    assert code_of(lambda: chosen_amount(product("fixed", price="1250.00"), Decimal(1))) == (422, "amount_out_of_range")
    tiers = product("denominations", denominations=("20.00", "50.00"))
    assert chosen_amount(tiers, Decimal("50")) == Decimal("50")
    assert code_of(lambda: chosen_amount(tiers, Decimal("30"))) == (422, "amount_out_of_range")
    assert code_of(lambda: chosen_amount(tiers, None)) == (400, "invalid_request")
    ranged = product("open", min_amount="20.00", max_amount="100.00")
    assert chosen_amount(ranged, Decimal("100.00")) == Decimal("100.00")
    assert code_of(lambda: chosen_amount(ranged, Decimal("100.01"))) == (422, "amount_out_of_range")


def test_invoice_rules() -> None:
    strict = product("invoice", invoice={"allow_partial": False, "allow_overpayment": False})
    loose = product("invoice", invoice={"allow_partial": True, "allow_overpayment": True})
    assert invoice_amount(strict, invoice(), None) == Decimal("1000.00")
    assert invoice_amount(strict, invoice("400.00", "partially_paid"), None) == Decimal("600.00")
    assert code_of(lambda: invoice_amount(strict, invoice(), Decimal(999))) == (422, "amount_out_of_range")
    assert code_of(lambda: invoice_amount(strict, invoice(), Decimal(1001))) == (422, "amount_out_of_range")
    assert invoice_amount(loose, invoice(), Decimal(1001)) == Decimal(1001)
    assert code_of(lambda: invoice_amount(loose, invoice("1000.00", "paid"), None)) == (409, "invoice_closed")
    assert code_of(lambda: invoice_amount(loose, invoice(status="cancelled"), None)) == (409, "invoice_closed")
    assert [paid_status(invoice(), Decimal(p)) for p in ("0", "1", "1000", "1200")] == [
        "open",
        "partially_paid",
        "paid",
        "paid",
    ]


@pytest.mark.parametrize(
    ("fee", "discount", "total", "channel_debit", "biller_credit"),
    [
        (None, None, "100.00", "100.00", "100.00"),
        ({"amount": "5.00", "bearer": "payer"}, None, "105.00", "105.00", "100.00"),
        ({"amount": "5.00", "bearer": "channel"}, None, "100.00", "105.00", "100.00"),
        ({"amount": "5.00", "bearer": "biller"}, None, "100.00", "100.00", "95.00"),
        (None, {"amount": "10.00", "bearer": "biller"}, "90.00", "90.00", "90.00"),
        ({"amount": "5.00", "bearer": "biller"}, {"amount": "10.00", "bearer": "channel"}, "90.00", "100.00", "95.00"),
    ],
)
def test_who_pays_what(fee: Any, discount: Any, total: str, channel_debit: str, biller_credit: str) -> None:
    price = pricing(product("open", fee=fee, discount=discount), Decimal("100.00"))
    assert (price.total, price.channel_debit, price.biller_credit) == tuple(
        Decimal(v) for v in (total, channel_debit, biller_credit)
    )
    assert price.channel_debit - price.biller_credit == (Decimal(fee["amount"]) if fee else 0)  # the gateway's fee
