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

import json
import os
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import simplejson

from mzpay.domain import webhooks as rules
from mzpay.domain.events import envelope_of
from mzpay.domain.webhook_secrets import valid_versions
from mzpay.domain.webhooks import RETENTION_SECONDS, DeliveryStatus, Outcome
from mzpay.observability import logger
from mzpay.store.accounts import WebhookSecrets
from mzpay.store.aws import client
from mzpay.store.webhook_deliveries import DeliveryQueue, WebhookDeliveries, iso
from mzpay.webhooks import transport
from mzpay.webhooks.signing import sign

ENQUEUE_LEASE_SECONDS = 30  # a dispatcher run that dies holding it is taken over after this
ATTEMPT_LEASE_SECONDS = 60  # longer than the sender's timeout: a running attempt never loses it
VISIBILITY_MARGIN_SECONDS = 60  # SQS counts its 12 h visibility cap from the receive
MAX_PARALLEL_POSTS = 10


@lru_cache(maxsize=1)
def deliveries() -> WebhookDeliveries:
    return WebhookDeliveries.from_env()


@lru_cache(maxsize=1)
def delivery_queue() -> DeliveryQueue:
    return DeliveryQueue.from_env()


@lru_cache(maxsize=1)
def secrets_store() -> WebhookSecrets:
    return WebhookSecrets.from_env()


def retry_base() -> int:
    """WEBHOOK_RETRY_BASE_SECONDS (template parameter WebhookRetryBaseSeconds; 0 on the local stack)."""
    return int(os.environ.get("WEBHOOK_RETRY_BASE_SECONDS", rules.DEFAULT_RETRY_BASE_SECONDS))


def allow_loopback() -> bool:
    """Only the local stack sets WEBHOOK_ALLOW_LOOPBACK=true (its receivers run on localhost)."""
    return os.environ.get("WEBHOOK_ALLOW_LOOPBACK", "").lower() == "true"


def payload_of(envelope: Mapping[str, Any]) -> str:
    """The body posted on every attempt: the envelope as compact JSON, numbers exact."""
    return simplejson.dumps(envelope, use_decimal=True, separators=(",", ":"))


# ---------------------------------------------------------------- dispatcher
class DispatchInProgress(Exception):
    """Another run is queueing this delivery right now; play the record again later."""


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
    envelope = envelope_of(image)
    delivery_id = rules.delivery_id_for(envelope["id"], str(url))
    now = clock()
    token = uuid.uuid4().hex
    created = deliveries().create(
        {
            "delivery_id": delivery_id,
            "event_id": envelope["id"],
            "event_type": envelope["type"],
            "account_id": envelope["account_id"],
            "mode": envelope["mode"],
            "resource": envelope["resource"],
            "resource_id": envelope["resource_id"],
            "url": url,
            "payload": payload_of(envelope),
            "status": DeliveryStatus.PENDING.value,
            "round": 0,
            "attempts": [],
            "attempt_count": 0,
            "created_at": iso(now),
            "updated_at": iso(now),
            "next_attempt_at": iso(now),
            "enqueue_lease": token,
            "enqueue_lease_until": int(now) + ENQUEUE_LEASE_SECONDS,
            "ttl": int(now) + RETENTION_SECONDS,
        }
    )
    if created:
        _enqueue(delivery_id, token, clock)
        return delivery_id
    # Played before: done, or queued by a run still under way, or by one that died.
    deadline = clock() + wait_seconds
    while True:
        existing = deliveries().get(delivery_id)
        if existing is None:
            raise RuntimeError(f"delivery {delivery_id} vanished")
        if existing.get("enqueued_at") or existing["status"] != DeliveryStatus.PENDING:
            return delivery_id
        seen, until = existing.get("enqueue_lease"), existing.get("enqueue_lease_until")
        if seen is None or until is None or until <= clock():
            token = uuid.uuid4().hex
            if deliveries().take_enqueue_lease(delivery_id, seen, token, int(clock()) + ENQUEUE_LEASE_SECONDS):
                logger.info("taking over the queueing of a delivery", delivery_id=delivery_id)
                _enqueue(delivery_id, token, clock)
                return delivery_id
            continue  # another run took it meanwhile: look again
        if clock() >= deadline:
            raise DispatchInProgress(delivery_id)
        sleep(0.2)


def _enqueue(delivery_id: str, token: str, clock: Callable[[], float]) -> None:
    try:
        delivery_queue().send(delivery_id, 0)
    except Exception:
        with suppress(Exception):  # a retry of the record then need not wait for the lease
            deliveries().release_enqueue_lease(delivery_id, token)
        raise
    deliveries().mark_enqueued(delivery_id, token, iso(clock()))


# ---------------------------------------------------------------- sender
@dataclass(frozen=True)
class Received:
    """A WebhookQueue message as the sender receives it."""

    message_id: str
    receipt_handle: str
    delivery_id: str
    round: int
    receive_count: int  # = the attempt number within the round

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Received:
        body = json.loads(record["body"])
        return cls(
            message_id=record["messageId"],
            receipt_handle=record["receiptHandle"],
            delivery_id=str(body["delivery_id"]),
            round=int(body.get("round", 0)),
            receive_count=int(record["attributes"]["ApproximateReceiveCount"]),
        )


_SECRET_CACHE: dict[tuple[str, str], str] = {}  # (account, ciphertext) -> secret, per environment


def signing_secrets(account_id: str, mode: str) -> list[str]:
    """The account's secrets valid now for `mode`, newest first: one v1= each."""
    store = secrets_store()
    versions, _ = store.read(account_id, mode)
    secrets = []
    for version in valid_versions(versions, datetime.now(UTC)):
        key = (account_id, version.ciphertext)
        if key not in _SECRET_CACHE:
            if len(_SECRET_CACHE) > 1000:
                _SECRET_CACHE.clear()
            _SECRET_CACHE[key] = store.decrypt(version.ciphertext, account_id)
        secrets.append(_SECRET_CACHE[key])
    return secrets


def _post(delivery: Mapping[str, Any], clock: Callable[[], float]) -> transport.PostResult:
    secrets = signing_secrets(delivery["account_id"], delivery["mode"])
    if not secrets:  # nothing to sign with: retried, an operator can roll a secret meanwhile
        return transport.PostResult(None, 0, "no_signing_secret")
    body = delivery["payload"].encode()
    headers = rules.delivery_headers(sign(body, secrets, int(clock())), delivery["event_id"], delivery["delivery_id"])
    return transport.post(delivery["url"], body, headers, allow_loopback=allow_loopback())


_FINAL_STATUS = {Outcome.DELIVERED: DeliveryStatus.DELIVERED, Outcome.STOPPED: DeliveryStatus.STOPPED}


def attempt(message: Received, clock: Callable[[], float] = time.time) -> bool:
    """One delivery attempt for `message`. True: the message is done (delete it); False: it comes
    back for the next attempt (its visibility is set to the backoff)."""
    store = deliveries()
    now = clock()
    token = uuid.uuid4().hex
    delivery = store.begin_attempt(
        message.delivery_id, message.round, message.message_id, token, int(now) + ATTEMPT_LEASE_SECONDS, int(now)
    )
    if delivery is None:  # not pending in this round, or another message owns it or is attempting it
        logger.info("message not attempted", delivery_id=message.delivery_id, round=message.round)
        return True
    result = _post(delivery, clock)
    outcome = rules.outcome_of(result.status_code, result.error)
    record = {
        "at": iso(now),
        "status_code": result.status_code,
        "latency_ms": result.latency_ms,
        "error": result.error,
        "round": message.round,
    }
    delay: int | None = None
    next_attempt_at: str | None = None
    if outcome is Outcome.RETRY:
        status = DeliveryStatus.PENDING
        delay = rules.retry_delay(message.receive_count, retry_base())
        if delay is not None:
            next_attempt_at = iso(clock() + delay)
    else:
        status = _FINAL_STATUS.get(outcome, DeliveryStatus.FAILED)
    if store.finish_attempt(delivery, token, record, status, iso(clock()), next_attempt_at) is None:
        raise RuntimeError(f"delivery {message.delivery_id} lost its attempt lease")
    logger.info(
        "webhook attempt",
        delivery_id=message.delivery_id,
        attempt=message.receive_count,
        status_code=result.status_code,
        error=result.error,
        outcome=outcome.value,
    )
    if outcome is not Outcome.RETRY:
        return True
    # After the last attempt: visible at once, so that the next receive moves it to the DLQ.
    visibility = 0 if delay is None else min(delay, rules.MAX_DELAY_SECONDS - VISIBILITY_MARGIN_SECONDS)
    try:
        delivery_queue().retry_after(message.receipt_handle, visibility)
    except Exception:  # it comes back after the queue's visibility timeout instead
        logger.exception("could not schedule the next attempt", delivery_id=message.delivery_id)
    return False


def _attempt_record(record: Mapping[str, Any]) -> bool:
    try:
        message = Received.from_record(record)
    except (ValueError, KeyError, TypeError):
        logger.error("unreadable webhook message dropped", message_id=record.get("messageId"))
        return True
    try:
        return attempt(message)
    except Exception:  # back after the visibility timeout; the lease expires before that
        logger.exception("webhook attempt failed", delivery_id=message.delivery_id)
        return False


def send_batch(records: list[Mapping[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """Attempt every message of an SQS batch in parallel (one slow receiver does not hold up the
    others); the partial batch response names those to receive again."""
    deliveries(), delivery_queue(), secrets_store(), client("kms"), client("sqs")  # made before threads share them
    with ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL_POSTS, len(records)))) as pool:
        done = list(pool.map(_attempt_record, records))
    return {
        "batchItemFailures": [{"itemIdentifier": r["messageId"]} for r, ok in zip(records, done, strict=True) if not ok]
    }


# ---------------------------------------------------------------- dead letters
def dead_letter(body: str, clock: Callable[[], float] = time.time) -> None:
    """A message reached WebhookDeadLetterQueue: its round ran out of attempts (or its attempts
    kept crashing). The delivery becomes failed, unless it left that round meanwhile."""
    try:
        parsed = json.loads(body)
        delivery_id, round_ = str(parsed["delivery_id"]), int(parsed.get("round", 0))
    except (ValueError, KeyError, TypeError):
        logger.error("unreadable dead letter dropped")
        return
    delivery = deliveries().get(delivery_id)
    if delivery is None:
        logger.error("dead letter of an unknown delivery", delivery_id=delivery_id)
        return
    if deliveries().dead_letter(delivery_id, delivery["account_id"], round_, iso(clock())) is None:
        logger.info("dead letter of a delivery no longer pending in its round", delivery_id=delivery_id)
        return
    logger.warning(
        "webhook delivery failed: out of attempts",
        delivery_id=delivery_id,
        account_id=delivery["account_id"],
        event_id=delivery["event_id"],
        round=round_,
    )
