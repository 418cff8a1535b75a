"""The sender and the dead-letter handler of the outbox (docs/webhooks.md): a WebhookQueue
message becomes one signed POST of its delivery, with the next attempt scheduled by the retry
table; a message out of attempts (WebhookDeadLetterQueue) makes its delivery failed. The
dispatcher that feeds the queue, and the bounds and leases both share, are mzpay.webhooks.outbox.

Fairness ("Fairness: the hot lane and the slow lane"): WebhookQueue is the hot lane, with a short
wait per attempt; a slow attempt marks its endpoint slow and moves its delivery to
WebhookSlowQueue, and a marked endpoint's deliveries go there before any attempt, so one
account's slow receiver cannot hold up the others'."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.connectors import transport
from mzpay.domain.common.bounds import allow_loopback
from mzpay.domain.webhooks import rules
from mzpay.domain.webhooks.deliveries import Attempt, Delivery
from mzpay.domain.webhooks.rules import DeliveryStatus, Lane, Outcome
from mzpay.domain.webhooks.secrets import valid_versions
from mzpay.observability import correlate, count, logger
from mzpay.store.aws import client
from mzpay.store.webhook_deliveries import iso
from mzpay.webhooks import outbox
from mzpay.webhooks.signing import sign


@dataclass(frozen=True)
class Received:
    """A WebhookQueue message as the sender receives it."""

    message_id: str
    receipt_handle: str
    delivery_id: str
    round: int
    receive_count: int
    lane: Lane = Lane.HOT
    attempts_before: int = 0  # made in the hot lane before the message moved to the slow lane
    owner: str = ""  # the message that owns the round: this one, or the hot one it was moved from

    @property
    def attempt_number(self) -> int:
        """The attempt this receive is, within the round (one receive is one attempt)."""
        return self.attempts_before + self.receive_count

    @property
    def owned_by(self) -> str:
        return self.owner or self.message_id

    @classmethod
    def from_record(cls, record: Mapping[str, Any], lane: Lane = Lane.HOT) -> Received:
        body = json.loads(record["body"])
        return cls(
            message_id=record["messageId"],
            receipt_handle=record["receiptHandle"],
            delivery_id=str(body["delivery_id"]),
            round=int(body.get("round", 0)),
            receive_count=int(record["attributes"]["ApproximateReceiveCount"]),
            lane=lane,
            attempts_before=int(body.get("attempts_before", 0)),
            owner=str(body.get("owner") or ""),
        )


_SECRET_CACHE: dict[tuple[str, str], str] = {}  # (account, ciphertext) -> secret, per environment
deps.on_reset(_SECRET_CACHE.clear)


def signing_secrets(account_id: str, mode: str) -> list[str]:
    """The account's secrets valid now for `mode`, newest first: one v1= each."""
    store = deps.webhook_secrets()
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


def _post(delivery: Delivery, clock: Callable[[], float], lane: Lane = Lane.SLOW) -> transport.PostResult:
    secrets = signing_secrets(delivery.account_id, delivery.mode)
    if not secrets:  # nothing to sign with: retried, an operator can roll a secret meanwhile
        return transport.PostResult(None, 0, "no_signing_secret")
    body = delivery.payload.encode()
    headers = rules.delivery_headers(sign(body, secrets, int(clock())), delivery.event_id, delivery.delivery_id)
    return transport.post(
        delivery.url, body, headers, timeout=rules.attempt_timeout(lane), allow_loopback=allow_loopback()
    )


_FINAL_STATUS = {Outcome.DELIVERED: DeliveryStatus.DELIVERED, Outcome.STOPPED: DeliveryStatus.STOPPED}


def attempt(message: Received, clock: Callable[[], float] = time.time) -> bool:
    """One delivery attempt for `message`. True: the message is done (delete it); False: it comes
    back for the next attempt (its visibility is set to the backoff)."""
    store = deps.deliveries()
    queue = deps.delivery_queue()
    number = message.attempt_number
    if number > rules.MAX_ATTEMPTS:  # the slow lane's own redrive: the round is out of attempts
        queue.to_dead_letters(message.delivery_id, message.round)
        return True
    now = clock()
    token = uuid.uuid4().hex

    def lease(owner: str) -> Delivery | None:
        until = int(now) + outbox.ATTEMPT_LEASE_SECONDS
        return store.begin_attempt(message.delivery_id, message.round, owner, token, until, int(now))

    delivery = lease(message.owned_by)
    if delivery is None:  # not pending in this round, or another message owns it or is attempting it
        logger.info("message not attempted", delivery_id=message.delivery_id, round=message.round)
        return True
    endpoint = rules.endpoint_key(delivery.account_id, delivery.url)
    if message.lane is Lane.HOT and queue.has_slow_lane and _marked_slow(delivery.mode, endpoint, now):
        successor = uuid.uuid4().hex  # the slow-lane message owns the round from now on
        if not store.hand_over(message.delivery_id, token, successor):
            return True
        if _to_slow_lane(message, number - 1, 0, "slow_endpoint", successor):
            return True
        delivery = lease(successor)  # the slow lane cannot be reached: attempt it here after all
        if delivery is None:
            return True
    # In the hot lane the endpoint is marked as soon as the attempt turns slow, not when it ends:
    # the endpoint's deliveries arriving meanwhile go to the slow lane already.
    early = threading.Timer(rules.SLOW_ATTEMPT_SECONDS, _remember, (delivery.mode, endpoint, True, message.lane, now))
    early.daemon = True
    if message.lane is Lane.HOT and queue.has_slow_lane:
        early.start()
    try:
        result = _post(delivery, clock, message.lane)
    finally:
        early.cancel()
    slow = rules.is_slow_attempt(result.latency_ms)
    if queue.has_slow_lane:
        _remember(delivery.mode, endpoint, slow, message.lane, now)
    outcome = rules.outcome_of(result.status_code, result.error)
    delay: int | None = None
    next_attempt_at: str | None = None
    if outcome is Outcome.RETRY:
        status = DeliveryStatus.PENDING
        scheduled = rules.retry_delay(number, outbox.retry_base())
        if scheduled is not None:  # the schedule's wait, scaled on the local stack only
            delay = max(0, round(scheduled * outbox.retry_time_scale(delivery.url)))
            next_attempt_at = iso(clock() + delay)
    else:
        status = _FINAL_STATUS.get(outcome, DeliveryStatus.FAILED)
    record = Attempt(
        at=iso(now),
        status_code=result.status_code,
        latency_ms=result.latency_ms,
        error=result.error[: outbox.MAX_ERROR_CHARS] if result.error else result.error,
        round=message.round,
        next_attempt_at=next_attempt_at,
    )
    kept = outbox.MAX_ATTEMPTS_KEPT
    if store.finish_attempt(delivery, token, record, status, iso(clock()), next_attempt_at, kept) is None:
        raise RuntimeError(f"delivery {message.delivery_id} lost its attempt lease")
    logger.info(
        "webhook attempt",
        delivery_id=message.delivery_id,
        attempt=number,
        lane=message.lane.value,
        status_code=result.status_code,
        error=result.error,
        outcome=outcome.value,
    )
    count("WebhookAttempts", outcome=outcome.value)
    if outcome is not Outcome.RETRY:
        count("WebhookDeliveries", outcome=status.value)
        return True
    moves = message.lane is Lane.HOT and slow and queue.has_slow_lane
    moves = moves and delay is not None and delay <= rules.MAX_QUEUE_DELAY_SECONDS
    if moves and _to_slow_lane(message, number, delay or 0, "slow_attempt"):  # its next attempt waits there
        return True
    # After the last attempt: visible at once, so that the next receive moves it to the DLQ.
    visibility = 0 if delay is None else min(delay, rules.MAX_DELAY_SECONDS - outbox.VISIBILITY_MARGIN_SECONDS)
    try:
        queue.retry_after(message.receipt_handle, visibility, message.lane)
    except Exception:  # it comes back after the queue's visibility timeout instead
        logger.exception("could not schedule the next attempt", delivery_id=message.delivery_id)
    return False


def _marked_slow(mode: str, endpoint: str, now: float) -> bool:
    try:
        until = deps.deliveries().slow_until(mode, endpoint)
    except Exception:  # unknown: the hot lane, whose short wait bounds the cost anyway
        logger.exception("could not read the endpoint's lane", endpoint=endpoint)
        return False
    return until is not None and until > now


def _remember(mode: str, endpoint: str, slow: bool, lane: Lane, now: float) -> None:
    """A slow attempt marks its endpoint slow (again); a quick one in the slow lane clears it."""
    try:
        if slow:
            deps.deliveries().mark_slow(mode, endpoint, int(now) + rules.SLOW_ENDPOINT_HOLD_SECONDS)
        elif lane is Lane.SLOW:
            deps.deliveries().clear_slow(mode, endpoint)
    except Exception:  # only the lane of its next deliveries depends on it
        logger.exception("could not record the endpoint's lane", endpoint=endpoint)


def _to_slow_lane(message: Received, attempts_before: int, delay: int, reason: str, owner: str = "") -> bool:
    """Move the message's round to the slow lane (owned by `owner`, by default the round's
    owner so far); False when it could not be sent there."""
    owner = owner or message.owned_by
    try:
        deps.delivery_queue().to_slow_lane(message.delivery_id, message.round, owner, attempts_before, delay)
    except Exception:
        logger.exception("could not move a delivery to the slow lane", delivery_id=message.delivery_id)
        return False
    logger.info("webhook delivery moved to the slow lane", delivery_id=message.delivery_id, reason=reason, delay=delay)
    return True


def _attempt_record(record: Mapping[str, Any]) -> bool:
    try:
        message = Received.from_record(record, deps.delivery_queue().lane_of(record.get("eventSourceARN")))
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
    (
        deps.deliveries(),
        deps.delivery_queue(),
        deps.webhook_secrets(),
        client("kms"),
        client("sqs"),
    )  # made before threads share them
    with ThreadPoolExecutor(max_workers=max(1, min(outbox.MAX_PARALLEL_POSTS, len(records)))) as pool:
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
    correlate(delivery_id)
    delivery = deps.deliveries().get(delivery_id)
    if delivery is None:
        logger.error("dead letter of an unknown delivery", delivery_id=delivery_id)
        return
    if deps.deliveries().dead_letter(delivery_id, delivery.account_id, round_, iso(clock())) is None:
        logger.info("dead letter of a delivery no longer pending in its round", delivery_id=delivery_id)
        return
    count("WebhookDeliveries", outcome=DeliveryStatus.FAILED.value)
    logger.warning(
        "webhook delivery failed: out of attempts",
        delivery_id=delivery_id,
        account_id=delivery.account_id,
        event_id=delivery.event_id,
        round=round_,
    )
