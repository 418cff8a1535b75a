"""GET /v1/balance/transactions and /{id}: the ledger's entries as balance transactions, newest
first, each with the balance right after it (docs/balance.md).

No running total is stored, so the balance after each entry is derived: the first page reads the
balance item (consistently) and the newest entries, then the balance item again; unchanged (its
entry count too), the two reads saw the same ledger, and walking the entries newest first while
subtracting each one's legs gives the balance after each. The next page token carries where the
walk stopped and the balance there, sealed (HMAC) so that it can be trusted and is bound to the
account, mode and filters. Entries are immutable, so the walk goes on from there whatever was
written since."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers.balance import BalanceAfter, BalanceTransaction, BalanceTransactionList
from mzpay.domain.access.principal import Principal, wrong_environment
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.sealed_tokens import seal, unseal
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.money.transactions import (
    TYPES,
    Running,
    describe,
    entry_ulid,
    instant,
    made_within,
    ulid_after,
    ulid_floor,
)
from mzpay.domain.money.transactions import (
    BalanceTransaction as Described,
)
from mzpay.store.ledger import SLACK
from mzpay.store.secrets import page_token_key

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
MAX_WALK = 2000  # entries one request reads at most: a sparse filter answers a short page and has_more
SNAPSHOT_TRIES = 3
FILTERS = ("currency", "type", "created_gte", "created_lt", "source")
PARAMETERS = frozenset({"page_size", "page_token", *FILTERS})
ANSWERED_BEFORE = frozenset({"account_id", "mode"})  # taken by every gateway route (mzpay.http.principal)
MAX_SOURCE = 64
CURRENCY = re.compile(r"[A-Z]{3}")
SOURCE = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_SOURCE}}}")


@dataclass(frozen=True)
class Filters:
    currency: str | None = None
    type: str | None = None
    created_gte: datetime | None = None
    created_lt: datetime | None = None
    source: str | None = None

    def wire(self) -> dict[str, str]:
        """The filters as a page token binds them (times as exact ISO texts)."""
        values = {name: getattr(self, name) for name in FILTERS}
        return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in values.items() if v is not None}

    def keeps(self, transaction: Described) -> bool:
        return (
            (self.type is None or transaction.type == self.type)
            and (self.source is None or transaction.source == self.source)
            and made_within(transaction.created_at, self.created_gte, self.created_lt)
        )

    @property
    def down_to(self) -> str | None:
        """The lowest ULID the walk needs to reach (entries before created_gte are never listed)."""
        return ulid_floor(self.created_gte, -SLACK) if self.created_gte else None


def _filters(query: Mapping[str, str]) -> tuple[int, Filters]:
    for name in query:
        if name not in PARAMETERS and name not in ANSWERED_BEFORE:
            raise invalid_field(name[:MAX_SOURCE], "not a parameter of this list")
    try:
        size = int(query.get("page_size", DEFAULT_PAGE_SIZE))
    except ValueError:
        size = 0
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise invalid_field("page_size", f"an integer from 1 to {MAX_PAGE_SIZE}")
    currency = query.get("currency")
    if currency is not None and not CURRENCY.fullmatch(currency):
        raise invalid_field("currency", "an ISO 4217 code such as MZN")
    kind = query.get("type")
    if kind is not None and kind not in TYPES:
        raise invalid_field("type", "one of " + ", ".join(TYPES))
    source = query.get("source")
    if source is not None and not SOURCE.fullmatch(source):
        raise invalid_field("source", f"a payment, refund, payout, dispute or bill payment id (at most {MAX_SOURCE})")
    times: dict[str, datetime | None] = {}
    for name in ("created_gte", "created_lt"):
        text = query.get(name)
        try:
            times[name] = instant(text) if text is not None else None
        except ValueError:
            raise invalid_field(name, "an ISO 8601 date-time such as 2026-11-29T08:00:00Z") from None
    gte, lt = times["created_gte"], times["created_lt"]
    if gte is not None and lt is not None and gte >= lt:
        raise invalid_field("created_gte", "before created_lt")
    return size, Filters(currency, kind, gte, lt, source)


# ---------------------------------------------------------------- the walk
@dataclass
class _Stream:
    """One currency's entries, newest first, and the balance right after the next one (`head`)."""

    entries: Iterator[dict[str, Any]]
    running: Running
    head: Described | None = None

    def advance(self) -> None:
        item = next(self.entries, None)
        self.head = describe(item) if item is not None else None


@dataclass
class Walk:
    """The entries of the currencies' streams merged newest first, each with the balance after it."""

    streams: dict[str, _Stream]
    walked: int = 0

    def upcoming(self) -> Described | None:
        """The newest entry not walked yet (None at the end)."""
        heads = [s.head for s in self.streams.values() if s.head is not None]
        return max(heads, key=lambda head: head.ulid, default=None)

    def step(self) -> tuple[Described, Running]:
        """Walk past the upcoming entry: it, and the balance right after it."""
        transaction = self.upcoming()
        assert transaction is not None
        stream = self.streams[transaction.currency]
        after = stream.running
        stream.running = after.before(transaction)
        stream.advance()
        self.walked += 1
        return transaction, after

    def position(self) -> dict[str, list[str]]:
        """Where the walk goes on: per currency not walked to its end, [the ULID bound under which
        its next entry lies, available and held right after that entry]."""
        return {
            currency: [ulid_after(s.head.ulid), str(s.running.available), str(s.running.held)]
            for currency, s in sorted(self.streams.items())
            if s.head is not None
        }


def _snapshot(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(i["currency"], i["available"], i["held"], i.get("fees"), i.get("entries")) for i in items]


def _from_the_top(account: str, mode: str, filters: Filters, first: int) -> Walk:
    """The walk from the newest entry, on a consistent reading of the balances (see the module)."""
    ledger = deps.ledger()
    for _ in range(SNAPSHOT_TRIES):
        balances = [b for b in ledger.balances(account, mode) if filters.currency in (None, b["currency"])]
        streams = {
            b["currency"]: _Stream(
                ledger.entries_newest_first(account, mode, b["currency"], None, filters.down_to, first),
                Running(Decimal(b["available"]), Decimal(b["held"])),
            )
            for b in balances
        }
        for stream in streams.values():
            stream.advance()  # the first read of each currency, between the two readings of the balances
        again = [b for b in ledger.balances(account, mode) if filters.currency in (None, b["currency"])]
        if _snapshot(again) == _snapshot(balances):
            return Walk(streams)
    raise ServiceError(503, "service_unavailable", "The balance keeps changing; retry.", headers={"Retry-After": "1"})


def _from_token(account: str, mode: str, filters: Filters, position: dict[str, list[str]], first: int) -> Walk:
    ledger = deps.ledger()
    streams = {}
    for currency, (below, available, held) in position.items():
        stream = _Stream(
            ledger.entries_newest_first(account, mode, currency, below, filters.down_to, first),
            Running(Decimal(available), Decimal(held)),
        )
        stream.advance()
        streams[currency] = stream
    return Walk(streams)


# ---------------------------------------------------------------- page tokens
def _binding(account: str, mode: str, filters: Filters) -> dict[str, Any]:
    return {"a": account, "m": mode, "f": filters.wire()}


def _position(token: str, binding: dict[str, Any]) -> dict[str, list[str]]:
    payload = unseal(token, page_token_key())
    position = payload.get("p") if payload and {k: payload.get(k) for k in binding} == binding else None
    if not isinstance(position, dict) or not all(_a_place(place) for place in position.values()):
        raise invalid_field("page_token", "not a page_token this list gave for these filters")
    return position


def _a_place(place: Any) -> bool:
    return isinstance(place, list) and len(place) == 3 and all(isinstance(x, str) for x in place)


# ---------------------------------------------------------------- the answers
def _answer(transaction: Described, after: Running) -> BalanceTransaction:
    currency = transaction.currency

    def money(amount: Decimal) -> str:
        return format_amount(amount, currency)

    return BalanceTransaction(
        id=transaction.id,
        type=transaction.type,  # type: ignore[arg-type]  # one of TYPES, the model's Literal
        kind=transaction.kind,
        amount=money(transaction.amount),
        fee=money(transaction.fee),
        provider_fee=money(transaction.provider_fee),
        service_fee=money(transaction.service_fee),
        net=money(transaction.net),
        held=money(transaction.held),
        currency=currency,
        source=transaction.source,
        event_id=transaction.event_id,
        created_at=transaction.created_at,
        balance_after=BalanceAfter(available=money(after.available), held=money(after.held)),
    )


def listing(principal: Principal, query: Mapping[str, str]) -> BalanceTransactionList:
    """The account's balance transactions in the key's mode, newest first, filtered by `query`
    (page_size, page_token, currency, type, created_gte, created_lt, source); 400 naming the
    parameter for anything else."""
    account, mode = principal.acting_account_id, principal.mode
    size, filters = _filters(query)
    binding = _binding(account, mode, filters)
    token = query.get("page_token")
    if token is None:
        walk = _from_the_top(account, mode, filters, size + 1)
    else:
        walk = _from_token(account, mode, filters, _position(token, binding), size + 1)
    data: list[BalanceTransaction] = []
    while (upcoming := walk.upcoming()) is not None and walk.walked < MAX_WALK:
        if filters.keeps(upcoming):
            if len(data) == size:
                break  # the next page starts with it
            data.append(_answer(*walk.step()))
        else:
            walk.step()
    more = walk.upcoming() is not None
    following = seal({**binding, "p": walk.position()}, page_token_key()) if more else None
    return BalanceTransactionList(data=data, has_more=more, next_page_token=following)


def read(principal: Principal, transaction_id: str) -> BalanceTransaction:
    """One balance transaction of the account in the key's mode, with the balance after it; 404
    for another account's or none, 401 wrong_environment for the other mode's (as every read)."""
    account, mode = principal.acting_account_id, principal.mode
    ulid = entry_ulid(transaction_id)
    found = _entry(account, mode, ulid) if ulid else None
    if found is None:
        other = "live" if mode == "test" else "test"
        if ulid and _entry(account, other, ulid):
            raise wrong_environment(mode, other)
        raise ServiceError(404, "not_found", "No such balance transaction.")
    transaction = describe(found)
    walk = _from_the_top(account, mode, Filters(currency=transaction.currency), MAX_PAGE_SIZE)
    while walk.upcoming() is not None:  # down to it (the ledger's newer entries: docs/balance.md)
        walked, after = walk.step()
        if walked.id == transaction.id:
            return _answer(transaction, after)
    raise ServiceError(404, "not_found", "No such balance transaction.")  # pragma: no cover  (read above)


def _entry(account: str, mode: str, ulid: str) -> dict[str, Any] | None:
    """The entry of that ULID in any currency of the account's balances in `mode`."""
    ledger = deps.ledger()
    currencies = [b["currency"] for b in ledger.balances(account, mode)]
    return next((e for c in currencies if (e := ledger.entry(account, mode, c, ulid))), None)
