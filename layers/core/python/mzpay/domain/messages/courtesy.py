"""How often and when people hear from us (docs/notifications.md, "Respectful and safe"): at most
a number of messages per recipient (channel and address) per Maputo day, and no SMS in the quiet
hours (21:00 to 07:00 Africa/Maputo by default): an SMS due then waits for their end. Pure rules;
mzpay.steps.courtesy applies them to a message about to be sent."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

MAPUTO = ZoneInfo("Africa/Maputo")
DAILY_CAP = 5  # messages per recipient per Maputo day (MessagesDailyCap; 0: no cap)
QUIET_HOURS = "21:00-07:00"  # when no SMS goes, Maputo time (SmsQuietHours; "none": none)
NO_QUIET_HOURS = "none"  # SmsQuietHours' word for none: an empty setting counts as unset (mzpay.config)
HELD_CHANNELS = ("sms",)  # e-mail waits in the mailbox: it is not held


def maputo_day(moment: datetime) -> str:
    """The Maputo date of `moment` (YYYY-MM-DD): the day a recipient's cap counts in."""
    return moment.astimezone(MAPUTO).date().isoformat()


def quiet_window(text: str) -> tuple[time, time] | None:
    """`HH:MM-HH:MM` as (start, end); None for "none" or "" (no quiet hours).

    >>> quiet_window("21:00-07:00")
    (datetime.time(21, 0), datetime.time(7, 0))
    """
    if not text.strip() or text.strip().lower() == NO_QUIET_HOURS:
        return None
    start, _, end = text.strip().partition("-")
    window = time.fromisoformat(start.strip()), time.fromisoformat(end.strip())
    if window[0] == window[1]:
        raise ValueError(f"quiet hours {text!r} start and end at the same time")
    return window


def quiet_until(channel: str, moment: datetime, window: tuple[time, time] | None) -> datetime | None:
    """When a message on `channel` due at `moment` may go, if the quiet hours hold it now (the
    window's end, Maputo time, as an aware moment); None when it may go at once."""
    if window is None or channel not in HELD_CHANNELS:
        return None
    local = moment.astimezone(MAPUTO)
    start, end = window
    now = local.time()
    quiet = start <= now < end if start < end else (now >= start or now < end)
    if not quiet:
        return None
    morning = datetime.combine(local.date(), end, tzinfo=MAPUTO)
    return morning if morning > local else morning + timedelta(days=1)
