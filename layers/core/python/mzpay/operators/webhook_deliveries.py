"""Operators and webhook deliveries (management API): read one with its attempts, list an
account's, replay a failed one. See docs/webhooks.md."""

from __future__ import annotations

import time
from typing import Any

from mzpay import deps
from mzpay.answers import webhook_deliveries as answers
from mzpay.domain.common import page_tokens
from mzpay.domain.common.errors import FieldError, ServiceError, found
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.webhooks.deliveries import Delivery
from mzpay.domain.webhooks.rules import REPLAYABLE, RETENTION_SECONDS, DeliveryStatus
from mzpay.steps import audit
from mzpay.steps.accounts import home_account
from mzpay.store.webhook_deliveries import iso

_FIELDS = (
    "event_id",
    "event_type",
    "account_id",
    "mode",
    "resource",
    "resource_id",
    "url",
    "status",
    "round",
    "attempt_count",
    "created_at",
    "updated_at",
    "next_attempt_at",
    "delivered_at",
    "stopped_at",
    "failed_at",
    "replayed_at",
    "last_error",
)
_ATTEMPT_FIELDS = ("at", "status_code", "latency_ms", "error", "round", "next_attempt_at")


def _public(delivery: Delivery) -> dict[str, Any]:
    public: dict[str, Any] = {"object": "webhook_delivery", "id": delivery.delivery_id}
    return public | delivery.model_dump(mode="json", include=set(_FIELDS))


def summary(delivery: Delivery) -> answers.WebhookDeliverySummary:
    """What a list shows of a delivery: without its attempts."""
    return answers.WebhookDeliverySummary.of(_public(delivery))


def view(delivery: Delivery) -> answers.WebhookDelivery:
    """What operators see of a delivery, with its attempts (never its lease bookkeeping)."""
    attempts = [a.model_dump(mode="json", include=set(_ATTEMPT_FIELDS)) for a in delivery.attempts]
    return answers.WebhookDelivery.of(_public(delivery) | {"attempts": attempts})


def _found(delivery_id: str) -> Delivery:
    return found(deps.deliveries().get(delivery_id) if is_ulid(delivery_id) else None, "webhook delivery")


def delivery(delivery_id: str) -> answers.WebhookDelivery:
    """One delivery with every attempt, oldest first."""
    return view(_found(delivery_id))


def _start_key(token: str | None, index_key: str, expected: str) -> dict[str, str] | None:
    if token is None:
        return None
    key = page_tokens.decode(token, lambda key: key[index_key] == expected)
    if key is None:
        error = FieldError("page_token", "invalid_value", "page_token is not a token this list gave")
        raise ServiceError(400, "invalid_request", "The request has invalid fields: page_token.", errors=[error])
    return key


def account_deliveries(
    account_id: str, status: DeliveryStatus | None, page_size: int, page_token: str | None
) -> answers.WebhookDeliveryList:
    """An account's deliveries, newest first, optionally of one status; cursor pagination."""
    account = home_account(account_id)  # 404 unknown, 421 homed elsewhere
    index_key = "gsi2pk" if status else "gsi1pk"
    expected = f"ACC#{account.account_id}#{status.value}" if status else f"ACC#{account.account_id}"
    start = _start_key(page_token, index_key, expected)
    items, after = deps.deliveries().page(account.account_id, status, page_size, start)
    return answers.WebhookDeliveryList(
        object="list",
        data=[summary(item) for item in items],
        has_more=after is not None,
        next_page_token=page_tokens.encode(after) if after else None,
    )


def replay(delivery_id: str) -> answers.WebhookDelivery:
    """Queue a failed delivery again, in a new round of MAX_ATTEMPTS attempts. Only one of
    concurrent replays wins; the others, and a replay of a delivery that is not failed, are
    409 invalid_state."""
    item = _found(delivery_id)
    if item.status not in REPLAYABLE:
        raise ServiceError(409, "invalid_state", f"Only a failed delivery can be replayed; this one is {item.status}.")
    now = time.time()
    replayed = deps.deliveries().replay(item, iso(now), int(now) + RETENTION_SECONDS)
    try:
        deps.delivery_queue().send(delivery_id, replayed.round)
    except Exception:
        deps.deliveries().undo_replay(replayed, item.failed_at or iso(now), iso(time.time()))
        raise
    answer = view(replayed)
    audit.observe(
        "webhook_delivery", delivery_id, account_id=item.account_id, before=view(item).wire(), after=answer.wire()
    )
    return answer
