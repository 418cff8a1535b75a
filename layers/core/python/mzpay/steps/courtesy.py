"""What is checked between a message's claim and its provider (docs/notifications.md,
"Respectful and safe"): an SMS in the quiet hours waits for the morning (its record left
`deferred` until then, its queue message made to come back then), and a recipient past their
daily cap gets nothing more that day (the record `suppressed`, failure `daily_cap`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mzpay import deps
from mzpay.deps import settings
from mzpay.domain.common import clock
from mzpay.domain.messages import courtesy
from mzpay.store.notifications import record_id

DAILY_CAP = "daily_cap"  # a suppressed record's failure when the recipient's cap was reached


class Deferred(Exception):
    """The message waits (quiet hours) until `not_before`: its queue message is to come back then."""

    def __init__(self, cause: str, not_before: datetime) -> None:
        super().__init__(f"{cause} waits until {clock.iso(not_before)}")
        self.not_before = not_before


def hold(record: dict[str, Any]) -> str | None:
    """Check a claimed message before it is sent: None when it may go now; 'suppressed' (recorded)
    when its recipient had their daily cap; raises Deferred (recorded `deferred`, with
    `not_before`) when the quiet hours hold it."""
    now = clock.now()
    cause, channel, to = record["cause"], record["channel"], record["to"]
    records = deps.message_records()
    quiet = settings().sms_quiet_hours
    window = courtesy.quiet_window(courtesy.QUIET_HOURS if quiet is None else quiet)
    morning = courtesy.quiet_until(channel, now, window)
    if morning is not None:
        records.finish(cause, channel, to, "deferred", clock.iso(now), not_before=clock.iso(morning))
        raise Deferred(cause, morning)
    cap = settings().messages_daily_cap
    cap = courtesy.DAILY_CAP if cap is None else cap
    day = courtesy.maputo_day(now)
    if cap and not deps.recipient_days().take(channel, to, day, record_id(cause, channel, to), cap):
        records.finish(cause, channel, to, "suppressed", clock.iso(now), failure=DAILY_CAP)
        return "suppressed"
    return None
