"""The keys that put payments, refunds, payouts, bill payments, payout batches and messages in
the payments table's two list indexes (read by mzpay.store.listings).

Every listed object carries, from its creation and refreshed by each of its transitions:
  lpk    L#<kind>#<account>#<mode>#<shard>            the `by_account` index's partition
  spk    L#<kind>#<account>#<mode>#<status>#<shard>   the `by_status` index's partition
  lsk    <created_at>#<id>                            both indexes' sort key: newest first
  lamt   the amount as a number; lmethod, lnetwork, lcust, lparent, lprov: what filters compare
`shard` (0 to SHARDS-1) comes from the object's id, so one busy merchant's writes spread over
SHARDS partitions of each index instead of one; a page reads each shard below the previous
page's position and merges them (docs/lists.md: the design and its figures). A page never
scans: every read is a Query of one shard, its key condition bounded by the dates asked, other
filters applied to what it reads, each shard read at most BUDGET items a page."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.entity import Entity
from mzpay.domain.messages.records import MessageRecord, recipient_key
from mzpay.domain.payments.disputes import Dispute
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment
from mzpay.domain.payouts.batches import PayoutBatch
from mzpay.domain.payouts.cash_deposits import DEPOSIT_STATUS
from mzpay.domain.payouts.rules import Payout
from mzpay.domain.psp.transactions import PspTransaction

SHARDS = 4  # fixed: a stored object keeps its shard; changing it needs a backfill
LIST_ATTRIBUTES = ("lpk", "spk", "lsk", "lamt", "lmethod", "lnetwork", "lcust", "lparent", "lprov")


@dataclass(frozen=True)
class Listed:
    """How one kind of object is listed: its prefix, id, and what its filters compare."""

    prefix: str
    identity: Callable[[Any], str]
    method: Callable[[Any], str | None]
    network: Callable[[Any], str | None]
    customer: Callable[[Any], str | None]
    parent: Callable[[Any], str | None]
    amount: Callable[[Any], str] = lambda entity: str(entity.amount)
    provider: Callable[[Any], str | None] = lambda entity: None
    status: Callable[[Any], str] = lambda entity: str(entity.status)  # the status its list filters by


def _none(entity: Any) -> None:
    return None


def _wallet_network(part: dict[str, Any] | None) -> str | None:
    wallet = (part or {}).get("mobile_wallet") or {}
    return str(wallet["network"]) if wallet.get("network") else None


def _kind(part: dict[str, Any] | None) -> str | None:
    return str(part["type"]) if part and part.get("type") else None


LISTED: dict[type[Entity], Listed] = {
    Payment: Listed(
        "PAY",
        lambda p: p.provider_payment_id,
        lambda p: p.channel or _kind(p.source),  # a recorded payment: how it came
        lambda p: _wallet_network(p.source),
        lambda p: p.customer_id,
        lambda p: p.collection_request_id,
        provider=lambda p: p.psp_id,
    ),
    Refund: Listed(
        "REF",
        lambda r: r.provider_refund_id,
        _none,
        _none,
        lambda r: r.customer_id,
        lambda r: r.provider_payment_id,
    ),
    Payout: Listed(
        "PO",
        lambda p: p.provider_payout_id,
        lambda p: _kind(p.destination),
        lambda p: _wallet_network(p.destination),
        lambda p: p.customer_id,
        lambda p: p.batch_id,
    ),
    BillPayment: Listed("BILL", lambda b: b.payment_id, _none, _none, _none, lambda b: b.product_id),
    PayoutBatch: Listed("POB", lambda b: b.batch_id, _none, _none, _none, _none, lambda b: b.total),
    Dispute: Listed("DSP", lambda d: d.dispute_id, _none, _none, _none, lambda d: d.provider_payment_id),
    PspTransaction: Listed(
        "PSPTX", lambda t: t.transaction_id, lambda t: t.type, lambda t: _wallet_network(t.party), _none, _none
    ),
    # a message to a person (the console's Messages page): its channel as the method, its
    # recipient (a digest: mzpay.domain.messages.records.recipient_key) as the parent; no amount
    MessageRecord: Listed(
        "MSG",
        lambda m: m.record_id,
        lambda m: m.channel,
        _none,
        _none,
        lambda m: recipient_key(m.to),
        amount=lambda m: "0",
    ),
}
# A cash deposit is a payout of the partner (mzpay.domain.payouts.cash_deposits): it is listed
# apart from the payouts (GET /v1/cash-deposits), by the status the agent reads (pending,
# succeeded, failed).
CASH_DEPOSIT = Listed(
    "CD",
    lambda p: p.provider_payout_id,
    lambda p: _kind(p.destination),
    lambda p: _wallet_network(p.destination),
    lambda p: p.customer_id,
    _none,
    status=lambda p: DEPOSIT_STATUS[p.status],
)


def listed_of(entity: Entity) -> Listed | None:
    """How `entity` is listed (None: it is not)."""
    if isinstance(entity, Payout) and entity.cash_deposit is not None:
        return CASH_DEPOSIT
    return LISTED.get(type(entity))


def shard_of(identity: str) -> int:
    return zlib.crc32(identity.encode()) % SHARDS


def partition(prefix: str, account_id: str, mode: str, shard: int, status: str | None = None) -> str:
    if status is None:
        return f"L#{prefix}#{account_id}#{mode}#{shard}"
    return f"L#{prefix}#{account_id}#{mode}#{status}#{shard}"


def list_attributes(entity: Entity) -> dict[str, Any]:
    """The list attributes of `entity` as it is (none for a kind that is not listed)."""
    listed = listed_of(entity)
    if listed is None:
        return {}
    identity = listed.identity(entity)
    account_id, mode, shard = getattr(entity, "account_id"), getattr(entity, "mode"), shard_of(identity)  # noqa: B009
    attributes: dict[str, Any] = {
        "lpk": partition(listed.prefix, account_id, mode, shard),
        "spk": partition(listed.prefix, account_id, mode, shard, listed.status(entity)),
        "lsk": f"{getattr(entity, 'created_at')}#{identity}",  # noqa: B009
        "lamt": Decimal(listed.amount(entity)),
    }
    optional = {
        "lmethod": listed.method(entity),
        "lnetwork": listed.network(entity),
        "lcust": listed.customer(entity),
        "lparent": listed.parent(entity),
        "lprov": listed.provider(entity),
    }
    return attributes | {name: value for name, value in optional.items() if value is not None}


def with_list_attributes(update: dict[str, Any], after: Entity) -> dict[str, Any]:
    """`update` (a versioned update's TransactItem or update_item arguments) also setting the
    list attributes of the entity as the update leaves it (`after`): its status partition moves
    with its status, and an object stored before the lists existed joins them on its next change."""
    attributes = list_attributes(after)
    if not attributes:
        return update
    body = update.get("Update", update)
    sets = ", ".join(f"#la{i} = :la{i}" for i in range(len(attributes)))
    body["UpdateExpression"] = body["UpdateExpression"].replace("SET ", f"SET {sets}, ", 1)
    body["ExpressionAttributeNames"].update({f"#la{i}": name for i, name in enumerate(attributes)})
    body["ExpressionAttributeValues"].update({f":la{i}": value for i, value in enumerate(attributes.values())})
    return update
