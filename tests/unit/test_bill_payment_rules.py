"""Bill payment rules (mzpay.domain.bills.payments): the product's daily limits per reference and
per channel, the payer a token may be resent to, and live bill payments counted in the pilot of
the PSP that carries their biller (steps.admission.psp_pilot), with its payments."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay import deps
from mzpay.domain.bills.billers import BillProduct
from mzpay.domain.bills.payments import BillPaymentRequest, daily_windows
from mzpay.domain.bills.quotes import BillQuote
from mzpay.domain.common.errors import ServiceError
from mzpay.steps.admission import psp_pilot
from tests.expected import pilot_settings
from tests.unit import builders

NOW = "2026-11-25T08:00:00Z"
PRODUCT_ID = "01M8A0MH8BAHW8JZV956J9ME27"
BILLER_ID = "01M8A0MH8BAHW8JZV956J9ME26"
MOMENT = datetime(2026, 11, 25, 23, 30, tzinfo=UTC)  # already the 26th in Maputo


def product(**limits: str) -> BillProduct:
    named = {"product_id": PRODUCT_ID, "biller_id": BILLER_ID, "name": "Recharge", "supplier_product": "sim-airtime"}
    return builders.bill_product(**named, min_amount="1.00", max_amount="5000.00", **limits)


def quote(amount: str) -> BillQuote:
    ids = {"quote_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX", "account_id": "ACC", "mode": "test", "product_id": PRODUCT_ID}
    names = {"biller_id": BILLER_ID, "biller_name": "Vodacom", "product_name": "Recharge", "customer_name": "Ana"}
    return builders.bill_quote(amount, **ids, **names, reference="+258841234567")


def test_daily_windows_per_reference_and_channel() -> None:
    windows = daily_windows(
        product(daily_limit_per_reference="1000.00", daily_limit_per_channel="5000.00"), quote("10.00"), MOMENT, "r"
    )
    assert [(w.rule, w.key, w.ceiling) for w in windows] == [
        ("reference_daily", "BILLDAY#01M8A0MH8BAHW8JZV956J9ME27#test#REF#+258841234567#2026-11-26", Decimal("1000.00")),
        ("channel_daily", "BILLDAY#01M8A0MH8BAHW8JZV956J9ME27#test#CH#ACC#2026-11-26", Decimal("5000.00")),
    ]
    assert daily_windows(product(), quote("10.00"), MOMENT, "r") == []


def test_an_amount_over_a_daily_limit_alone_is_limit_exceeded() -> None:
    with pytest.raises(ServiceError) as refused:
        daily_windows(product(daily_limit_per_channel="50.00"), quote("50.01"), MOMENT, "rej-1")
    assert (refused.value.status, refused.value.code) == (422, "limit_exceeded")
    assert refused.value.extensions == {"rule": "channel_daily", "rejection_id": "rej-1"}


@pytest.mark.parametrize(
    ("payer", "code"), [({"email": "nobody"}, "invalid_value"), ({"phone_number": "84 123"}, "invalid_phone")]
)
def test_a_payer_needs_a_reachable_address(payer: dict[str, str], code: str) -> None:
    with pytest.raises(ValidationError) as refused:
        BillPaymentRequest.model_validate({"quote_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX", "payer": payer})
    assert refused.value.errors()[0]["type"] == code


class Pilots:
    def __init__(self, stored: dict[str, Any] | None) -> None:
        self.stored = stored

    def pilot(self, psp_id: str) -> dict[str, Any] | None:
        return self.stored


SETTINGS = pilot_settings(["loja-1"], "100.00", "300.00", "1000.00")


def test_a_live_bill_payment_counts_in_its_psps_pilot() -> None:
    with deps.substitute(payments=Pilots({"in_pilot": True, "settings": SETTINGS})):
        windows = psp_pilot("vodacom-mpesa", "live", {"merchant_id": "loja-1"}, "MZN", Decimal("100.00"), "r")
        assert [(w.name, w.ceiling) for w in windows] == [
            ("pilot_daily", Decimal("300.00")),
            ("pilot_monthly", Decimal("1000.00")),
        ]
        assert windows[0].key.startswith("PILOT#vodacom-mpesa#MZN#D#")  # the same counters as its payments
        with pytest.raises(ServiceError) as refused:
            psp_pilot("vodacom-mpesa", "live", {"merchant_id": "loja-1"}, "MZN", Decimal("100.01"), "r")
        assert (refused.value.code, refused.value.extensions["rule"]) == ("pilot_limit", "per_transaction")
        assert psp_pilot("vodacom-mpesa", "test", None, "MZN", Decimal("1000"), "r") == ()
        assert psp_pilot(None, "live", None, "MZN", Decimal("1000"), "r") == ()
