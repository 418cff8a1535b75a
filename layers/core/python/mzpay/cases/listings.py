"""The merchant's lists: GET /v1/payments, /v1/refunds, /v1/payouts and a payment's refunds,
/v1/bill-payments, /v1/payout-batches, /v1/cash-deposits, /v1/disputes, /v1/psp/transactions
(docs/lists.md). Scoped to the key's acting account and mode, and to the customers a restricted
key may see; filtered and paged as mzpay.domain.common.listing says, read from the list indexes
(mzpay.store.listings)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mzpay import deps
from mzpay.answers.base import Page
from mzpay.answers.bills import BillPayment as BillPaymentAnswer
from mzpay.answers.bills import BillPaymentList
from mzpay.answers.disputes import Dispute as DisputeAnswer
from mzpay.answers.disputes import DisputeList
from mzpay.answers.messages import Message, MessageList
from mzpay.answers.partners import CashDeposit, CashDepositList, PspTransactionList
from mzpay.answers.partners import PspTransaction as PspTransactionAnswer
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
from mzpay.domain.messages import sms
from mzpay.domain.messages.records import MessageRecord, recipient_key
from mzpay.domain.payments.disputes import Dispute
from mzpay.domain.payments.disputes import view as dispute_view
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, snapshot
from mzpay.domain.payouts.batches import PayoutBatch, batch_view
from mzpay.domain.payouts.cash_deposits import deposit_view
from mzpay.domain.payouts.rules import Payout, payout_view
from mzpay.domain.psp.transactions import PspTransaction
from mzpay.steps import listings
from mzpay.steps.accounts import require_partner
from mzpay.steps.listings import (
    BILL_PAYMENTS,
    CASH_DEPOSITS,
    DISPUTES,
    MESSAGES,
    PAYMENTS,
    PAYOUT_BATCHES,
    PAYOUTS,
    PSP_TRANSACTIONS,
    REFUNDS,
)
from mzpay.steps.payments import visible_payment
from mzpay.steps.refunds import refund_result
from mzpay.store.list_keys import CASH_DEPOSIT, Listed
from mzpay.store.listings import Scope

E = TypeVar("E", bound=Entity)
L = TypeVar("L", bound=Page[Any])


OwnId = Callable[[str, str, str], Claimed[Any] | Entity | None]


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
    by_own_id: OwnId = _no_own_id,
    listed: Listed | None = None,
) -> tuple[list[E], str | None]:
    """A page of `kind`'s list and the next page's token (None: the last page); `listed`: the
    list where `entity` is listed in more than one (mzpay.store.list_keys)."""
    request = parse(kind, query)
    scope = _scope(principal)
    if request.filters.own_id is not None:
        return _by_own_id(kind, request, scope, by_own_id), None
    return listings.page(kind, entity, scope, request, listed)


def _answer(model: type[L], data: list[Any], token: str | None) -> L:
    """The list answer `model` of a page's `data` and the next page's token (None: the last)."""
    return model(data=data, has_more=token is not None, next_page_token=token)


def principal_mode(scope: Scope) -> str:
    """The one mode of a merchant key's scope."""
    (mode,) = scope.modes
    return mode


def _by_own_id(kind: Kind, request: ListRequest, scope: Scope, by_own_id: OwnId) -> list[Any]:
    """The one object the merchant's own id names (the id's claim, no list read); the id filter
    stands alone: combined with another filter or a page token it is refused."""
    assert kind.own_id is not None and request.filters.own_id is not None
    others = [name for name, value in vars(request.filters).items() if value is not None and name != "own_id"]
    if others or request.page_token:
        raise invalid_field(kind.own_id, "finds one object: send it without other filters or a page_token")
    claimed = by_own_id(scope.account_id, principal_mode(scope), request.filters.own_id)
    if claimed is None:
        return []
    found = claimed.entity if isinstance(claimed, Claimed) else claimed
    customer = getattr(found, "customer_id", None)
    return [found] if not scope.customers or customer in scope.customers else []


def payments(principal: Principal, query: Mapping[str, str]) -> PaymentList:
    """GET /v1/payments: the account's payments in the key's mode, newest first, filtered."""
    found, token = _page(principal, PAYMENTS, Payment, query, deps.payments().by_payment_id)
    return _answer(PaymentList, [PaymentSnapshot.of(snapshot(payment)) for payment in found], token)


def refunds(principal: Principal, query: Mapping[str, str]) -> RefundList:
    """GET /v1/refunds (and a payment's refunds: ?payment=<provider_payment_id>)."""
    found, token = _page(principal, REFUNDS, Refund, query, deps.refunds().by_refund_id)
    return _answer(RefundList, [RefundResult.of(refund_result(refund)) for refund in found], token)


def payment_refunds(principal: Principal, provider_payment_id: str, query: Mapping[str, str]) -> RefundList:
    """GET /v1/payments/{id}/refunds: the refunds of one of the account's payments (404 for
    another account's, as its read), newest first."""
    payment = visible_payment(principal, provider_payment_id)
    for name in query:
        if name == "payment":
            raise invalid_field(name, "not a filter of this list", field_code="unknown_field")
    return refunds(principal, {**query, "payment": payment.provider_payment_id})


def _payout(deposits: bool) -> OwnId:
    """The payout (deposits False) or cash deposit (True) a payout_id names: a cash deposit is a
    payout of the partner listed apart (GET /v1/cash-deposits), the intent's id its payout_id."""

    def by_payout_id(account_id: str, mode: str, payout_id: str) -> Payout | None:
        claimed = deps.payouts().by_payout_id(account_id, mode, payout_id)
        found = claimed.entity if claimed else None
        return found if found is not None and (found.cash_deposit is not None) == deposits else None

    return by_payout_id


def payouts(principal: Principal, query: Mapping[str, str]) -> PayoutList:
    """GET /v1/payouts (and a batch's payouts: ?batch_id=)."""
    found, token = _page(principal, PAYOUTS, Payout, query, _payout(deposits=False))
    return _answer(PayoutList, [PayoutAnswer.of(payout_view(payout)) for payout in found], token)


def bill_payments(principal: Principal, query: Mapping[str, str]) -> BillPaymentList:
    """GET /v1/bill-payments: the account's bill payments (?product_id= one product's)."""
    found, token = _page(principal, BILL_PAYMENTS, BillPayment, query)
    return _answer(BillPaymentList, [BillPaymentAnswer.of(payment.view()) for payment in found], token)


def payout_batches(principal: Principal, query: Mapping[str, str]) -> PayoutBatchList:
    """GET /v1/payout-batches: the account's payout batches, each without its lines."""
    found, token = _page(principal, PAYOUT_BATCHES, PayoutBatch, query)
    return _answer(PayoutBatchList, [PayoutBatchAnswer.of(batch_view(batch)) for batch in found], token)


def cash_deposits(principal: Principal, query: Mapping[str, str]) -> CashDepositList:
    """GET /v1/cash-deposits: a partner's cash deposits (403 not_a_partner for another account);
    `intent_id` finds the deposit of one intent."""
    require_partner(principal)
    found, token = _page(principal, CASH_DEPOSITS, Payout, query, _payout(deposits=True), CASH_DEPOSIT)
    return _answer(CashDepositList, [CashDeposit.of(deposit_view(payout)) for payout in found], token)


def disputes(principal: Principal, query: Mapping[str, str]) -> DisputeList:
    """GET /v1/disputes: the account's disputes (?payment= one payment's)."""
    found, token = _page(principal, DISPUTES, Dispute, query)
    return _answer(DisputeList, [DisputeAnswer.of(dispute_view(dispute)) for dispute in found], token)


def psp_transactions(principal: Principal, query: Mapping[str, str]) -> PspTransactionList:
    """GET /v1/psp/transactions: a PSP's recorded transactions; `originator_reference` finds the
    one that carries it (an empty list when none does)."""
    found, token = _page(principal, PSP_TRANSACTIONS, PspTransaction, query, deps.psp_transactions().by_reference)
    return _answer(PspTransactionList, [PspTransactionAnswer.of(transaction.view()) for transaction in found], token)


def messages(principal: Principal, query: Mapping[str, str]) -> MessageList:
    """An account's messages to people in a mode, newest first (the console's Messages page):
    `channel`, `status`, `recipient` (an address as written), `created_gte`/`created_lt`."""
    asked = dict(query)
    if asked.get("recipient"):
        asked["recipient"] = recipient_key(asked["recipient"])
    found, token = _page(principal, MESSAGES, MessageRecord, asked)
    return _answer(MessageList, [Message.of(_message_view(record)) for record in found], token)


def _message_view(record: MessageRecord) -> dict[str, Any]:
    size = sms.size(record.text) if record.channel == "sms" else None
    return {
        "object": "message",
        **record.model_dump(include=set(Message.model_fields) - {"object", "sms"}),
        "subject": record.subject if record.channel == "email" else None,
        "sms": {"segments": size.segments, "encoding": size.encoding} if size else None,
    }
