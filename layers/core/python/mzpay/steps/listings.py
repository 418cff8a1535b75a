"""One page of a list read from the list indexes (mzpay.store.listings), for every surface that
lists (the gateway's lists, mzpay.cases.listings; the collection surface's payment records,
mzpay.collection.payments): the previous page's sealed token opened, the page read, the next
page's token sealed (mzpay.domain.common.page_tokens), bound to the account, modes, customers,
list and filters; and the lists the gateway and the console offer (their Kinds)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from typing import TypeVar

from mzpay import deps
from mzpay.domain.common import page_tokens
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.listing import Filters, Kind, ListRequest
from mzpay.domain.messages.records import CHANNELS as MESSAGE_CHANNELS
from mzpay.domain.messages.records import STATUSES as MESSAGE_STATUSES
from mzpay.domain.payments.disputes import Status as DisputeStatus
from mzpay.domain.payments.methods import METHODS
from mzpay.domain.payments.rules import Payment, Status
from mzpay.domain.payouts.batches import Status as BatchStatus
from mzpay.domain.payouts.cash_deposits import DEPOSIT_STATUS
from mzpay.domain.payouts.destinations import DESTINATION_TYPES
from mzpay.domain.payouts.rules import Status as PayoutStatus
from mzpay.domain.psp.transactions import RECORDED
from mzpay.domain.psp.transactions import TYPES as PSP_TYPES
from mzpay.store.list_keys import Listed
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
BILL_PAYMENTS = Kind("bill_payments", frozenset({"pending", "succeeded", "failed"}), parent="product_id", metadata=True)
PAYOUT_BATCHES = Kind("payout_batches", _statuses(BatchStatus))
CASH_DEPOSITS = Kind(
    "cash_deposits",
    frozenset(DEPOSIT_STATUS.values()),
    own_id="intent_id",
    methods=frozenset({"mobile_wallet"}),
    metadata=True,
)
# Disputes and PSP transactions were listed before the filters came: their page size keeps its
# name (`limit`) and its default (20); a PSP transaction's `type` is what the others call method.
DISPUTES = Kind(
    "disputes", _statuses(DisputeStatus), parent="payment", aliases=(("limit", "page_size"),), default_size=20
)
PSP_TRANSACTIONS = Kind(
    "psp_transactions",
    frozenset({RECORDED}),
    own_id="originator_reference",
    methods=frozenset(PSP_TYPES),
    metadata=True,
    aliases=(("limit", "page_size"), ("type", "method")),
    default_size=20,
)

KINDS = {
    kind.name: kind
    for kind in (PAYMENTS, REFUNDS, PAYOUTS, BILL_PAYMENTS, PAYOUT_BATCHES, CASH_DEPOSITS, DISPUTES, PSP_TRANSACTIONS)
}
# An account's messages to people (the console's Messages page, no API): `channel` (email, sms)
# is the list's method, `recipient` its parent (compared as a digest: domain.messages.records).
MESSAGES = Kind("messages", MESSAGE_STATUSES, parent="recipient", channels=MESSAGE_CHANNELS)


def _token_key() -> bytes:
    """The key that seals page tokens: derived from the installation's key pepper (a secret)."""
    return hmac.new(key_pepper().encode(), b"mzpay page tokens v1", hashlib.sha256).digest()


def page(
    kind: Kind, entity: type[E], scope: Scope, request: ListRequest, listed: Listed | None = None
) -> tuple[list[E], str | None]:
    """A page of `kind`'s list of `entity` for `scope`, and the next page's token (None: the last
    page); 400 invalid_request naming page_token for a token this list did not give."""
    binding = {
        "a": scope.account_id,
        "m": ",".join(scope.modes),
        "k": kind.name,
        "f": request.filters.digest(),
        "c": hashlib.sha256(",".join(sorted(scope.customers)).encode()).hexdigest()[:16],
    }
    before = page_tokens.unseal(request.page_token, binding, _token_key()) if request.page_token else None
    found, position = deps.listings().page(entity, scope, request.filters, before, request.page_size, listed)
    return found, (page_tokens.seal(position, binding, _token_key()) if position else None)


PAYMENTS_READ = 100  # payments read per page by every_payment


def every_payment(scope: Scope, filters: Filters) -> Iterator[Payment]:
    """Every payment of `scope` that `filters` keeps, newest first, read a page at a time as the
    caller goes (a report's rows, the dashboard's volume)."""
    before: str | None = None
    while True:
        found, before = deps.listings().page(Payment, scope, filters, before, PAYMENTS_READ)
        yield from found
        if before is None:
            return
