"""A pay_bill's body and its bill as the history shows it (mzpay.domain.partners.transactions):
the product and the reference it needs, the bill's fields no other type may name, the bill's view."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.partners import transactions as rules


def problems(kind: str, body: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(ServiceError) as refused:
        rules.bill_fields(kind, body)
    return [(e.field, e.code, e.message) for e in refused.value.errors]


def test_a_pay_bill_needs_its_product_and_its_reference() -> None:
    assert problems("pay_bill", {}) == [
        ("product_id", "REQUIRED", "the bill product to pay"),
        ("destination", "REQUIRED", "the meter, account, phone or invoice number to pay"),
    ]
    rules.bill_fields("pay_bill", {"product_id": "01M8A0MH8BAHW8JZV956J9ME20", "destination": "04000000001"})


def test_no_other_type_names_a_bill() -> None:
    body = {"product_id": "01M8A0MH8BAHW8JZV956J9ME20", "biller_id": "01M8A0MH8BAHW8JZV956J9ME1Z"}
    assert problems("pay_in", body) == [
        ("biller_id", "INVALID_FORMAT", "only a pay_bill names a bill"),
        ("product_id", "INVALID_FORMAT", "only a pay_bill names a bill"),
    ]
    rules.bill_fields("pay_in", {"destination": "+258841234567", "product_id": None})


def test_an_unknown_bill_is_a_validation_error_naming_the_field() -> None:
    refusal = rules.unknown_bill("biller_id", "No such biller.")
    assert (refusal.status, refusal.code, refusal.message) == (
        400,
        "validation_error",
        "The request has problems: biller_id.",
    )


def test_the_bill_view_keeps_what_the_customer_reads_of_the_gateways_bill() -> None:
    payment = {
        "payment_id": "4c1f8a2e-6d3b-5e7f-9a0b-1c2d3e4f5a6b",
        "quote_id": "01JDB3A5C7E9G1J3K5M7P9R1T3",
        "biller_id": "01M8A0MH8BAHW8JZV956J9ME1Z",
        "product_id": "01M8A0MH8BAHW8JZV956J9ME20",
        "reference": "04000000001",
        "customer_name": "Ana Machava",
        "amount": "500.00",
        "total": "505.00",
        "channel_debit": "505.00",
        "status": "succeeded",
        "token": "12345678901234567890",
    }
    assert rules.bill_view(payment) == {
        "payment_id": payment["payment_id"],
        "biller_id": payment["biller_id"],
        "product_id": payment["product_id"],
        "reference": "04000000001",
        "customer_name": "Ana Machava",
        "amount": Decimal("500.00"),
        "total": Decimal("505.00"),
        "status": "succeeded",
        "token": "12345678901234567890",
        "receipt_number": None,
        "failure_code": None,
        "refund_id": None,
    }
