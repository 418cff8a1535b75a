"""Account ceilings (pure rules)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from mzpay.domain.accounts.limits import AccountLimits, business_day, check_ceilings
from mzpay.domain.common.errors import ServiceError

REJECTION = "01JREJECTION0000000000000B"


def test_no_limits_allow_everything() -> None:
    check_ceilings(AccountLimits(), "USD", Decimal("999999"), REJECTION)


@pytest.mark.parametrize(
    ("limits", "currency", "amount", "rule", "message"),
    [
        (
            AccountLimits(currencies=frozenset({"MZN"})),
            "USD",
            "1",
            "key_currency",
            "This account may charge in MZN, not USD.",
        ),
        (
            AccountLimits(currencies=frozenset()),
            "MZN",
            "1",
            "key_currency",
            "This account may charge in no currency, not MZN.",
        ),
        (
            AccountLimits(per_transaction={"MZN": Decimal("100.00")}),
            "MZN",
            "100.01",
            "per_transaction",
            "The per-transaction ceiling of this account is 100.00 MZN.",
        ),
    ],
)
def test_ceilings_refuse_with_their_rule(
    limits: AccountLimits, currency: str, amount: str, rule: str, message: str
) -> None:
    with pytest.raises(ServiceError) as raised:
        check_ceilings(limits, currency, Decimal(amount), REJECTION)
    error = raised.value
    assert (error.status, error.code, error.message, error.extensions) == (
        422,
        "limit_exceeded",
        message,
        {"rule": rule, "rejection_id": REJECTION},
    )


def test_a_ceiling_is_inclusive_and_per_currency() -> None:
    limits = AccountLimits(per_transaction={"MZN": Decimal("100.00")})
    check_ceilings(limits, "MZN", Decimal("100.00"), REJECTION)
    check_ceilings(limits, "USD", Decimal("5000.00"), REJECTION)


def test_the_business_day_is_maputos() -> None:
    assert business_day(datetime(2026, 11, 21, 21, 59, tzinfo=UTC)) == "2026-11-21"
    assert business_day(datetime(2026, 11, 21, 22, 0, tzinfo=UTC)) == "2026-11-22"  # midnight in Maputo


def test_public_form_keeps_amounts_as_strings() -> None:
    limits = AccountLimits(currencies=frozenset({"USD", "MZN"}), daily={"MZN": Decimal("250000.00")})
    assert limits.public() == {"currencies": ["MZN", "USD"], "per_transaction": {}, "daily": {"MZN": "250000.00"}}
