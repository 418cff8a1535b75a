"""The merchant's lists: GET /v1/payments, /v1/refunds, /v1/payouts and a payment's refunds
(docs/lists.md). Scoped to the key's acting account and mode, and to the customers a restricted
key may see; filtered and paged as mzpay.domain.common.listing says, read from the list indexes
(mzpay.store.listings)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mzpay import deps
from mzpay.answers.bills import BillPayment as BillPaymentAnswer
from mzpay.answers.bills import BillPaymentList
from mzpay.answers.payments import PaymentList, PaymentSnapshot
from mzpay.answers.payouts import Payout as PayoutAnswer
from mzpay.answers.payouts import PayoutBatch as PayoutBatchAnswer
from mzpay.answers.payouts import PayoutBatchList, PayoutList
from mzpay.answers.refunds import RefundList, RefundResult
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.entity import Claimed, Entity
from mzpay.domain.common.errors import invalid_field
from mzpay.domain.common.listing import Kind, ListRequest, parse
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, snapshot
from mzpay.domain.payouts.batches import PayoutBatch, batch_view
from mzpay.domain.payouts.rules import Payout, payout_view
from mzpay.steps import listings
from mzpay.steps.listings import BILL_PAYMENTS, PAYMENTS, PAYOUT_BATCHES, PAYOUTS, REFUNDS
from mzpay.steps.payments import visible_payment
from mzpay.steps.refunds import refund_result
from mzpay.store.listings import Scope

E = TypeVar("E", bound=Entity)


def _no_own_id(account_id: str, mode: str, own_id: str) -> None:
    """For a list without an id of the merchant's own (never called: its Kind has no own_id)."""


def _scope(principal: Principal) -> Scope:
    customers = frozenset({principal.customer_id}) if principal.customer_id else principal.allowed_customers
    return Scope(principal.acting_account_id, (principal.mode,), customers)


def _page(
    principal: Principal,
    kind: Kind,
    entity: type[E],
    query: Mapping[str, str],
    by_own_id: Callable[[str, str, str], Claimed[Any] | None] = _no_own_id,
) -> tuple[list[E], str | None]:
    """A page of `kind`'s list and the next page's token (None: the last page)."""
    request = parse(kind, query)
    scope = _scope(principal)
    if request.filters.own_id is not None:
        return _by_own_id(kind, request, scope, by_own_id), None
    return listings.page(kind, entity, scope, request)


def principal_mode(scope: Scope) -> str:
    """The one mode of a merchant key's scope."""
    (mode,) = scope.modes
    return mode


def _by_own_id(
    kind: Kind, request: ListRequest, scope: Scope, by_own_id: Callable[[str, str, str], Claimed[Any] | None]
) -> list[Any]:
    """The one object the merchant's own id names (the id's claim, no list read); the id filter
    stands alone: combined with another filter or a page token it is refused."""
    assert kind.own_id is not None and request.filters.own_id is not None
    others = [name for name, value in vars(request.filters).items() if value is not None and name != "own_id"]
    if others or request.page_token:
        raise invalid_field(kind.own_id, "finds one object: send it without other filters or a page_token")
    claimed = by_own_id(scope.account_id, principal_mode(scope), request.filters.own_id)
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


def bill_payments(principal: Principal, query: Mapping[str, str]) -> BillPaymentList:
    """GET /v1/bill-payments: the account's bill payments (?product_id= one product's)."""
    found, token = _page(principal, BILL_PAYMENTS, BillPayment, query)
    data = [BillPaymentAnswer.of(payment.view()) for payment in found]
    return BillPaymentList(data=data, has_more=token is not None, next_page_token=token)


def payout_batches(principal: Principal, query: Mapping[str, str]) -> PayoutBatchList:
    """GET /v1/payout-batches: the account's payout batches, each without its lines."""
    found, token = _page(principal, PAYOUT_BATCHES, PayoutBatch, query)
    data = [PayoutBatchAnswer.of(batch_view(batch)) for batch in found]
    return PayoutBatchList(data=data, has_more=token is not None, next_page_token=token)
