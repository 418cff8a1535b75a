"""The collection surface's payment records (Kulpay's payment service; docs/collection-payments.md):
`GET /v1/payments` lists the payments a business received (its collection requests' checkouts,
the gateway payments of its account), both modes merged unless `mode` names one, newest first,
with Kulpay's filters (collection_request_id, status, channel, provider_id, amount_min,
amount_max, from, to, currency, page_size, page_token); `GET /v1/payments/{id}` reads one. The
same list indexes, filters and sealed page tokens as the gateway's lists (mzpay.steps.listings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mzpay import deps
from mzpay.answers.collection_payments import CollectionPayment, CollectionPaymentList, CollectionPaymentRead
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.identity_providers import invalid
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.listing import WALLET_NETWORKS, Kind, parse
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.rules import Payment
from mzpay.steps import listings
from mzpay.steps.business import gateway_account_of
from mzpay.steps.listings import PAYMENTS as GATEWAY_PAYMENTS
from mzpay.store.listings import Scope

MODES = ("live", "test")
PAYMENTS = Kind(
    "collection_payments",
    GATEWAY_PAYMENTS.statuses,
    parent="collection_request_id",
    provider="provider_id",
    channels=frozenset(METHODS) | {"manual"} | WALLET_NETWORKS,
    aliases=(("amount_min", "amount_gte"), ("amount_max", "amount_lte"), ("from", "created_gte"), ("to", "created_lt")),
)
KINDS = {PAYMENTS.name: PAYMENTS}


def _refused(field: str, message: str) -> ServiceError:
    return invalid([FieldError(field, INVALID_FORMAT, message)])


def _view(payment: Payment) -> dict[str, Any]:
    source = payment.source or {}
    network = (source.get("mobile_wallet") or {}).get("network")
    return {
        "id": payment.provider_payment_id,
        "collection_request_id": payment.collection_request_id,
        "status": payment.status,
        "channel": network or source.get("type"),
        "provider_id": payment.psp_id,
        "amount": payment.amount,
        "currency": payment.currency,
        "mode": payment.mode,
        "reference": payment.provider_reference,
        "created_at": payment.created_at,
        "paid_at": payment.captured_at,
        "updated_at": payment.updated_at,
    }


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
