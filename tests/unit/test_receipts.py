"""The receipt's rules in-process: only once money moved, the method masked, Maputo's clock."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.receipts import masked_method, receipt
from mzpay.domain.payments.rules import Payment


def payment(**changes: object) -> Payment:
    base = Payment(
        provider_payment_id="01JDA6Q0Z8X4M2N7P5R3T9V1W6",
        payment_id="order-1",
        account_id="acct",
        mode="live",
        status="succeeded",
        version=3,
        amount="250.00",
        currency="MZN",
        country="MZ",
        authorized_amount="250.00",
        captured_amount="250.00",
        refunded_amount="10.00",
        source={"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        provider_reference="8A1B2C3D4E",
        captured_at="2026-11-25T22:30:00Z",
        fingerprint="f",
        created_at="2026-11-25T22:29:00Z",
        updated_at="2026-11-26T08:00:00Z",
    )
    return base.with_changes(dict(changes))


def test_a_receipt_once_money_moved() -> None:
    answer = receipt(payment(), "Mercearia")
    assert answer["method"] == {"type": "mobile_wallet", "network": "M-Pesa", "masked": "****567"}
    assert (answer["amount"], answer["refunded"], answer["net"]) == (
        {"amount": "250.00", "currency": "MZN"},
        {"amount": "10.00", "currency": "MZN"},
        {"amount": "240.00", "currency": "MZN"},
    )
    assert (answer["paid_at"], answer["paid_at_maputo"]) == ("2026-11-25T22:30:00Z", "2026-11-26 00:30")
    assert answer["provider_reference"] == "8A1B2C3D4E" and "841234567" not in str(answer)


@pytest.mark.parametrize("status", ["requires_payment_method", "pending", "requires_action", "failed", "authorized"])
def test_no_receipt_before_money_moved(status: str) -> None:
    with pytest.raises(ServiceError) as refused:
        receipt(payment(status=status, captured_amount="0.00"), "Mercearia")
    assert (refused.value.status, refused.value.code) == (409, "not_receiptable")
    assert refused.value.message == f"A receipt exists once money has moved; this payment is {status}."


def test_every_method_is_masked() -> None:
    assert masked_method({"type": "card", "card": {"token": "tok_test_visa", "last4": "4242"}}) == {
        "type": "card",
        "network": None,
        "masked": "**** 4242",
    }
    assert masked_method({"type": "reference"}) == {"type": "reference", "network": None, "masked": None}
    assert masked_method(None) == {"type": None, "network": None, "masked": None}
