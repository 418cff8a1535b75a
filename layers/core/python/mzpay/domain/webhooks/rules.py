"""Webhook delivery rules: which events are delivered, the envelope posted, delivery statuses,
the retry schedule and which callback addresses may be reached. Pure: no AWS, no HTTP."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from ulid import ULID

# Event types posted to a callback_url. Others (payment.created, transaction.*) are recorded and
# served by the events API only.
DELIVERABLE = frozenset(
    {
        "payment.succeeded",
        "payment.failed",
        "payment.expired",
        "payment.canceled",
        "refund.succeeded",
        "refund.failed",
        "payout.paid",
        "payout.failed",
        "psp_transaction.recorded",
        "cash_deposit.created",
        "cash_deposit.succeeded",
        "cash_deposit.failed",
        "bill_payment.succeeded",  # posted to the payment's callback_url (docs/bills.md)
        "bill_payment.failed",
        "bill_payment.received",  # posted to the biller account's endpoint for its own events
        "payout_batch.sent",  # posted to the batch's callback_url (docs/payouts.md, "Payout batches")
        "payout_batch.rejected",
        "dispute.created",  # posted to the disputed payment's callback_url (docs/disputes.md)
        "dispute.won",
        "dispute.lost",
        "collection_request.created",  # posted to the request's integration_routing.callback_url
        "collection_request.paid",
        "collection_request.payment_failed",
        "collection_request.partially_paid",  # docs/collection-requests.md, "A request's life"
        "collection_request.cancelled",
        "collection_request.overdue",
        "collection_request.refund_due",
        "api_key.revoked",  # posted to the account's endpoint for its own events (docs/access.md)
        "oauth_client.revoked",
        "oauth_token.revoked",
        "report.succeeded",  # posted to the account's endpoint for its own events (docs/reports.md)
        "report.failed",
    }
)

# The envelope, in the order it is written (mzpay.domain.webhooks.events.new_event); nothing else of the
# stored event item (keys, callback_url) is posted.

USER_AGENT = "mzpay-webhooks/1"
REQUEST_TIMEOUT_SECONDS = 10.0  # an attempt in the slow lane (docs/webhooks.md, "Fairness")
RETENTION_SECONDS = 30 * 86400  # delivery records (with their attempts) are kept 30 days

# ---------------------------------------------------------------- retry schedule
MAX_ATTEMPTS = 20  # = WebhookQueue maxReceiveCount: one attempt per receive
DEFAULT_RETRY_BASE_SECONDS = 300
MAX_DELAY_SECONDS = 43_200  # SQS's longest visibility timeout (12 h)
CAP_FACTOR = 144  # the cap is 144 bases: 12 h at the production base of 5 min


def retry_ceiling(attempt: int, base: int = DEFAULT_RETRY_BASE_SECONDS) -> int:
    """The longest wait after failed attempt `attempt` (1-based): base * 2^(attempt-1), capped at
    min(12 h, 144 * base)."""
    if attempt < 1:
        raise ValueError("attempts count from 1")
    if base < 0:
        raise ValueError("the retry base is >= 0 seconds")
    cap = min(MAX_DELAY_SECONDS, base * CAP_FACTOR)
    return min(cap, base * 2 ** min(attempt - 1, 32))


def retry_delay(
    attempt: int, base: int = DEFAULT_RETRY_BASE_SECONDS, rng: Callable[[], float] = random.random
) -> int | None:
    """Seconds to wait before the attempt after failed attempt `attempt`, with full jitter (a
    uniform whole number of seconds in [0, ceiling]); None after the last attempt: the delivery
    is dead-lettered."""
    if attempt >= MAX_ATTEMPTS:
        return None
    ceiling = retry_ceiling(attempt, base)
    return min(ceiling, int(rng() * (ceiling + 1)))


@dataclass(frozen=True)
class ScheduleStep:
    """Attempt `attempt` failed: the next one comes within [0, ceiling] seconds; `latest` and
    `mean` are the cumulative worst and average time since the first attempt."""

    attempt: int
    ceiling: int
    latest: int
    mean: float


def retry_schedule(base: int = DEFAULT_RETRY_BASE_SECONDS) -> list[ScheduleStep]:
    """The whole schedule (the table in docs/webhooks.md), one step per failed attempt that is
    retried (attempts 1 to MAX_ATTEMPTS - 1)."""
    steps: list[ScheduleStep] = []
    latest, mean = 0, 0.0
    for attempt in range(1, MAX_ATTEMPTS):
        ceiling = retry_ceiling(attempt, base)
        latest += ceiling
        mean += ceiling / 2
        steps.append(ScheduleStep(attempt, ceiling, latest, mean))
    return steps


# ---------------------------------------------------------------- statuses
class DeliveryStatus(StrEnum):
    PENDING = "pending"  # queued, being attempted or waiting for its next attempt
    DELIVERED = "delivered"  # the receiver answered 2xx
    FAILED = "failed"  # dead-lettered after the last attempt, or refused (ssrf_blocked)
    STOPPED = "stopped"  # the receiver answered 410 Gone: no more attempts


TRANSITIONS: Mapping[DeliveryStatus, frozenset[DeliveryStatus]] = {
    DeliveryStatus.PENDING: frozenset({DeliveryStatus.DELIVERED, DeliveryStatus.FAILED, DeliveryStatus.STOPPED}),
    DeliveryStatus.FAILED: frozenset({DeliveryStatus.PENDING}),  # an operator's replay
    DeliveryStatus.DELIVERED: frozenset(),
    DeliveryStatus.STOPPED: frozenset(),
}
REPLAYABLE = frozenset(s for s, targets in TRANSITIONS.items() if DeliveryStatus.PENDING in targets)


class Outcome(StrEnum):
    DELIVERED = "delivered"
    STOPPED = "stopped"
    REFUSED = "refused"  # never retried: the URL may not be reached
    RETRY = "retry"


# Attempt errors (status_code is null): why no HTTP answer came.
SSRF_BLOCKED = "ssrf_blocked"
INVALID_URL = "invalid_url"
FINAL_ERRORS = frozenset({SSRF_BLOCKED, INVALID_URL})


def outcome_of(status_code: int | None, error: str | None) -> Outcome:
    """2xx delivers, 410 stops, a refused URL fails at once, anything else is retried
    (other statuses, redirects (never followed), timeouts, connection and TLS errors)."""
    if error in FINAL_ERRORS:
        return Outcome.REFUSED
    if status_code is not None and 200 <= status_code < 300:
        return Outcome.DELIVERED
    if status_code == 410:
        return Outcome.STOPPED
    return Outcome.RETRY


# ---------------------------------------------------------------- fairness: two lanes
# Every delivery is first attempted in the hot lane (WebhookQueue), where an attempt waits at most
# HOT_LANE_TIMEOUT_SECONDS; an attempt that took SLOW_ATTEMPT_SECONDS or more (a timeout
# included) marks its endpoint slow for SLOW_ENDPOINT_HOLD_SECONDS and its retries, and the
# endpoint's next deliveries, go to the slow lane (WebhookSlowQueue, its own capped concurrency),
# where an attempt waits REQUEST_TIMEOUT_SECONDS. One account's slow receiver so holds hot-lane
# capacity for at most one short attempt per delivery, and only until its endpoint is marked.
HOT_LANE_TIMEOUT_SECONDS = 5.0
SLOW_ATTEMPT_SECONDS = 2.0
SLOW_ENDPOINT_HOLD_SECONDS = 600
MAX_QUEUE_DELAY_SECONDS = 900  # SQS's longest DelaySeconds: a retry moved to the slow lane waits so


class Lane(StrEnum):
    HOT = "hot"
    SLOW = "slow"


def attempt_timeout(lane: Lane) -> float:
    """How long an attempt waits for the receiver's answer in `lane`."""
    return HOT_LANE_TIMEOUT_SECONDS if lane is Lane.HOT else REQUEST_TIMEOUT_SECONDS


def is_slow_attempt(latency_ms: int) -> bool:
    """An attempt that held its sender this long marks its endpoint slow (whatever it answered)."""
    return latency_ms >= SLOW_ATTEMPT_SECONDS * 1000


def endpoint_key(account_id: str, url: str) -> str:
    """The endpoint a slow mark is kept for: the account and the URL's origin (scheme, host,
    port), so that one slow host of an account never moves another account's deliveries."""
    try:
        parts = urlsplit(url)
        origin = f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{parts.port or ''}"
    except ValueError:
        origin = url
    return f"{account_id}#{hashlib.sha256(origin.encode()).hexdigest()[:32]}"


# ---------------------------------------------------------------- deliveries
def is_deliverable(event_type: object, callback_url: object) -> bool:
    return event_type in DELIVERABLE and isinstance(callback_url, str) and bool(callback_url)


def delivery_id_for(event_id: str, url: str) -> str:
    """The one delivery of `event_id` to `url`: a ULID with the event's time and 80 bits of
    SHA-256(event id, url), so that the same event and URL always name the same delivery."""
    digest = hashlib.sha256(f"{event_id}\n{url}".encode()).digest()
    return str(ULID.from_bytes(ULID.from_str(event_id).bytes[:6] + digest[:10]))


def delivery_headers(signature: str, event_id: str, delivery_id: str) -> dict[str, str]:
    """The headers of every webhook POST."""
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Service-Signature": signature,
        "Service-Event-Id": event_id,
        "Service-Delivery-Id": delivery_id,
    }
