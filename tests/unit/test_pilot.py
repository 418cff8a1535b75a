"""The pilot rules as pure functions: their order, and the windows they reserve."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.psp.pilot import PilotSettings, PilotState, PilotWindow, check_pilot

SETTINGS = PilotSettings(
    frozenset({"loja-1"}),
    frozenset({"MZN"}),
    {"MZN": Decimal("100.00")},
    {"MZN": Decimal("250.00")},
    {"MZN": Decimal("1000.00")},
)
# 23:30 UTC on 31 October is already 1 November in Maputo (UTC+2).
MOMENT = datetime(2026, 10, 31, 23, 30, tzinfo=UTC)


def rule_of(state: PilotState, metadata: dict[str, str] | None, currency: str = "MZN", amount: str = "10.00") -> str:
    with pytest.raises(ServiceError) as refused:
        check_pilot(state, metadata, currency, Decimal(amount), MOMENT, "rej")
    assert (refused.value.status, refused.value.code, refused.value.extensions["rejection_id"]) == (
        422,
        "pilot_limit",
        "rej",
    )
    return str(refused.value.extensions["rule"])


def test_a_psp_out_of_pilot_has_no_rules() -> None:
    assert check_pilot(PilotState("p", False, None), None, "USD", Decimal("1e9"), MOMENT, "rej") == []


def test_in_pilot_without_settings_is_settings_missing_before_anything_else() -> None:
    assert rule_of(PilotState("p", True, None), None) == "settings_missing"


def test_a_pilot_currency_without_every_ceiling_is_settings_missing() -> None:
    partial = PilotSettings(frozenset({"loja-1"}), frozenset({"MZN"}), {"MZN": Decimal(1)}, {}, {})
    assert rule_of(PilotState("p", True, partial), {"merchant_id": "loja-1"}) == "settings_missing"


@pytest.mark.parametrize(
    ("metadata", "currency", "amount", "rule"),
    [
        (None, "MZN", "10.00", "merchant_not_allowed"),
        ({"merchant_id": "loja-2"}, "MZN", "10.00", "merchant_not_allowed"),
        ({"merchant_id": "loja-2"}, "USD", "10.00", "merchant_not_allowed"),  # the allow-list comes first
        ({"merchant_id": "loja-1"}, "USD", "10.00", "currency"),
        ({"merchant_id": "loja-1"}, "MZN", "100.01", "per_transaction"),
    ],
)
def test_rules_in_their_order(metadata: dict[str, str] | None, currency: str, amount: str, rule: str) -> None:
    assert rule_of(PilotState("p", True, SETTINGS), metadata, currency, amount) == rule


def test_the_windows_are_the_maputo_day_and_month() -> None:
    windows = check_pilot(
        PilotState("p", True, SETTINGS), {"merchant_id": "loja-1"}, "MZN", Decimal("100"), MOMENT, "r"
    )
    assert windows == [
        PilotWindow("daily", "PILOT#p#MZN#D#2026-11-01", Decimal("250.00")),
        PilotWindow("monthly", "PILOT#p#MZN#M#2026-11", Decimal("1000.00")),
    ]


def test_an_amount_over_a_window_by_itself_is_refused_without_a_counter() -> None:
    small_month = PilotSettings(
        frozenset({"loja-1"}), frozenset({"MZN"}), {"MZN": Decimal(500)}, {"MZN": Decimal(500)}, {"MZN": Decimal(50)}
    )
    assert rule_of(PilotState("p", True, small_month), {"merchant_id": "loja-1"}, amount="60.00") == "monthly"
