"""Cash deposits' rules (mzpay.domain.payouts.cash_deposits): what an intent must pass, how a deposit reads."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.cash_deposits import DEPOSIT_STATUS, check_intent, deposit_view
from mzpay.domain.payouts.name_lookups import NameLookup
from mzpay.domain.payouts.rules import TERMINAL, Payout, Status

NOW = "2026-11-25T10:00:00Z"


def lookup(**changes: Any) -> NameLookup:
    base: dict[str, Any] = {
        "lookup_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX",
        "account_id": "acct",
        "mode": "test",
        "type": "mobile_wallet",
        "status": "resolved",
        "version": 1,
        "name": "Ana Machava",
        "network": "mpesa",
        "identifier": "+258841234567",
        "expires_at": "2026-11-25T10:15:00Z",
        "created_at": "2026-11-25T10:00:00Z",
        "updated_at": "2026-11-25T10:00:00Z",
    }
    return NameLookup(**{**base, **changes})


def refusal(call: Any) -> tuple[int, str, str]:
    with pytest.raises(ServiceError) as refused:
        call()
    return refused.value.status, refused.value.code, refused.value.message


def test_a_resolved_wallet_lookup_within_its_time_and_limits_passes() -> None:
    check_intent(lookup(), "MZN", Decimal("1.00"), NOW)
    check_intent(lookup(status="selected"), "MZN", Decimal("125000.00"), NOW)


LIMITS = "A wallet deposit is from 1.00 to 125000.00 MZN, with at most 2 fraction digits."


@pytest.mark.parametrize(
    ("changes", "currency", "amount", "expected"),
    [
        (
            {"status": "ambiguous"},
            "MZN",
            "5",
            (409, "invalid_state", "Cannot start a deposit from a name lookup that is ambiguous; select the holder."),
        ),
        (
            {"type": "bank_transfer", "network": None},
            "MZN",
            "5",
            (422, "deposit_refused", "Cash deposits credit mobile wallets; this lookup is of a bank account."),
        ),
        (
            {"expires_at": NOW},
            "MZN",
            "5",
            (422, "deposit_refused", f"The lookup expired at {NOW}; look the payer up again."),
        ),
        ({}, "USD", "5", (422, "deposit_refused", "A wallet takes deposits in MZN, not USD.")),
        ({}, "MZN", "0.99", (422, "deposit_refused", LIMITS)),
        ({}, "MZN", "125000.01", (422, "deposit_refused", LIMITS)),
        ({}, "MZN", "1.001", (422, "deposit_refused", LIMITS)),
    ],
)
def test_refusals(changes: dict[str, Any], currency: str, amount: str, expected: tuple[int, str, str]) -> None:
    assert refusal(lambda: check_intent(lookup(**changes), currency, Decimal(amount), NOW)) == expected


def test_every_payout_status_reads_as_a_deposit_status() -> None:
    statuses = {v for k, v in vars(Status).items() if k.isupper()}
    assert set(DEPOSIT_STATUS) == statuses
    assert {DEPOSIT_STATUS[s] for s in TERMINAL} == {"succeeded", "failed"}


def test_a_deposit_reads_from_its_payout() -> None:
    payout = Payout(
        provider_payout_id="01JD8Z5K3M2N4P6Q7R8S9T0VWY",
        payout_id="01JD8Z5K3M2N4P6Q7R8S9T0VWX",
        account_id="acct",
        mode="test",
        status=Status.PAID,
        version=4,
        currency="MZN",
        amount="500.00",
        destination={"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        cash_deposit={"intent_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX", "lookup_id": "L", "name": "Ana Machava"},
        fingerprint="f",
        created_at=NOW,
        updated_at=NOW,
    )
    assert deposit_view(payout) == {
        "deposit_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWY",
        "intent_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWX",
        "status": "succeeded",
        "money": {"amount": "500.00", "currency": "MZN"},
        "wallet": {"network": "mpesa", "phone_number": "+258841234567"},
        "name": "Ana Machava",
        "failure_code": None,
        "failure_message": None,
        "metadata": {},
        "created_at": NOW,
        "updated_at": NOW,
    }
