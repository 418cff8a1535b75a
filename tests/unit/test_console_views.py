"""The rules behind what the console shows an approver and a support agent (docs/console.md): a
payout's destination in one line with its number masked, a payment's refund state beside its
status, and a limits form editing one currency's ceilings without wiping the others."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.accounts.limits import AccountLimits, edited
from mzpay.domain.payments.rules import refund_state
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.payouts.rules import destination_summary, mask_account


# ---------------------------------------------------------------- destinations
def test_a_wallets_phone_keeps_only_its_last_four_digits() -> None:
    shown = destination_summary(
        {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}}
    )
    assert shown == {"type": "mobile_wallet", "number": "*********4567", "network": "mpesa", "name": None}


def test_a_nib_keeps_only_its_last_four_digits_and_the_beneficiary_is_named() -> None:
    nib = "000800000000000000123"
    shown = destination_summary({"type": "bank_transfer", "bank_transfer": {"name": "Ana Mussa", "account": nib}})
    assert shown == {"type": "bank_transfer", "number": "*" * 17 + "0123", "network": None, "name": "Ana Mussa"}
    assert shown["number"] == mask_account(nib)  # the payout answers' own masking


@pytest.mark.parametrize(
    ("destination", "number"),
    [
        (
            {"type": "crypto", "crypto": {"address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh", "network": "btc"}},
            "0wlh",
        ),
        ({"type": "manual", "manual": {"reference": "cash at the till"}}, None),
        ({"type": "cheque", "cheque": {"payee_name": "Escola Primária"}}, None),
        ({"type": "mobile_wallet"}, None),  # nothing to show: no number, no error
    ],
)
def test_other_destinations_show_no_more_than_four_characters_of_a_number(
    destination: dict[str, object], number: str | None
) -> None:
    shown = destination_summary(destination)
    assert shown["type"] == destination["type"]
    if number is None:
        assert shown["number"] is None
    else:
        assert shown["number"] is not None and shown["number"].endswith(number)
        assert set(shown["number"][:-4]) == {"*"}


def test_a_number_of_four_digits_or_fewer_is_shown_as_it_is() -> None:
    assert destination_summary({"type": "mobile_wallet", "mobile_wallet": {"phone_number": "1234"}})["number"] == "1234"


# ---------------------------------------------------------------- refund state
@pytest.mark.parametrize(
    ("captured", "refunded", "state"),
    [
        ("150.00", "0.00", None),
        ("150.00", None, None),
        ("0.00", "0.00", None),
        ("150.00", "50.00", "partially_refunded"),
        ("150.00", "149.99", "partially_refunded"),
        ("150.00", "150.00", "refunded"),
        ("150", "150.00", "refunded"),  # compared as amounts, not as text
    ],
)
def test_the_refund_state_comes_from_the_refunded_amount(
    captured: str, refunded: str | None, state: str | None
) -> None:
    assert refund_state(captured, refunded) == state


# ---------------------------------------------------------------- limits
def test_editing_one_charge_ceiling_keeps_the_others() -> None:
    before = AccountLimits(
        currencies=frozenset({"MZN", "USD"}),
        per_transaction={"MZN": Decimal("5000"), "USD": Decimal("100")},
        daily={"MZN": Decimal("20000")},
    )
    after = edited(before, "MZN", {"daily": Decimal("30000")})
    assert after == AccountLimits(
        currencies=frozenset({"MZN", "USD"}),
        per_transaction={"MZN": Decimal("5000"), "USD": Decimal("100")},
        daily={"MZN": Decimal("30000")},
    )
    assert before.daily == {"MZN": Decimal("20000")}  # the read limits are not changed in place


def test_none_removes_one_ceiling_and_no_edit_changes_nothing() -> None:
    before = PayoutLimits(
        per_transaction={"MZN": Decimal("1000")},
        daily={"MZN": Decimal("5000"), "USD": Decimal("50")},
        approval_threshold={"MZN": Decimal("500")},
        debit_daily={"MZN": Decimal("90000")},
    )
    after = edited(before, "MZN", {"daily": None, "approval_threshold": Decimal("750")})
    assert after == PayoutLimits(
        per_transaction={"MZN": Decimal("1000")},
        daily={"USD": Decimal("50")},
        approval_threshold={"MZN": Decimal("750")},
        debit_daily={"MZN": Decimal("90000")},  # not on the console's form: kept
    )
    assert edited(before, "MZN", {}) == before
    assert edited(before, "EUR", {"daily": None}) == before  # removing what is not set is no change


def test_a_new_currency_is_added_beside_the_others() -> None:
    before = PayoutLimits(per_transaction={"MZN": Decimal("1000")})
    after = edited(before, "USD", {"per_transaction": Decimal("20")})
    assert after.per_transaction == {"MZN": Decimal("1000"), "USD": Decimal("20")}


# ---------------------------------------------------------------- a key's last use
def test_a_keys_use_is_written_when_none_is_recorded_or_the_last_is_an_hour_old() -> None:
    from datetime import UTC, datetime, timedelta

    from mzpay.domain.access.keys import use_to_record

    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    assert use_to_record(None, now)
    assert not use_to_record(now - timedelta(minutes=59, seconds=59), now)
    assert use_to_record(now - timedelta(hours=1), now)
