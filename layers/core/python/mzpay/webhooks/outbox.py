"""The outbox (docs/webhooks.md): new events become webhook deliveries (the dispatcher, on the
events table's stream), deliveries become signed POSTs with retries (the sender, on WebhookQueue)
and a delivery out of attempts becomes failed (the dead-letter handler, on its DLQ).

Guarantees: one delivery per (event, callback URL), however often a stream record is played; one
queue message per delivery round, except when the dispatcher dies between sending it and
recording that it did (then a second copy is sent and ignored: the first message that leases a
round owns it); at most one attempt at a time per delivery; no attempt after a delivery left
`pending`. Receivers still see a webhook more than once when an attempt's answer is lost (a
timeout after they processed it): they deduplicate on Service-Event-Id.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import Any
from urllib.parse import parse_qs, urlsplit

import simplejson
from ulid import ULID

from mzpay import deps
from mzpay.config import settings
from mzpay.domain.webhooks import rules
from mzpay.domain.webhooks.deliveries import Delivery
from mzpay.domain.webhooks.events import envelope_of
from mzpay.domain.webhooks.rules import RETENTION_SECONDS, DeliveryStatus
from mzpay.observability import logger
from mzpay.store.webhook_deliveries import iso

ENQUEUE_LEASE_SECONDS = 30  # a dispatcher run that dies holding it is taken over after this
ATTEMPT_LEASE_SECONDS = 60  # longer than the sender's timeout: a running attempt never loses it
VISIBILITY_MARGIN_SECONDS = 60  # SQS counts its 12 h visibility cap from the receive
MAX_PARALLEL_POSTS = 10

# What a delivery stores is bounded, so that its item stays far below DynamoDB's 400 KB by
# construction (docs/webhooks.md, "Poison records"): the URL, the payload (the event envelope)
# and the attempts (the most recent ones, each with a short error text).
MAX_URL_LENGTH = 2_048
MAX_PAYLOAD_BYTES = 256 * 1024
MAX_ATTEMPTS_KEPT = 50  # attempt_count still counts them all
MAX_ERROR_CHARS = 200


def retry_base() -> int:
    """WEBHOOK_RETRY_BASE_SECONDS (template parameter WebhookRetryBaseSeconds; 300 by default)."""
    base = settings().webhook_retry_base_seconds
    return rules.DEFAULT_RETRY_BASE_SECONDS if base is None else base


LOCAL_SCALE_PARAMETER = "devstack_retry_scale"  # a callback URL's query parameter, local stack only


def retry_time_scale(url: str = "") -> float:
    """Seconds waited per second of the retry schedule: 1 in production (WEBHOOK_RETRY_TIME_SCALE
    unset). The local stack sets 1/60 (a minute of schedule is a second). Only there, a callback
    URL with the query parameter devstack_retry_scale=<scale> (e.g. 0) has its own scale, so a
    test can run out of attempts in seconds while the others keep the schedule."""
    local = settings().webhook_retry_time_scale
    if not local:
        return 1.0
    query = parse_qs(urlsplit(url).query)
    chosen = (query.get(LOCAL_SCALE_PARAMETER) or [local])[-1]
    try:
        scale = float(chosen)
    except ValueError:
        scale = float(local)
    return scale if 0 <= scale <= 1 else float(local)


def payload_of(envelope: Mapping[str, Any]) -> str:
    """The body posted on every attempt: the envelope as compact JSON, numbers exact."""
    return simplejson.dumps(envelope, use_decimal=True, separators=(",", ":"))


# ---------------------------------------------------------------- dispatcher
class DispatchInProgress(Exception):
    """Another run is queueing this delivery right now; play the record again later."""


class PoisonRecord(Exception):
    """A record that can never be dispatched as it is (playing it again cannot help): the
    dispatcher skips it into WebhookDispatchFailureQueue instead of blocking its shard."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# AWS error codes that say "this request can never succeed" (the item, message or parameters are
# refused as they are); everything else (throttling, timeouts, 5xx, access, a missing resource)
# may pass on a later play and is retried.
PERMANENT_ERROR_CODES = frozenset(
    {
        "ValidationException",  # DynamoDB: item over 400 KB, empty key, bad attribute value
        "SerializationException",
        "InvalidParameterValue",  # SQS: message too long or with characters it refuses
        "InvalidMessageContents",
    }
)


def is_permanent(exc: BaseException) -> bool:
    """True when a record whose dispatch raised `exc` is poison: skip it, never retry it."""
    if isinstance(exc, PoisonRecord):
        return True
    if type(exc).__name__ == "ParamValidationError":  # botocore refused the request before sending it
        return True
    response = getattr(exc, "response", None)
    code = response.get("Error", {}).get("Code", "") if isinstance(response, dict) else ""
    return code in PERMANENT_ERROR_CODES


def poison_reason(exc: BaseException) -> str:
    """The reason a failure-queue message gives for a permanent fault."""
    if isinstance(exc, PoisonRecord):
        return exc.reason
    if type(exc).__name__ == "ParamValidationError":
        return "invalid_request_parameters"
    code = str(exc.response["Error"]["Code"])  # type: ignore[attr-defined]
    return "rejected_by_dynamodb" if code in ("ValidationException", "SerializationException") else "rejected_by_sqs"


def _envelope(image: Mapping[str, Any]) -> dict[str, Any]:
    try:
        envelope = envelope_of(image)
        ULID.from_str(str(envelope["id"]))
    except (KeyError, ValueError, TypeError) as exc:
        raise PoisonRecord("malformed_event", f"not an event envelope: {exc!r}"[:200]) from None
    return envelope


def bounded(url: str, payload: str) -> None:
    """Raise PoisonRecord when a delivery of `payload` to `url` would store more than allowed."""
    if len(url) > MAX_URL_LENGTH:
        raise PoisonRecord("callback_url_too_long", f"{len(url)} characters, at most {MAX_URL_LENGTH}")
    size = len(payload.encode())
    if size > MAX_PAYLOAD_BYTES:
        raise PoisonRecord("payload_too_large", f"{size} bytes, at most {MAX_PAYLOAD_BYTES}")


def dispatch(
    image: Mapping[str, Any],
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    wait_seconds: float = ENQUEUE_LEASE_SECONDS + 5,
) -> str | None:
    """The delivery of a new event item (its stream NEW_IMAGE) with a message on the queue; its
    id, or None when the event is not delivered (not deliverable, or no callback_url)."""
    if not str(image.get("sk", "")).startswith("EVT#"):
        return None
    url = image.get("callback_url")
    if not rules.is_deliverable(image.get("type"), url):
        return None
    envelope = _envelope(image)
    url = str(url)
    payload = payload_of(envelope)
    bounded(url, payload)
    delivery_id = rules.delivery_id_for(envelope["id"], url)
    now = clock()
    token = uuid.uuid4().hex
    created = deps.deliveries().create(
        Delivery(
            delivery_id=delivery_id,
            event_id=str(envelope["id"]),
            event_type=str(envelope["type"]),
            account_id=str(envelope["account_id"]),
            mode=str(envelope["mode"]),
            resource=str(envelope["resource"]),
            resource_id=str(envelope["resource_id"]),
            url=url,
            payload=payload,
            status=DeliveryStatus.PENDING,
            round=0,
            attempt_count=0,
            created_at=iso(now),
            updated_at=iso(now),
            next_attempt_at=iso(now),
            enqueue_lease=token,
            enqueue_lease_until=int(now) + ENQUEUE_LEASE_SECONDS,
            ttl=int(now) + RETENTION_SECONDS,
        )
    )
    if created:
        _enqueue(delivery_id, token, clock)
        return delivery_id
    # Played before: done, or queued by a run still under way, or by one that died.
    deadline = clock() + wait_seconds
    while True:
        existing = deps.deliveries().get(delivery_id)
        if existing is None:
            raise RuntimeError(f"delivery {delivery_id} vanished")
        if existing.enqueued_at or existing.status != DeliveryStatus.PENDING:
            return delivery_id
        seen, until = existing.enqueue_lease, existing.enqueue_lease_until
        if seen is None or until is None or until <= clock():
            token = uuid.uuid4().hex
            if deps.deliveries().take_enqueue_lease(delivery_id, seen, token, int(clock()) + ENQUEUE_LEASE_SECONDS):
                logger.info("taking over the queueing of a delivery", delivery_id=delivery_id)
                _enqueue(delivery_id, token, clock)
                return delivery_id
            continue  # another run took it meanwhile: look again
        if clock() >= deadline:
            raise DispatchInProgress(delivery_id)
        sleep(0.2)


def _enqueue(delivery_id: str, token: str, clock: Callable[[], float]) -> None:
    try:
        deps.delivery_queue().send(delivery_id, 0)
    except Exception:
        with suppress(Exception):  # a retry of the record then need not wait for the lease
            deps.deliveries().release_enqueue_lease(delivery_id, token)
        raise
    deps.deliveries().mark_enqueued(delivery_id, token, iso(clock()))
