"""The quiet hours and the Maputo day of mzpay.domain.messages.courtesy (docs/notifications.md,
"Respectful and safe"), at fixed moments."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mzpay.domain.messages.courtesy import QUIET_HOURS, maputo_day, quiet_until, quiet_window

WINDOW = quiet_window(QUIET_HOURS)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "until"),
    [
        ("2026-11-30T18:59:59", None),  # 20:59:59 in Maputo
        ("2026-11-30T19:00:00", "2026-12-01T05:00:00"),  # 21:00: held until 07:00 the next day
        ("2026-11-30T21:59:59", "2026-12-01T05:00:00"),  # 23:59:59
        ("2026-11-30T22:00:00", "2026-12-01T05:00:00"),  # 00:00 the next day: the same morning
        ("2026-12-01T04:59:59", "2026-12-01T05:00:00"),  # 06:59:59
        ("2026-12-01T05:00:00", None),  # 07:00
    ],
)
def test_an_sms_is_held_from_21_to_7_in_maputo(moment: str, until: str | None) -> None:
    assert quiet_until("sms", utc(moment), WINDOW) == (utc(until) if until else None)


def test_email_is_never_held_and_no_window_holds_nothing() -> None:
    assert quiet_until("email", utc("2026-11-30T20:00:00"), WINDOW) is None
    assert quiet_until("sms", utc("2026-11-30T20:00:00"), quiet_window("")) is None
    assert quiet_until("sms", utc("2026-11-30T20:00:00"), quiet_window("none")) is None  # the parameter's word


def test_a_window_within_one_day() -> None:
    lunch = quiet_window("12:00-14:00")
    assert quiet_until("sms", utc("2026-11-30T10:30:00"), lunch) == utc("2026-11-30T12:00:00")
    assert quiet_until("sms", utc("2026-11-30T12:00:00"), lunch) is None
    with pytest.raises(ValueError):
        quiet_window("07:00-07:00")


def test_the_cap_counts_in_maputo_days() -> None:
    assert maputo_day(utc("2026-11-30T21:59:59")) == "2026-11-30"
    assert maputo_day(utc("2026-11-30T22:00:00")) == "2026-12-01"
