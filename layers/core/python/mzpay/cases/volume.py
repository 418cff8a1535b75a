"""The account's payment volume and success rate by method, today and over the last 30 days
(days in Africa/Maputo): the dashboard's home charts (docs/dashboard.md, "Home"). Read from the
account's list of payments (what GET /v1/payments lists), in the principal's acting account and
mode; figured by mzpay.domain.dashboard.volume."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal

from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import iso, now, parse_iso
from mzpay.domain.common.listing import Filters
from mzpay.domain.dashboard.volume import MAX_PAYMENTS, Sale, Volume, day_of, since, summarize
from mzpay.domain.payments.rules import Payment
from mzpay.steps.listings import every_payment
from mzpay.store.list_keys import LISTED
from mzpay.store.listings import Scope


def by_method(principal: Principal, at: datetime | None = None) -> Volume:
    """Today's and the last 30 days' figures per method and currency (at most MAX_PAYMENTS of the
    newest payments read: `complete` says whether that was all)."""
    moment = at or now()
    read: list[Sale] = []
    complete = True
    for payment in _payments(principal, moment):
        if len(read) == MAX_PAYMENTS:
            complete = False
            break
        read.append(_sale(payment))
    return summarize(read, moment, complete)


def _payments(principal: Principal, moment: datetime) -> Iterator[Payment]:
    customers = frozenset({principal.customer_id}) if principal.customer_id else principal.allowed_customers
    scope = Scope(principal.acting_account_id, (principal.mode,), customers)  # as GET /v1/payments scopes
    return every_payment(scope, Filters(created_gte=iso(since(moment))))


def _sale(payment: Payment) -> Sale:
    created = parse_iso(payment.created_at)
    assert created is not None
    return Sale(
        day=day_of(created),
        method=LISTED[Payment].method(payment),
        currency=payment.currency,
        status=payment.status,
        captured=Decimal(payment.captured_amount or "0"),
    )
