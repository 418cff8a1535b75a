"""The dashboard's payments and refunds pages (docs/dashboard.md, "Payments and refunds"): the
lists GET /v1/payments and GET /v1/refunds answer, a payment with its timeline (its events and
the webhook deliveries of them), its refunds and its receipt, a refund made by the gateway's own
use case (support: up to the account's limit), and that limit. The user acts within its role."""

from __future__ import annotations

import dataclasses
import re
import secrets
import uuid
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from mzpay import deps
from mzpay.dashboard.home import acting
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import refund_limits, roles
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports
from mzpay.steps import audit

if TYPE_CHECKING:
    from mzpay.answers.receipts import Receipt
    from mzpay.answers.refunds import RefundResult

with deferred_imports():  # loaded by the first page that needs them
    from mzpay.cases import charges, events, listings, refunds
    from mzpay.domain.payments.charges import Money

# The list filters the API offers (docs/lists.md), as the list page's GET form sends them; the
# days (created_from, created_to: a Maputo date) become the API's created_gte and created_lt.
PAYMENT_FILTERS = ("status", "payment_id", "method", "network", "currency", "amount_gte", "amount_lte")
REFUND_FILTERS = ("status", "refund_id", "payment", "currency", "amount_gte", "amount_lte")
DAYS = ("created_from", "created_to")
MAX_FILTER = 100  # characters of a filter's value (the page token: MAX_TOKEN)
MAX_TOKEN = 2048
MAX_REASON = 500  # the API's own maximum of a refund's reason
PAGE_SIZE = "25"
TIMELINE_EVENTS = "100"  # the payment's events shown, oldest first
DELIVERIES_SEEN = 100  # the account's latest webhook deliveries searched for the payment's
_FORM_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_REFUND_IDS = uuid.UUID("5c0b7d1e-8a4f-4a55-9f3e-3d2b6f1d0a38")  # refund_id = uuid5(this, account#mode#token)
MAPUTO_OFFSET = timedelta(hours=2)  # Central Africa Time all year


def _too_long(name: str, most: int) -> ServiceError:
    return ServiceError(400, "field_too_long", f"{name}: at most {most} characters.", field=name, most=most)


def _day(name: str, text: str) -> datetime:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise ServiceError(400, "invalid_request", f"{name}: a date such as 2026-11-29.", field=name) from None
    return datetime(day.year, day.month, day.day) - MAPUTO_OFFSET  # Maputo's midnight in UTC


def list_query(asked: Mapping[str, str], names: tuple[str, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """The API's query from the page's GET form (blank fields left out) and the form's values."""
    shown = {name: asked[name].strip() for name in (*names, *DAYS) if asked.get(name, "").strip()}
    for name, value in shown.items():
        if len(value) > MAX_FILTER:
            raise _too_long(name, MAX_FILTER)
    token = asked.get("page_token", "")
    if len(token) > MAX_TOKEN:
        raise _too_long("page_token", MAX_TOKEN)
    query = {name: shown[name] for name in names if name in shown} | {"page_size": PAGE_SIZE}
    if asked.get("page_size", "").strip():  # a link may ask for another page size (1 to 100, the API's)
        query["page_size"] = shown["page_size"] = asked["page_size"].strip()[:MAX_FILTER]
    if token:
        query["page_token"] = token
    if "created_from" in shown:
        query["created_gte"] = _day("created_from", shown["created_from"]).strftime("%Y-%m-%dT%H:%M:%SZ")
    if "created_to" in shown:
        end = _day("created_to", shown["created_to"]) + timedelta(days=1)
        query["created_lt"] = end.strftime("%Y-%m-%dT%H:%M:%SZ")
    return query, shown


def payments(session: Session, asked: Mapping[str, str]) -> dict[str, Any]:
    """A page of the account's payments in the session's mode, as GET /v1/payments answers it."""
    principal = acting(session, "payments:read")
    query, shown = list_query(asked, PAYMENT_FILTERS)
    return {"listed": listings.payments(principal, query).wire(), "filters": shown}


def refund_list(session: Session, asked: Mapping[str, str]) -> dict[str, Any]:
    """A page of the account's refunds in the session's mode, as GET /v1/refunds answers it."""
    principal = acting(session, "payments:read")
    query, shown = list_query(asked, REFUND_FILTERS)
    return {"listed": listings.refunds(principal, query).wire(), "filters": shown, **limit_form(session)}


def _refunder(session: Session) -> str | None:
    """The permission the user refunds with: all of them, up to the limit, or none."""
    for permission in ("refunds:write", "refunds:write:limited"):
        if roles.allows(session.role, permission):
            return permission
    return None


def support_limit(account_id: str) -> str:
    return deps.dashboard_settings().refund_limit(account_id) or refund_limits.DEFAULT


def payment_page(session: Session, payment_id: str) -> dict[str, Any]:
    """A payment (404 for another account's or the other mode's), its timeline (events oldest
    first; the deliveries of them among the account's latest), its refunds, the refund form."""
    principal = acting(session, "payments:read")
    payment = charges.read_payment(principal, payment_id).wire()
    paid_id = payment["provider_payment_id"]
    timeline = events.list_events(principal, TIMELINE_EVENTS, None, None, paid_id).wire()["data"][::-1]
    event_ids = {event["id"] for event in timeline}
    latest, _ = deps.deliveries().page(session.account_id, None, DELIVERIES_SEEN, None)  # newest first
    deliveries = [
        {"id": item.delivery_id, "status": str(item.status), "attempt_count": item.attempt_count}
        | {"event_type": item.event_type, "created_at": item.created_at}
        for item in reversed(latest)
        if item.mode == session.mode and (item.event_id in event_ids or item.resource_id == paid_id)
    ]
    refunded = listings.payment_refunds(principal, paid_id, {"page_size": "100"}).wire()["data"]
    refunder = _refunder(session)
    return {
        "payment": payment,
        "timeline": timeline,
        "deliveries": deliveries,
        "refunds": refunded,
        "may_refund": refunder is not None,
        "limit": support_limit(session.account_id) if refunder == "refunds:write:limited" else None,
        "limit_currency": refund_limits.CURRENCY,
        "form_token": secrets.token_urlsafe(24),
        "max_reason": MAX_REASON,
    }


def receipt(session: Session, payment_id: str) -> Receipt:
    """The payment's receipt, as GET /v1/payments/{id}/receipt answers it."""
    return charges.read_receipt(acting(session, "payments:read"), payment_id)


def refund(session: Session, payment_id: str, fields: Mapping[str, str], source_ip: str) -> RefundResult:
    """Refund `amount` (blank: all that is left) of a payment with the gateway's use case; the
    form's token names the refund (a second post of the same form is the same refund). Support:
    up to the account's limit, else 403 `over_refund_limit` and nothing refunded."""
    audit.identify("merchant_user", session.email, source_ip)
    audit.observe("payment", payment_id[:64], account_id=session.account_id)  # refused or not
    refunder = _refunder(session)
    if refunder is None:
        roles.require(session.role, "refunds:write")
    assert refunder is not None
    amount_text, reason = fields.get("amount", "").strip(), fields.get("reason", "").strip()
    token = fields.get("form_token", "")
    if len(reason) > MAX_REASON:
        raise _too_long("reason", MAX_REASON)
    if not _FORM_TOKEN.fullmatch(token):
        raise ServiceError(400, "invalid_request", "This form is no longer valid: nothing was changed.")
    reader = acting(session, "payments:read")
    payment = charges.read_payment(reader, payment_id)  # 404 for another account's, before anything
    currency = payment.money.currency
    amount = refund_limits.amount_typed(amount_text, "amount", currency) if amount_text else None
    if refunder == "refunds:write:limited":
        left = Decimal(payment.captured_amount) - Decimal(payment.refunded_amount)
        asked = amount if amount is not None else left
        refund_limits.check(asked, currency, support_limit(session.account_id))
    principal = dataclasses.replace(acting(session, refunder), scopes=frozenset({"refunds:write"}))
    refund_id = str(uuid.uuid5(_REFUND_IDS, f"{session.account_id}#{session.mode}#{token}"))
    money = Money(amount=str(amount), currency=currency) if amount is not None else None
    made = refunds.create_refund(principal, payment.provider_payment_id, refund_id, money, reason or None)
    audit.observe("refund", made.provider_refund_id, account_id=session.account_id, after=made.wire())
    return made


def refund_page(session: Session, refund_id: str) -> dict[str, Any]:
    """A refund (404 for another account's or the other mode's), as GET /v1/refunds/{id} answers."""
    return {"refund": refunds.read_refund(acting(session, "payments:read"), refund_id).wire()}


def limit_form(session: Session) -> dict[str, Any]:
    """The support role's refund limit, and whether the user may change it."""
    return {
        "limit": support_limit(session.account_id),
        "limit_currency": refund_limits.CURRENCY,
        "may_set_limit": roles.allows(session.role, "settings:write"),
    }


def refunds_page(session: Session) -> dict[str, Any]:
    """The refunds page re-rendered after a refused limit change: its first page, unfiltered."""
    return refund_list(session, {})


def set_limit(session: Session, fields: Mapping[str, str], source_ip: str) -> str:
    """An owner or administrator sets the support role's refund limit (audited, before and after)."""
    audit.identify("merchant_user", session.email, source_ip)
    before = support_limit(session.account_id)
    shown = {"support_refund_limit": {"amount": before, "currency": refund_limits.CURRENCY}}
    audit.observe("dashboard_settings", session.account_id, account_id=session.account_id, before=shown)
    roles.require(session.role, "settings:write")
    limit = refund_limits.new_limit(fields.get("limit", ""))
    deps.dashboard_settings().set_refund_limit(session.account_id, limit, session.email, now_iso())
    after = {"support_refund_limit": {"amount": limit, "currency": refund_limits.CURRENCY}}
    audit.observe("dashboard_settings", session.account_id, account_id=session.account_id, after=after)
    return limit
