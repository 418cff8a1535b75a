"""The daily sweep of reminders and overdue notices (docs/notifications.md, "Reminders and overdue
notices"): each day (Maputo's calendar) it reads the collection requests due on the days it
looks at from the due-date index (a Query per day and shard, never a Scan) and queues, for each
request still awaiting payment whose payer can be reached:

- a reminder when its due date is 1 to N days ahead (N: the stack's ReminderDaysBeforeDue), if
  the request existed before its reminder day (a request created within N days of its due date
  was just sent; it gets no reminder);
- an overdue notice when its due date is 1 to CATCH_UP_DAYS days past, if the request existed on
  its due date.

Each is its own cause (collection_request.reminder:<id>, collection_request.overdue:<id>), sent
once per recipient by the notification sender: a sweep run twice, or on the next day, queues
nothing already sent. Looking at a window of days rather than one is what catches up a missed
run: a day the sweep did not run is covered by the next run.

Overdue requests (docs/collection-requests.md, "Overdue"): reads and lists compute the overdue
status from the due date and Maputo's date, so it shows from midnight whatever this sweep did;
the sweep sends the event collection_request.overdue (to the request's callback_url), once: one
conditional write sets the request's overdue_notified with the event, and a request already
marked, or changed meanwhile (paid, cancelled: judged again on the next run), gets none."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from mzpay import deps
from mzpay.deps import settings
from mzpay.domain.collection.notices import awaits_payment, reaches_payer
from mzpay.domain.collection.requests import EVENT_OVERDUE, CollectionRequest, RequestStatus, request_event
from mzpay.domain.common.clock import now_iso
from mzpay.domain.messages import format as fmt
from mzpay.messages import DUE, OVERDUE, REMINDER
from mzpay.steps.notices import business_language
from mzpay.store.collection_requests import Changed

CATCH_UP_DAYS = 3  # an overdue notice still goes out this many days after the due date (missed runs)


@dataclass(frozen=True)
class Swept:
    day: str  # the Maputo day swept
    reminders: int  # queued
    overdue: int
    overdue_events: int = 0  # collection_request.overdue recorded


def due_notices(today: date, remind_days: int) -> list[tuple[str, str]]:
    """The (due date, notice) pairs the sweep of `today` looks at: reminders for the N days ahead,
    overdue notices for the CATCH_UP_DAYS days past."""
    ahead = [((today + timedelta(days=n)).isoformat(), REMINDER) for n in range(1, remind_days + 1)]
    past = [((today - timedelta(days=n)).isoformat(), OVERDUE) for n in range(1, CATCH_UP_DAYS + 1)]
    return ahead + past


def wanted(request: CollectionRequest, due: str, notice: str, remind_days: int) -> bool:
    """Whether `request` (due on `due`) gets `notice`: it awaits payment and existed on the day
    the notice is about (its reminder day, or its due date)."""
    if not awaits_payment(request.status) or request.invoice_metadata.get("due_date") != due:
        return False
    created = fmt.maputo_day(request.created_at) or ""
    day = date.fromisoformat(due)
    if notice == REMINDER:
        return created < (day - timedelta(days=remind_days)).isoformat()
    return created <= due


def mark_overdue(request: CollectionRequest) -> bool:
    """Record collection_request.overdue for `request` (past its due date by today's date in
    Maputo, awaiting payment) unless it was: one conditional write with the event. Whether this
    call recorded it."""
    if request.overdue_notified or request.shown_status() != RequestStatus.OVERDUE:
        return False  # marked already, paid or cancelled, or not late by today's date (a day replayed ahead)
    now = now_iso()
    changes = {"overdue_notified": True, "updated_at": now}
    event = request_event(EVENT_OVERDUE, request.changed(changes), now)
    try:
        deps.collection_requests().transition(request, changes, [event])
    except Changed:
        return False  # paid, cancelled or marked meanwhile: the next run judges it again
    return True


def sweep(now: datetime, day: str | None = None) -> Swept:
    """Queue the reminders and overdue notices of `day` (YYYY-MM-DD; by default today in Maputo at
    `now`) not sent yet."""
    today = date.fromisoformat(day) if day else fmt.today_in_maputo(now)
    remind_days = settings().reminder_days_before_due
    counts = {REMINDER: 0, OVERDUE: 0}
    events = 0
    languages: dict[str, str | None] = {}  # each business's notification language, read once a run
    for due, notice in due_notices(today, remind_days):
        for request in deps.collection_requests().due_on(due):
            if notice == OVERDUE and mark_overdue(request):
                events += 1
            view = request.view()
            address = reaches_payer(view)
            if address is None or not wanted(request, due, notice, remind_days):
                continue
            cause = f"collection_request.{notice}:{request.request_id}"
            if deps.message_records().status(cause, str(request.payer["delivery_method"]), address) is not None:
                continue  # sent already (or being sent)
            if request.account_id not in languages:
                languages[request.account_id] = business_language(request.account_id)
            language = languages[request.account_id]
            deps.notification_queue().send(
                {"kind": DUE, "notice": notice, "request": view, "business_language": language}
            )
            counts[notice] += 1
    return Swept(today.isoformat(), counts[REMINDER], counts[OVERDUE], events)
