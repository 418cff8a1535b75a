"""PSP transactions' rules (mzpay.domain.psp.transactions): the body, the refund's remainder."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.psp.transactions import PspTransaction, PspTransactionRequest, check_psp_transaction, check_refund


def body(**changes: Any) -> dict[str, Any]:
    return {
        "type": "payment",
        "originator_reference": "PSP-1",
        "money": {"amount": "100.00", "currency": "MZN"},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        **changes,
    }


def original(kind: str = "payment", refunded: str = "0", currency: str = "MZN") -> PspTransaction:
    return PspTransaction(
        transaction_id="01JD8Z5K3M2N4P6Q7R8S9T0VWX",
        account_id="acct",
        mode="test",
        status="recorded",
        version=1,
        type=kind,
        originator_reference="PSP-1",
        amount="100.00",
        currency=currency,
        refunded=Decimal(refunded),
        occurred_at="2026-11-25T08:30:00Z",
        fingerprint="f",
        created_at="2026-11-25T08:30:00Z",
        updated_at="2026-11-25T08:30:00Z",
    )


def test_a_refund_leaves_the_most_refunded_may_be_before_it() -> None:
    assert check_refund(original(refunded="30.00"), "MZN", Decimal("70.00")) == Decimal("30.00")
    assert check_refund(original(), "MZN", Decimal("0.01")) == Decimal("99.99")


@pytest.mark.parametrize(
    ("transaction", "currency", "amount", "detail"),
    [
        (original(refunded="30.00"), "MZN", "70.01", "PSP-1 has 70.00 MZN left to refund."),
        (original("payout"), "MZN", "1.00", "PSP-1 is a payout; only payments are refunded."),
        (original("refund"), "MZN", "1.00", "PSP-1 is a refund; only payments are refunded."),
        (original(), "USD", "1.00", "PSP-1 was in MZN, not USD."),
    ],
)
def test_not_refundable(transaction: PspTransaction, currency: str, amount: str, detail: str) -> None:
    with pytest.raises(ServiceError) as refused:
        check_refund(transaction, currency, Decimal(amount))
    assert (refused.value.status, refused.value.code, refused.value.message) == (422, "not_refundable", detail)


@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"source": None}, "source", "required"),
        ({"type": "payout", "source": None}, "destination", "required"),
        ({"type": "refund", "source": None}, "original_reference", "required"),
        ({"original_reference": "PSP-0"}, "original_reference", "invalid_value"),
        ({"money": {"amount": "0", "currency": "MZN"}}, "money.amount", "invalid_amount"),
        ({"money": {"amount": "1.005", "currency": "MZN"}}, "money.amount", "invalid_amount"),
    ],
)
def test_rules_across_fields(changes: dict[str, Any], field: str, code: str) -> None:
    request = PspTransactionRequest.model_validate(body(**changes))
    with pytest.raises(ServiceError) as refused:
        check_psp_transaction(request)
    assert refused.value.status == 400
    assert [(e.field, e.code) for e in refused.value.errors] == [(field, code)]


@pytest.mark.parametrize(
    "changes",
    [
        {"originator_reference": ""},
        {"originator_reference": "-lead"},
        {"originator_reference": "x" * 65},
        {"originator_reference": "has space"},
        {"type": "transfer"},
        {"occurred_at": "2026-11-25T08:30:00"},
        {"description": "x" * 141},
        {"source": {"type": "card", "card": {"number": "4242424242424242"}}},
    ],
)
def test_field_rules(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PspTransactionRequest.model_validate(body(**changes))


def test_a_bank_account_is_masked_in_the_answer() -> None:
    nib = "000301080016367102371"
    payout = original("payout").model_copy(
        update={"party": {"type": "bank_transfer", "bank_transfer": {"name": "Ana", "account": nib}}}
    )
    assert payout.view()["destination"]["bank_transfer"]["account"] == "*" * 17 + "2371"
    assert "refunded" not in payout.view()
