"""The event-stream fan-out: what the outbox does for each new event item of the events table's
stream (functions/webhook_dispatcher): its webhook delivery (mzpay.webhooks.outbox), its settlement
message (mzpay.steps.settlement), the collection's reconciliation (mzpay.steps.collection_payments),
a pay_bill's settlement message (mzpay.steps.bill_settlements), its notification
(mzpay.steps.notifications) and its report's building (mzpay.steps.reports). It sits above
mzpay.steps, which it calls; a step that meets a poison event raises
mzpay.webhooks.outbox.PoisonRecord. A poison event is skipped to WebhookDispatchFailureQueue
(docs/webhooks.md, "Poison records")."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mzpay import deps
from mzpay.observability import logger
from mzpay.store.webhook_deliveries import iso
from mzpay.webhooks import outbox
from mzpay.webhooks.outbox import MAX_ERROR_CHARS, is_permanent, poison_reason


@dataclass(frozen=True)
class Skip:
    """One step of an event's dispatch that can never succeed as the event is."""

    step: str  # "webhook", "settlement", "collection", "pay_bill", "notification" or "report"
    reason: str
    detail: str


@dataclass(frozen=True)
class Dispatched:
    """What the outbox did for one event: its delivery (None: nothing to deliver) and the steps
    it skipped as poison."""

    delivery_id: str | None
    skipped: tuple[Skip, ...]


def dispatch_event(image: Mapping[str, Any]) -> Dispatched:
    """Everything the outbox does for a new event item: its webhook delivery and its settlement
    message. A permanent fault of one step is returned as a Skip (the other step still runs); a
    transient one raises, so that the record is played again (both steps are idempotent)."""
    from mzpay.steps.bill_settlements import dispatch_bill_settlement
    from mzpay.steps.collection_payments import reconcile_collection  # imported late (they import much)
    from mzpay.steps.notifications import dispatch_notification
    from mzpay.steps.reports import dispatch_report
    from mzpay.steps.settlement import dispatch_settlement

    steps: tuple[tuple[str, Callable[[], Any]], ...] = (
        ("webhook", lambda: outbox.dispatch(image)),
        ("settlement", lambda: dispatch_settlement(dict(image))),
        ("collection", lambda: reconcile_collection(image)),
        ("pay_bill", lambda: dispatch_bill_settlement(image)),
        ("notification", lambda: dispatch_notification(dict(image))),
        ("report", lambda: dispatch_report(dict(image))),
    )
    skipped: list[Skip] = []
    delivery_id = None
    for step, run in steps:
        try:
            done = run()
        except Exception as exc:
            if not is_permanent(exc):
                raise
            skipped.append(Skip(step, poison_reason(exc), str(exc)[:MAX_ERROR_CHARS]))
        else:
            if step == "webhook":
                delivery_id = done
    return Dispatched(delivery_id, tuple(skipped))


SKIP_SOURCE = "webhook_dispatcher"
_KEY_CHARS = 1_024


def _text(value: Any, limit: int = 200) -> str | None:
    return None if value is None else str(value)[:limit]


def skip_message(
    image: Mapping[str, Any] | None, skip: Skip, stream: Mapping[str, Any], clock: Callable[[], float] = time.time
) -> dict[str, Any]:
    """The failure-queue message of a skipped event: why, and the event's key in the events
    table (every string bounded, so the message always fits SQS's 256 KB)."""
    image = image or {}
    return {
        "source": SKIP_SOURCE,
        "step": skip.step,
        "reason": skip.reason,
        "detail": skip.detail[:MAX_ERROR_CHARS],
        "event_key": {"pk": _text(image.get("pk"), _KEY_CHARS), "sk": _text(image.get("sk"), _KEY_CHARS)},
        "event_id": _text(image.get("id")),
        "event_type": _text(image.get("type")),
        "account_id": _text(image.get("account_id")),
        "mode": _text(image.get("mode")),
        "stream": {name: _text(value, _KEY_CHARS) for name, value in stream.items()},
        "skipped_at": iso(clock()),
    }


def skip(image: Mapping[str, Any] | None, skipped: Skip, stream: Mapping[str, Any]) -> None:
    """Put a poison event in WebhookDispatchFailureQueue (alarmed) and say so in the log. If the
    queue cannot be reached this raises, and the record is played again."""
    message = skip_message(image, skipped, stream)
    deps.dispatch_failures().send(message)
    logger.error(
        "webhook dispatch skipped a poison event",
        reason=skipped.reason,
        step=skipped.step,
        event_id=message["event_id"],
        account_id=message["account_id"],
    )
