"""The dashboard's API keys and webhooks pages (docs/dashboard.md, "API keys and webhooks"): the
account's keys in the session's mode, created, rolled and revoked; its endpoint for its own events,
its webhook signing secret, its webhook deliveries and their replay. Each checks the user's role
(keys:write, webhooks:write), then calls the use case the API's own route calls, for the user's
account and the session's mode only: another account's or the other mode's object is 404."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from mzpay.dashboard.home import acting
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard.sessions import Session
from mzpay.domain.webhooks.rules import DeliveryStatus
from mzpay.lazy import deferred_imports
from mzpay.steps import audit

if TYPE_CHECKING:
    from mzpay.answers.access import RolledApiKey, WebhookEndpoint
    from mzpay.answers.accounts import ListedApiKey, NewApiKey, RolledWebhookSecret
    from mzpay.answers.events import Event as EventAnswer
    from mzpay.answers.webhook_deliveries import WebhookDelivery, WebhookDeliverySummary

with deferred_imports():  # loaded by the first of these pages
    from mzpay.cases import access, account_endpoints, events
    from mzpay.operators import webhook_deliveries

KEYS, WEBHOOKS = "keys:write", "webhooks:write"
DELIVERIES_READ = 100  # deliveries read per list page (both modes: the page shows the session's)


def _missing(what: str) -> ServiceError:
    return ServiceError(404, "not_found", f"No such {what}.")


def _observed(session: Session, permission: str, target_type: str, target_id: str) -> None:
    """Name the account and the target on the audit trail, then check the role (a refusal is
    recorded with them)."""
    audit.observe(target_type, target_id, account_id=session.account_id)
    acting(session, permission)


# ---------------------------------------------------------------- API keys
def keys(session: Session) -> list[ListedApiKey]:
    """The account's keys of the session's mode, newest first (hint, never a secret)."""
    acting(session, KEYS)
    return [key for key in access.account_api_keys(session.account_id).data if key.mode == session.mode]


def key(session: Session, key_id: str) -> ListedApiKey:
    """One key of the account in the session's mode; 404 for another account's or mode's."""
    found = [listed for listed in keys(session) if listed.id == key_id]
    if not found:
        raise _missing("API key")
    return found[0]


def create_key(
    session: Session, scopes: list[str], expires_at: datetime | None, ip_allowlist: list[str], customers: list[str]
) -> NewApiKey:
    """A new key of the session's mode (POST /v1/accounts/{id}/api-keys): its secret is in this
    answer only."""
    _observed(session, KEYS, "api_key", "new")
    created = access.create_api_key(session.account_id, session.mode, scopes, expires_at, ip_allowlist, customers)
    after = {name: value for name, value in created.wire().items() if name != "key"}  # never the secret
    audit.observe("api_key", created.id, account_id=session.account_id, after=after)
    return created


def roll_key(session: Session, key_id: str, overlap_seconds: int) -> RolledApiKey:
    """The key rolled as POST /v1/api-keys/{id}/roll rolls it: the new secret answered once, the
    old key working for `overlap_seconds` (audited by the use case, without the secret)."""
    _observed(session, KEYS, "api_key", key_id)
    key(session, key_id)
    return access.roll_account_api_key(session.account_id, key_id, overlap_seconds)


def revoke_key(session: Session, key_id: str) -> ListedApiKey:
    """The key revoked: refused from the next API request on (api_key.revoked recorded)."""
    _observed(session, KEYS, "api_key", key_id)
    before = key(session, key_id)
    revoked = access.revoke_api_key(key_id, session.account_id, reason="merchant_user")
    audit.observe("api_key", key_id, account_id=session.account_id, before=before.wire(), after=revoked.wire())
    return before.model_copy(update={"status": revoked.status})


# ---------------------------------------------------------------- webhooks
def endpoint(session: Session) -> WebhookEndpoint:
    """The account's endpoint for its own events in the session's mode (GET /v1/webhook-endpoint)."""
    return account_endpoints.read(acting(session, WEBHOOKS))


def set_endpoint(session: Session, url: str) -> WebhookEndpoint:
    """The endpoint set (PUT /v1/webhook-endpoint: the callback URL's rule)."""
    _observed(session, WEBHOOKS, "webhook_endpoint", session.mode)
    before = account_endpoints.read(acting(session, WEBHOOKS))
    after = account_endpoints.set_url(acting(session, WEBHOOKS), url)
    audit.observe(
        "webhook_endpoint", session.mode, account_id=session.account_id, before=before.wire(), after=after.wire()
    )
    return after


def remove_endpoint(session: Session) -> WebhookEndpoint:
    """No endpoint any more (DELETE /v1/webhook-endpoint)."""
    _observed(session, WEBHOOKS, "webhook_endpoint", session.mode)
    before = account_endpoints.read(acting(session, WEBHOOKS))
    after = account_endpoints.remove(acting(session, WEBHOOKS))
    audit.observe(
        "webhook_endpoint", session.mode, account_id=session.account_id, before=before.wire(), after=after.wire()
    )
    return after


def roll_signing_secret(session: Session) -> RolledWebhookSecret:
    """A new webhook signing secret of the session's mode, shown once; the previous one stays
    valid for its overlap (the management API's roll)."""
    _observed(session, WEBHOOKS, "webhook_secret", session.mode)
    rolled = access.roll_webhook_secret(session.account_id, session.mode)
    after = {name: value for name, value in rolled.wire().items() if name != "secret"}  # never the secret
    audit.observe("webhook_secret", rolled.secret_id, account_id=session.account_id, after=after)
    return rolled


def deliveries(session: Session, status: str | None) -> list[WebhookDeliverySummary]:
    """The account's latest deliveries of the session's mode, newest first, optionally of one
    status (pending, delivered, stopped, failed)."""
    acting(session, WEBHOOKS)
    wanted = _status(status)
    listed = webhook_deliveries.account_deliveries(session.account_id, wanted, DELIVERIES_READ, None)
    return [item for item in listed.data if item.mode == session.mode]


def _status(status: str | None) -> DeliveryStatus | None:
    if not status:
        return None
    try:
        return DeliveryStatus(status)
    except ValueError:
        raise ServiceError(400, "invalid_request", "status: pending, delivered, stopped or failed.") from None


def delivery(session: Session, delivery_id: str) -> tuple[WebhookDelivery, EventAnswer | None]:
    """A delivery of the account in the session's mode with its attempts, and the event it
    carries (the payload; None once the event is gone); 404 for another account's or mode's."""
    principal = acting(session, WEBHOOKS)
    found = _delivery(session, delivery_id)
    try:
        payload: EventAnswer | None = events.read_event(principal, found.event_id)
    except ServiceError:
        payload = None
    return found, payload


def _delivery(session: Session, delivery_id: str) -> WebhookDelivery:
    try:
        found = webhook_deliveries.delivery(delivery_id)
    except ServiceError:
        raise _missing("webhook delivery") from None
    if found.account_id != session.account_id or found.mode != session.mode:
        raise _missing("webhook delivery")
    return found


def replay(session: Session, delivery_id: str) -> WebhookDelivery:
    """A failed delivery queued again in a new round (the replay operators make; audited by it)."""
    _observed(session, WEBHOOKS, "webhook_delivery", delivery_id)
    _delivery(session, delivery_id)
    return webhook_deliveries.replay(delivery_id)
