"""The collection surface's payment records (Kulpay's payment service; docs/collection-payments.md):
`GET /v1/payments` lists the payments a business received (its collection requests' checkouts,
the gateway payments of its account), both modes merged unless `mode` names one, newest first,
with Kulpay's filters (collection_request_id, status, channel, provider_id, amount_min,
amount_max, from, to, currency, page_size, page_token); `GET /v1/payments/{id}` reads one. The
same list indexes, filters and sealed page tokens as the gateway's lists (mzpay.steps.listings).

`POST /v1/payments` records a payment the business received outside the service against one of
its requests (mzpay.domain.collection.recorded): a gateway payment of its account in the request's
mode, succeeded, whose source is `manual` (the service never held the money: nothing captured,
so nothing to refund and no ledger entry), written in one transaction with the request's change
(what it paid so far; paid once nothing is due) and their events, on condition that the request
is as it was read: of two records racing for one request, the second is judged again against
what the first left. A retry of one request (its Idempotency-Key names the payment's ids) finds
the payment its earlier attempt wrote and answers it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.collection_payments import (
    CollectionPayment,
    CollectionPaymentList,
    CollectionPaymentRead,
    RecordedPayment,
)
from mzpay.collection.collection_requests import own
from mzpay.domain.access.principal import Principal
from mzpay.domain.collection import recorded
from mzpay.domain.collection import requests as request_rules
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.identity_providers import invalid
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import is_ulid, request_fingerprint
from mzpay.domain.common.listing import WALLET_NETWORKS, Kind, parse
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments.manual import MANUAL
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.rules import Payment, Status
from mzpay.steps import audit, listings
from mzpay.steps.business import gateway_account_of
from mzpay.steps.collection_payments import close_checkout
from mzpay.steps.listings import PAYMENTS as GATEWAY_PAYMENTS
from mzpay.steps.payments import new_payment, payment_event
from mzpay.store.collection_requests import Changed
from mzpay.store.listings import Scope
from mzpay.store.transitions import rejudged

MODES = ("live", "test")
PAYMENTS = Kind(
    "collection_payments",
    GATEWAY_PAYMENTS.statuses,
    parent="collection_request_id",
    provider="provider_id",
    channels=frozenset(METHODS) | {"manual"} | WALLET_NETWORKS | frozenset(recorded.CHANNELS),
    aliases=(("amount_min", "amount_gte"), ("amount_max", "amount_lte"), ("from", "created_gte"), ("to", "created_lt")),
)
KINDS = {PAYMENTS.name: PAYMENTS}


def _refused(field: str, message: str) -> ServiceError:
    return invalid([FieldError(field, INVALID_FORMAT, message)])


def _view(payment: Payment) -> dict[str, Any]:
    source = payment.source or {}
    network = (source.get("mobile_wallet") or {}).get("network")
    view = {
        "id": payment.provider_payment_id,
        "collection_request_id": payment.collection_request_id,
        "status": payment.status,
        "channel": network or payment.channel or source.get("type"),
        "provider_id": payment.psp_id,
        "amount": payment.amount,
        "currency": payment.currency,
        "mode": payment.mode,
        "reference": payment.provider_reference,
        "created_at": payment.created_at,
        "paid_at": payment.captured_at,
        "updated_at": payment.updated_at,
    }
    if payment.channel:  # recorded by the business: what it said of it
        view |= {"description": (payment.statement or {}).get("description"), "metadata": payment.metadata or {}}
    return view


def listed(account_id: str, query: Mapping[str, str]) -> CollectionPaymentList:
    """GET /v1/payments: the business's payments, newest first, filtered; 400 validation_error
    naming the field of a bad filter."""
    mode = query.get("mode")
    if mode is not None and mode not in MODES:
        raise _refused("mode", "test or live")
    try:
        request = parse(PAYMENTS, query)
        scope = Scope(gateway_account_of(account_id), (mode,) if mode else MODES)
        found, token = listings.page(PAYMENTS, Payment, scope, request)
    except ServiceError as refused:
        if refused.status != 400 or not refused.errors:
            raise
        raise _refused(refused.errors[0].field, refused.errors[0].message) from refused
    data = [CollectionPayment.of(_view(payment)) for payment in found]
    return CollectionPaymentList(
        object="list", data=data, has_more=token is not None, next_page_token=token, error=None
    )


def read(account_id: str, payment_id: str) -> CollectionPaymentRead:
    """GET /v1/payments/{id}: one of the business's payments (another's is 404)."""
    payment = deps.payments().get(payment_id) if is_ulid(payment_id) else None
    if payment is None or payment.account_id != gateway_account_of(account_id):
        raise ServiceError(404, "not_found", "No such payment.")
    return CollectionPaymentRead(object="payment", payment=CollectionPayment.of(_view(payment)), error=None)


def _audited(request: CollectionRequest) -> dict[str, Any]:
    """What the audit trail keeps of a request a payment was recorded against."""
    return {
        "status": request.status,
        "amount": request.money,
        "amount_paid": format(request.amount_paid.quantize(request_rules.CENTS), "f"),
        "payment_status": request.payment_reconciliation.get("payment_status"),
    }


def _recorded(body: dict[str, Any]) -> tuple[str, Decimal, str]:
    """The body's rules (its shape and sizes are the route's model): (currency, value, paid_at in UTC)."""
    amount = request_rules.check_amount(body["amount"]["currency"], Decimal(str(body["amount"]["value"])))
    problems = []
    if problem := recorded.channel_problem(body["channel"]):
        problems.append(FieldError("channel", INVALID_FORMAT, problem))
    if problem := recorded.paid_at_problem(body["paid_at"], datetime.now(UTC)):
        problems.append(FieldError("paid_at", INVALID_FORMAT, problem))
    if problems:
        raise request_rules.invalid(problems)  # as the collection requests' bodies are refused
    return amount["currency"], amount["value"], recorded.paid_at_utc(body["paid_at"])


@dataclass(frozen=True)
class Received:
    """Money received outside the service, to record against a collection request."""

    currency: str
    value: Decimal
    channel: str  # recorded.CHANNELS
    reference: str
    paid_at: str  # UTC, seconds, Z
    description: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    over: Decimal = Decimal(0)  # what of `value` the request cannot take: kept as its overpayment to refund


def apply_received(
    account_id: str,
    request: CollectionRequest,
    received: Received,
    payment_id: str,
    fingerprint: str,
    also: Callable[[Payment], list[dict[str, Any]]] | None = None,
) -> Payment:
    """Write a payment of `received` (judged already) against `request`: the payment, the
    request's change and their events in one transaction with what `also` adds for the payment
    (a bank statement line's change), on condition that the request is as it was read (Changed
    otherwise: the caller reads it again and judges anew). A payment of this id written before is answered as it is."""
    collecting = gateway_account_of(request.account_id)  # the gateway account the business collects through
    existing = deps.payments().by_payment_id(collecting, request.mode, payment_id)
    if existing is not None:  # an earlier attempt of this request wrote it
        if existing.fingerprint != fingerprint or existing.entity.collection_request_id != request.request_id:
            raise ServiceError(409, "idempotency_key_reused", "This Idempotency-Key was used for another payment.")
        return existing.entity
    taken = received.value - received.over
    closing = close_checkout(request, "record a payment against") if taken > 0 else {}
    now = now_iso()
    manual = {"kind": received.channel, "reference": received.reference}
    payment = new_payment(
        Principal.of_account(collecting, request.mode),
        payment_id,
        received.currency,
        fingerprint,
        now,
        status=Status.SUCCEEDED,
        amount=format_amount(received.value, received.currency),
        country="MZ",
        source={"type": MANUAL, MANUAL: manual},
        channel=received.channel,
        collection_request_id=request.request_id,
        provider_reference=received.reference,
        captured_at=received.paid_at,
        statement={"description": received.description} if received.description else None,
        metadata=received.metadata,
    )
    settled = recorded.settled(
        request, received.value, received.channel, payment.provider_payment_id, received.paid_at, now, received.over
    )
    changes = {**closing, **settled}
    after = request.changed(changes)
    events = [payment_event("payment.succeeded", payment, now)]
    if after.status == RequestStatus.PAID and request.status != RequestStatus.PAID:  # what a link's payment records
        events.append(request_rules.request_event(request_rules.EVENT_PAID, after, now))
    elif taken > 0:  # an instalment: what is paid and what is still due
        events.append(request_rules.request_event(request_rules.EVENT_PARTIALLY_PAID, after, now))
    if received.over > 0:  # money it could not take: to refund
        events.append(request_rules.request_event(request_rules.EVENT_REFUND_DUE, after, now))
    deps.collection_requests().settle_with(
        request, changes, [*deps.payments().creation_items(payment), *(also(payment) if also else [])], events
    )
    audit.observe(
        "collection_request",
        request.request_id,
        account_id=account_id,
        before=_audited(request),
        after={**_audited(after), "payment_id": payment.provider_payment_id},
    )
    return payment


def record(account_id: str, body: dict[str, Any], payment_id: str) -> RecordedPayment:
    """POST /v1/payments: a payment the business received outside the service, recorded against
    its collection request (see the module's note). `payment_id` is the payment's own id, the
    same for every retry of one request. 404 for a request not the caller's; 409 invoice_closed
    once it is paid; 422 amount_out_of_range for more than is due, or a part of a request that
    takes one payment; 400 validation_error naming a field that breaks a rule."""
    currency, value, paid_at = _recorded(body)
    request_id = body["collection_request_id"]
    fingerprint = request_fingerprint(body, "recorded")
    received = Received(
        currency,
        value,
        body["channel"],
        body["reference"],
        paid_at,
        body.get("description"),
        body.get("metadata") or {},
    )

    def write(request: CollectionRequest) -> Payment:
        collecting = gateway_account_of(request.account_id)
        if deps.payments().by_payment_id(collecting, request.mode, payment_id) is None:
            recorded.judge(request, currency, value)
        return apply_received(account_id, request, received, payment_id, fingerprint)

    payment = rejudged(lambda: own(account_id, request_id), write, Changed, "collection request")
    return RecordedPayment(object="payment", payment=CollectionPayment.of(_view(payment)), error=None)
