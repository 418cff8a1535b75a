"""When a waiting payment expires (pure rules; the store's sparse `expiry` index and the
PaymentExpiryFunction act on them).

- a hosted checkout waiting for its payer (requires_payment_method): at the expires_at the
  merchant chose (expires_in: default 24 h; 30 min to 7 days in live mode, from 1 s in test
  mode so integrations can watch a checkout expire);
- a payment waiting for the payer's action (requires_action): at its next action's
  expires_at, else 30 minutes after the action was asked for;
- a pending test payment (the simulated provider timed out): 30 minutes after it started.
  A pending LIVE payment never expires by the clock: the provider may have moved the money,
  so only the provider's answer may end it. The sweep asks the provider (reconciliation) 2
  minutes after it went pending, then after waits that double up to an hour, for 72 hours.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.payments.rules import Payment, Status

SHARDS = 4  # the expiry index is spread over this many partition keys
# The index's partition of what waits for an operator rather than the clock: live payments,
# refunds and payouts whose provider never answered within RECONCILE_GIVE_UP (never swept).
ATTENTION = "ATTENTION"
GAVE_UP, RESOLVED = "gave_up", "resolved"  # an object's `reconciliation`
CHECKOUT_DEFAULT = timedelta(hours=24)
CHECKOUT_MAX = timedelta(days=7)
CHECKOUT_MIN = {"live": timedelta(minutes=30), "test": timedelta(seconds=1)}
ACTION_WINDOW = timedelta(minutes=30)
PENDING_WINDOW = timedelta(minutes=30)
RECONCILE_FIRST = timedelta(minutes=2)  # a live payment left pending is asked about after this
RECONCILE_MAX = timedelta(hours=1)
RECONCILE_GIVE_UP = timedelta(hours=72)
# Between a charge's (or refund's) creating write and its provider call, the creating request
# holds a submission lease: longer than the gateway function's 28 s timeout for a live provider,
# a few seconds for the simulator, which answers at once. After it, nobody is submitting: a retry
# of the same request, or the sweep, takes the submission over (see docs/payments.md).
SUBMIT_LEASE = {"live": timedelta(seconds=35), "test": timedelta(seconds=5)}
# In test mode the simulated payer answers the prompt on their phone by themselves this long after
# it appeared (docs/test-mode.md): a merchant who polls, or waits for the webhook, sees an outcome.
TEST_PAYER_DELAY = timedelta(seconds=3)


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


def waiting(payment: Payment, now: datetime, reconcile_first: timedelta = RECONCILE_FIRST) -> dict[str, Any]:
    """The attributes that put a payment in the sweep's index after a change: while it waits in
    an expirable status, expires_at and due_at (the same moment); while a LIVE payment is pending,
    due_at alone (when to ask its provider again, see reconcile_at); none (None: removed) else."""
    status, mode = payment.status, payment.mode
    if status == Status.PENDING and mode == "live":
        return {
            "expires_at": None,
            "due_at": iso(now + reconcile_first),
            "expiry_shard": shard(payment.provider_payment_id),
        }
    deadline: str | None = None
    if status == Status.REQUIRES_PAYMENT_METHOD:
        deadline = payment.expires_at
    elif status == Status.REQUIRES_ACTION:
        deadline = (payment.next_action or {}).get("expires_at") or iso(now + ACTION_WINDOW)
        if plays_payer(payment):  # the sweep comes back when the simulated payer answers
            return {
                "expires_at": _normalized(deadline),
                "due_at": iso(now + TEST_PAYER_DELAY),
                "expiry_shard": shard(payment.provider_payment_id),
            }
    elif status == Status.PENDING and mode == "test":
        deadline = payment.expires_at or iso(now + PENDING_WINDOW)
    if deadline is None:
        return {"expires_at": None, "due_at": None, "expiry_shard": None}
    deadline = _normalized(deadline)
    return {"expires_at": deadline, "due_at": deadline, "expiry_shard": shard(payment.provider_payment_id)}


def reconcile_at(pending_since: str, now: datetime, first: timedelta = RECONCILE_FIRST) -> str | None:
    """When to ask the provider again about a live payment pending since `pending_since`: the
    wait doubles from RECONCILE_FIRST up to RECONCILE_MAX; after RECONCILE_GIVE_UP nothing more
    is asked by itself (None) and the payment stays pending for an operator."""
    started = datetime.fromisoformat(pending_since.replace("Z", "+00:00"))
    age = now - started
    if age >= RECONCILE_GIVE_UP:
        return None
    wait = min(max(age, first), RECONCILE_MAX)
    return iso(now + wait)


def next_question(pending_since: str, updated_at: str, now: datetime, first: timedelta) -> dict[str, Any]:
    """The changes that schedule the next reconciliation of a live payment, refund or payout
    the provider has not answered (`updated_at` kept: nothing the merchant sees changed), or
    past the horizon move it from the sweep's shards to the operators' partition of the same
    index (ATTENTION), marked reconciliation gave_up."""
    next_at = reconcile_at(pending_since, now, first)
    if next_at is None:  # into the operators' queue (GET /v1/reconciliation-cases), oldest first
        return {"due_at": iso(now), "updated_at": updated_at, "expiry_shard": ATTENTION, "reconciliation": GAVE_UP}
    return {"due_at": next_at, "updated_at": updated_at}


def _normalized(moment: str) -> str:
    """A deadline in the format `iso` writes."""
    return iso(datetime.fromisoformat(moment.replace("Z", "+00:00")))


def plays_payer(payment: Payment) -> bool:
    """A test wallet charge waiting for the payer's answer on their phone (a poll action): the
    simulated payer answers it by themselves (payer_due)."""
    return (
        payment.mode == "test"
        and payment.status == Status.REQUIRES_ACTION
        and (payment.next_action or {}).get("type") == "poll"
        and (payment.source or {}).get("type") == "mobile_wallet"
    )


def payer_due(payment: Payment, now: datetime) -> bool:
    """The simulated payer has answered by now (TEST_PAYER_DELAY after the prompt appeared)."""
    if not plays_payer(payment):
        return False
    prompted = datetime.fromisoformat(payment.updated_at.replace("Z", "+00:00"))
    return now >= prompted + TEST_PAYER_DELAY and not is_due(payment, now)


def is_due(payment: Payment, now: datetime) -> bool:
    """Past its deadline while waiting in an expirable status (live pending payments are never
    due to expire: they are reconciled)."""
    return bool(payment.expiry_shard) and (payment.expires_at or "~") <= iso(now)


def submission_lease(mode: str, now: datetime) -> str:
    """When the submission lease of a charge or refund created now ends."""
    return iso(now + SUBMIT_LEASE[mode])


class Leased(Protocol):
    """A charge or refund: submitted to its provider under its creating request's lease."""

    @property
    def status(self) -> str: ...

    @property
    def submit_lease_until(self) -> str | None: ...


L = TypeVar("L", bound=Leased)


def abandoned(entity: Leased, now: datetime) -> bool:
    """A pending charge or refund whose creating request wrote it but never recorded a provider
    answer, and whose submission lease has ended: nobody is submitting it any more."""
    lease = entity.submit_lease_until
    return bool(lease) and entity.status == Status.PENDING and str(lease) <= iso(now)


def being_submitted(entity: Leased, now: datetime) -> bool:
    """A pending charge or refund whose creating request may be submitting it right now (its
    submission lease runs): a duplicate must wait rather than answer or act on it."""
    lease = entity.submit_lease_until
    return bool(lease) and entity.status == Status.PENDING and str(lease) > iso(now)


def in_progress() -> ServiceError:
    """409 request_in_progress: the same request is still being submitted; retry shortly."""
    return ServiceError(
        409,
        "request_in_progress",
        "This request is still being submitted to the provider; retry shortly with the same Idempotency-Key.",
        headers={"Retry-After": "1"},
    )


def to_resume(entity: L) -> L:
    """A charge or refund whose id is sent again, to resume: as it is, unless its creating
    request may be submitting it right now (409 request_in_progress)."""
    if being_submitted(entity, datetime.now(UTC)):
        raise in_progress()
    return entity


def settled_or_wait(entity: L) -> L:
    """A charge or refund as its creator answers once another request drives it: as it is,
    unless it is still (or again) to be submitted: then 409 request_in_progress, retried with
    the same Idempotency-Key."""
    now = datetime.now(UTC)
    if being_submitted(entity, now) or abandoned(entity, now):
        raise in_progress()
    return entity
