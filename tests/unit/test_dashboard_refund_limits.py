"""The support role's refund limit (mzpay.domain.dashboard.refund_limits) and the dashboard lists'
query from their GET forms (mzpay.dashboard.payments): amounts typed either way, limits bounded,
refunds over the limit or in another currency refused naming it, Maputo's days as the API's times."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.dashboard.payments import PAYMENT_FILTERS, list_query
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import refund_limits


def test_amounts_are_typed_with_a_point_or_a_comma_and_bounded() -> None:
    assert refund_limits.amount_typed("150,50", "amount", "MZN") == Decimal("150.50")
    assert refund_limits.amount_typed(" 150.5 ", "amount", "MZN") == Decimal("150.5")
    for bad in ("abc", "1" * 21, "1.001", "-5"):
        with pytest.raises(ServiceError) as refused:
            refund_limits.amount_typed(bad, "amount", "MZN")
        assert (refused.value.status, refused.value.code) == (400, "invalid_amount")


def test_a_new_limit_is_more_than_zero_and_at_most_the_most() -> None:
    assert refund_limits.new_limit("2500") == "2500.00"
    assert refund_limits.new_limit("1000000,00") == "1000000.00"
    for bad in ("0", "1000000.01", ""):
        with pytest.raises(ServiceError) as refused:
            refund_limits.new_limit(bad)
        assert refused.value.code == "invalid_amount"


def test_a_refund_over_the_limit_or_in_another_currency_is_refused_naming_the_limit() -> None:
    refund_limits.check(Decimal("5000.00"), "MZN", refund_limits.DEFAULT)
    for amount, currency in ((Decimal("5000.01"), "MZN"), (Decimal("1.00"), "USD")):
        with pytest.raises(ServiceError) as refused:
            refund_limits.check(amount, currency, refund_limits.DEFAULT)
        assert (refused.value.status, refused.value.code) == (403, "over_refund_limit")
        assert refused.value.extensions == {"limit": "5000.00", "currency": "MZN"}


def test_a_lists_form_becomes_the_apis_query_with_maputos_days() -> None:
    query, shown = list_query(
        {"status": " succeeded ", "method": "", "created_from": "2026-11-01", "created_to": "2026-11-30"},
        PAYMENT_FILTERS,
    )
    assert query == {
        "status": "succeeded",
        "page_size": "25",
        "created_gte": "2026-10-31T22:00:00Z",  # midnight in Maputo (UTC+2)
        "created_lt": "2026-11-30T22:00:00Z",  # the end of the last day
    }
    assert shown == {"status": "succeeded", "created_from": "2026-11-01", "created_to": "2026-11-30"}
    for asked, code in (({"status": "x" * 101}, "field_too_long"), ({"created_from": "1/11/2026"}, "invalid_request")):
        with pytest.raises(ServiceError) as refused:
            list_query(asked, PAYMENT_FILTERS)
        assert refused.value.code == code
