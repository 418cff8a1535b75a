"""Operators and the region's suppression list (management API; docs/notifications.md,
"Suppression"): read whether an address is suppressed, and why, and take it off the list when
the payer fixed their mailbox or asked to hear from us again."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers.messages import MessageSuppression
from mzpay.domain.common.errors import found

CHANNELS = ("email", "sms")


def suppression(channel: str, address: str) -> MessageSuppression:
    listed = deps.suppressions().get(channel, address) if channel in CHANNELS else None
    return MessageSuppression.of({"object": "message_suppression", **found(listed, "suppressed address")})


def remove(channel: str, address: str) -> MessageSuppression:
    """Take the address off the list; what it said (404 when it was not on it)."""
    listed = suppression(channel, address)
    deps.suppressions().remove(channel, address)
    return listed
