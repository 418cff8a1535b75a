"""Operators and NotificationDeadLetterQueue (management API): replay the messages to people the
notification sender gave up on, once the cause is repaired (docs/operations.md, "Notification
dead letters"). Each is put back on NotificationQueue as it was, then dropped from the dead
letters; the sender's record per cause and recipient keeps a replayed message from being sent
twice (one sent, suppressed or failed already is dropped by the sender), so replaying twice, or
two replays racing, send once."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers.messages import NotificationDeadLetterReplay


def replay(limit: int) -> NotificationDeadLetterReplay:
    """Move up to `limit` dead letters back to NotificationQueue, oldest first as SQS gives them."""
    dead_letters = deps.notification_dead_letters()
    queue = deps.notification_queue()
    replayed = 0
    while replayed < limit:
        taken = dead_letters.take(min(10, limit - replayed))
        if not taken:
            break
        for body, receipt_handle in taken:
            queue.post(body)
            dead_letters.drop(receipt_handle)
            replayed += 1
    more = replayed == limit and bool(dead_letters.take(1, hidden_seconds=0))  # a peek: it stays visible
    return NotificationDeadLetterReplay.of(
        {"object": "notification_dead_letter_replay", "replayed": replayed, "has_more": more}
    )
