"""A webhook delivery as the deliveries store keeps it (the rules of delivering are in
domain.webhooks.rules; these models are apart so that what imports those rules, e.g. the URL checks
of every request, does not build them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from mzpay.domain.webhooks.rules import DeliveryStatus


class Attempt(BaseModel):
    """One attempt of a delivery, as kept on it (the most recent MAX_ATTEMPTS_KEPT)."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    at: str
    status_code: int | None = None
    latency_ms: int | None = None
    error: str | None = None  # why no HTTP answer came (status_code null)
    round: int = 0
    next_attempt_at: str | None = None  # when the next attempt is due (null: none)


class Delivery(BaseModel):
    """One event's delivery to one URL: the signed payload, its status and round (an operator's
    replay starts a new round), its attempts, and the leases of whoever enqueues or attempts it."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    delivery_id: str
    event_id: str
    event_type: str
    account_id: str
    mode: str
    resource: str
    resource_id: str
    url: str
    payload: str
    status: DeliveryStatus
    round: int = 0
    attempts: tuple[Attempt, ...] = ()
    attempt_count: int = 0
    created_at: str
    updated_at: str
    next_attempt_at: str | None = None
    delivered_at: str | None = None
    stopped_at: str | None = None
    failed_at: str | None = None
    replayed_at: str | None = None
    last_error: str | None = None
    ttl: int | None = None
    # bookkeeping: the enqueueing run's lease, and the attempting message's lease
    enqueue_lease: str | None = None
    enqueue_lease_until: int | None = None
    enqueued_at: str | None = None
    owner: str | None = None
    lease_token: str | None = None
    lease_until: int | None = None

    def item(self) -> dict[str, Any]:
        """The attributes as stored (absent, not null, when unset)."""
        return self.model_dump(mode="json", exclude_none=True)
