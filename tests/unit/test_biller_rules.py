"""Biller and bill product rules (mzpay.domain.bills.billers): kinds and their fields, fee and discount
bearers (422 fee_bearer_conflict), and what a biller owned by its origin refuses."""

from __future__ import annotations

from typing import Any

import pytest

from mzpay.domain.bills.billers import (
    Biller,
    Charge,
    ProductIn,
    check_biller_change,
    check_product,
    check_retirement,
    fee_conflicts,
)
from mzpay.domain.common.errors import ServiceError
from tests.unit import builders


def product(**extra: Any) -> ProductIn:
    body = {"name": "P", "kind": "denominations", "denominations": ["50", "20.00", "50.00"], "supplier_product": "x"}
    return ProductIn.model_validate({**body, **extra})


def biller(owned: bool, status: str = "active") -> Biller:
    return builders.biller(owned_by_origin=owned, status=status)


def test_denominations_are_kept_once_each_in_order() -> None:
    assert product().denominations == ["20.00", "50.00"]


@pytest.mark.parametrize(
    ("fee", "discount", "conflict"),
    [
        (None, None, None),
        ({"amount": "1.00", "bearer": "channel"}, {"amount": "2.00", "bearer": "biller"}, None),
        ({"amount": "1.00", "bearer": "biller"}, {"amount": "2.00", "bearer": "channel"}, None),
        ({"amount": "1.00"}, None, "The fee of 1.00 has no bearer."),
        (None, {"bearer": "biller"}, "The discount names a bearer (biller) but no amount."),
        ({"amount": "1.00", "bearer": "merchant"}, None, "A fee is borne by payer or channel or biller, not merchant."),
        (
            {"amount": "1.00", "bearer": "payer"},
            {"amount": "1.00", "bearer": "channel"},
            "The payer cannot be charged a fee and given a discount on the same product.",
        ),
    ],
)
def test_fee_and_discount_bearers(fee: Any, discount: Any, conflict: str | None) -> None:
    fee_ = Charge.model_validate(fee) if fee else None
    discount_ = Charge.model_validate(discount) if discount else None
    assert fee_conflicts(fee_, discount_) == conflict


def test_a_conflict_is_422_after_the_fields_of_the_kind() -> None:
    with pytest.raises(ServiceError) as refused:
        check_product(product(fee={"amount": "1.00"}))
    assert (refused.value.status, refused.value.code) == (422, "fee_bearer_conflict")
    with pytest.raises(ServiceError) as missing:
        check_product(product(kind="open", fee={"amount": "1.00"}))
    assert (missing.value.status, missing.value.code) == (400, "invalid_request")
    assert [e.field for e in missing.value.errors] == ["denominations", "min_amount", "max_amount"]


def test_an_owned_biller_refuses_commercial_changes_and_retirement() -> None:
    owned = biller(owned=True)
    with pytest.raises(ServiceError) as refused:
        check_biller_change(owned, {"credit_account": "000301080016367102371"})
    assert (refused.value.status, refused.value.code) == (409, "owned_by_origin")
    check_biller_change(owned, {"name": "EDM", "status": "paused"})  # its own name: no change
    with pytest.raises(ServiceError) as retired:
        check_retirement(owned)
    assert retired.value.code == "owned_by_origin"
    check_retirement(biller(owned=False))
    with pytest.raises(ServiceError) as gone:
        check_biller_change(biller(owned=False, status="retired"), {"name": "X"})
    assert gone.value.code == "invalid_state"
