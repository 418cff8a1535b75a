"""The merchant's lists: GET /v1/payments, /v1/refunds, /v1/payouts and a payment's refunds
(docs/lists.md). Scoped to the key's acting account and mode, and to the customers a restricted
key may see; filtered and paged as mzpay.domain.common.listing says, read from the list indexes
(mzpay.store.listings)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mzpay import deps
from mzpay.answers.payments import PaymentList, PaymentSnapshot
from mzpay.answers.payouts import Payout as PayoutAnswer
from mzpay.answers.payouts import PayoutList
from mzpay.answers.refunds import RefundList, RefundResult
from mzpay.domain.access.principal import Principal
from mzpay.domain.common import page_tokens
from mzpay.domain.common.entity import Claimed, Entity
from mzpay.domain.common.errors import invalid_field
from mzpay.domain.common.listing import Kind, ListRequest, parse
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, Status, snapshot
from mzpay.domain.payouts.destinations import DESTINATION_TYPES
from mzpay.domain.payouts.rules import Payout, payout_view
from mzpay.domain.payouts.rules import Status as PayoutStatus
from mzpay.steps.payments import visible_payment
from mzpay.steps.refunds import refund_result
from mzpay.store.listings import Scope
from mzpay.store.secrets import key_pepper

E = TypeVar("E", bound=Entity)


def _statuses(holder: type) -> frozenset[str]:
    return frozenset(value for name, value in vars(holder).items() if name.isupper() and isinstance(value, str))


PAYMENTS = Kind(
    "payments",
    _statuses(Status),
    own_id="payment_id",
    parent="collection_request_id",
    methods=frozenset(METHODS) | {"manual"},
    metadata=True,
)
REFUNDS = Kind("refunds", frozenset({"pending", "succeeded", "failed"}), own_id="refund_id", parent="payment")
PAYOUTS = Kind(
    "payouts",
    _statuses(PayoutStatus),
    own_id="payout_id",
    parent="batch_id",
    methods=frozenset(DESTINATION_TYPES),
    metadata=True,
)

KINDS = {kind.name: kind for kind in (PAYMENTS, REFUNDS, PAYOUTS)}


def _token_key() -> bytes:
    """The key that seals page tokens: derived from the installation's key pepper (a secret)."""
    return hmac.new(key_pepper().encode(), b"mzpay page tokens v1", hashlib.sha256).digest()


def _scope(principal: Principal) -> Scope:
    customers = frozenset({principal.customer_id}) if principal.customer_id else principal.allowed_customers
    return Scope(principal.acting_account_id, principal.mode, customers)


def _page(
    principal: Principal,
    kind: Kind,
    entity: type[E],
    query: Mapping[str, str],
    by_own_id: Callable[[str, str, str], Claimed[Any] | None],
) -> tuple[list[E], str | None]:
    """A page of `kind`'s list and the next page's token (None: the last page)."""
    request = parse(kind, query)
    scope = _scope(principal)
    if request.filters.own_id is not None:
        return _by_own_id(kind, request, scope, by_own_id), None
    binding = {
        "a": scope.account_id,
        "m": scope.mode,
        "k": kind.name,
        "f": request.filters.digest(),
        "c": hashlib.sha256(",".join(sorted(scope.customers)).encode()).hexdigest()[:16],
    }
    key = _token_key()
    before = page_tokens.unseal(request.page_token, binding, key) if request.page_token else None
    found, position = deps.listings().page(entity, scope, request.filters, before, request.page_size)
    return found, (page_tokens.seal(position, binding, key) if position else None)


def _by_own_id(
    kind: Kind, request: ListRequest, scope: Scope, by_own_id: Callable[[str, str, str], Claimed[Any] | None]
) -> list[Any]:
    """The one object the merchant's own id names (the id's claim, no list read); the id filter
    stands alone: combined with another filter or a page token it is refused."""
    assert kind.own_id is not None and request.filters.own_id is not None
    others = [name for name, value in vars(request.filters).items() if value is not None and name != "own_id"]
    if others or request.page_token:
        raise invalid_field(kind.own_id, "finds one object: send it without other filters or a page_token")
    claimed = by_own_id(scope.account_id, scope.mode, request.filters.own_id)
    if claimed is None:
        return []
    found = claimed.entity
    customer = getattr(found, "customer_id", None)
    return [found] if not scope.customers or customer in scope.customers else []


def payments(principal: Principal, query: Mapping[str, str]) -> PaymentList:
    """GET /v1/payments: the account's payments in the key's mode, newest first, filtered."""
    found, token = _page(principal, PAYMENTS, Payment, query, deps.payments().by_payment_id)
    data = [PaymentSnapshot.of(snapshot(payment)) for payment in found]
    return PaymentList(data=data, has_more=token is not None, next_page_token=token)


def refunds(principal: Principal, query: Mapping[str, str]) -> RefundList:
    """GET /v1/refunds (and a payment's refunds: ?payment=<provider_payment_id>)."""
    found, token = _page(principal, REFUNDS, Refund, query, deps.refunds().by_refund_id)
    data = [RefundResult.of(refund_result(refund)) for refund in found]
    return RefundList(data=data, has_more=token is not None, next_page_token=token)


def payment_refunds(principal: Principal, provider_payment_id: str, query: Mapping[str, str]) -> RefundList:
    """GET /v1/payments/{id}/refunds: the refunds of one of the account's payments (404 for
    another account's, as its read), newest first."""
    payment = visible_payment(principal, provider_payment_id)
    for name in query:
        if name == "payment":
            raise invalid_field(name, "not a filter of this list", field_code="unknown_field")
    return refunds(principal, {**query, "payment": payment.provider_payment_id})


def payouts(principal: Principal, query: Mapping[str, str]) -> PayoutList:
    """GET /v1/payouts (and a batch's payouts: ?batch_id=)."""
    found, token = _page(principal, PAYOUTS, Payout, query, deps.payouts().by_payout_id)
    data = [PayoutAnswer.of(payout_view(payout)) for payout in found]
    return PayoutList(data=data, has_more=token is not None, next_page_token=token)
