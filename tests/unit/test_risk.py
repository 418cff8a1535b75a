"""The risk stage's rules (pure)."""

from __future__ import annotations

from mzpay.domain.payments import risk


def test_the_test_number_is_declined_in_test_mode_only() -> None:
    assert risk.declined_test_number("test", "+258849999999")
    assert not risk.declined_test_number("live", "+258849999999")
    assert not risk.declined_test_number("test", "+258849999990")


def test_velocity_windows_are_ten_minutes() -> None:
    assert risk.velocity_window(0) == risk.velocity_window(599) == 0
    assert risk.velocity_window(600) == 1


def test_a_decline_names_the_risk_rule_and_the_rejection() -> None:
    error = risk.declined("01JREJ")
    assert (error.status, error.code, error.message, error.extensions) == (
        422,
        "risk_declined",
        "The charge was declined by the risk checks.",
        {"rule": "risk", "rejection_id": "01JREJ"},
    )
