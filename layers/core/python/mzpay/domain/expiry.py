"""When a waiting payment expires (pure rules; the store's sparse `expiry` index and the
PaymentExpiryFunction act on them).

- a hosted checkout waiting for its payer (requires_payment_method): at the expires_at the
  merchant chose (expires_in: default 24 h; 30 min to 7 days in live mode, from 1 s in test
  mode so integrations can watch a checkout expire);
- a payment waiting for the payer's action (requires_action): at its next action's
  expires_at, else 30 minutes after the action was asked for;
- a pending test payment (the simulated provider timed out): 30 minutes after it started.
  A pending LIVE payment never expires by the clock: the provider may have moved the money,
  so only the provider's answer (reconciliation) may end it.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.payments import Status

SHARDS = 4  # the expiry index is spread over this many partition keys
CHECKOUT_DEFAULT = timedelta(hours=24)
CHECKOUT_MAX = timedelta(days=7)
CHECKOUT_MIN = {"live": timedelta(minutes=30), "test": timedelta(seconds=1)}
ACTION_WINDOW = timedelta(minutes=30)
PENDING_WINDOW = timedelta(minutes=30)


def iso(moment: datetime) -> str:
    """UTC ISO 8601 to the second with a Z: the one format, so deadlines compare as strings."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def shard(provider_payment_id: str) -> str:
    return f"EXP#{zlib.crc32(provider_payment_id.encode()) % SHARDS}"


def checkout_deadline(mode: str, expires_in: int | None, now: datetime) -> datetime:
    """When a new checkout expires; 400 invalid_request naming expires_in outside its bounds."""
    if expires_in is None:
        return now + CHECKOUT_DEFAULT
    low, high = CHECKOUT_MIN[mode], CHECKOUT_MAX
    if not low.total_seconds() <= expires_in <= high.total_seconds():
        message = (
            f"expires_in is between {int(low.total_seconds())} and {int(high.total_seconds())} seconds in {mode} mode"
        )
        raise ServiceError(400, "invalid_request", message, errors=[FieldError("expires_in", "invalid_value", message)])
    return now + timedelta(seconds=expires_in)


def waiting(payment: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The expiry attributes a payment carries after a change: expires_at and expiry_shard while
    it waits in an expirable status, none (None: removed) once it stops waiting."""
    status, mode = payment["status"], payment["mode"]
    deadline: str | None = None
    if status == Status.REQUIRES_PAYMENT_METHOD:
        deadline = payment["expires_at"]
    elif status == Status.REQUIRES_ACTION:
        deadline = (payment.get("next_action") or {}).get("expires_at") or iso(now + ACTION_WINDOW)
    elif status == Status.PENDING and mode == "test":
        deadline = payment.get("expires_at") or iso(now + PENDING_WINDOW)
    if deadline is None:
        return {"expires_at": None, "expiry_shard": None}
    return {"expires_at": _normalized(deadline), "expiry_shard": shard(payment["provider_payment_id"])}


def _normalized(moment: str) -> str:
    """A deadline in the format `iso` writes."""
    return iso(datetime.fromisoformat(moment.replace("Z", "+00:00")))


def is_due(payment: dict[str, Any], now: datetime) -> bool:
    return bool(payment.get("expiry_shard")) and payment.get("expires_at", "~") <= iso(now)
