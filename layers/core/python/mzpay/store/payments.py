"""Payments and their events in DynamoDB.

Payments table: PAY#<provider_payment_id>/PAYMENT (the payment, with status and version) and
PAYID#<account>#<mode>#<payment_id>/PAYID (the merchant's payment_id, unique per account and
mode: the guard that makes a charge happen once). Events table: ACC#<account>#<mode>/EVT#<id>,
also indexed by resource (gsi1: RES#<resource_id>). A creation and every transition is ONE
TransactWriteItems with the event(s) it records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mzpay.domain.accounts.limits import AccountLimits
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.common.entity import Claimed, Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.ledger import Entry
from mzpay.domain.payments.expiry import ATTENTION
from mzpay.domain.payments.pricing import DEFAULT_SCHEDULE, Schedule
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment
from mzpay.domain.payouts.rules import Payout
from mzpay.domain.webhooks.events import Event
from mzpay.store.accounts import Limits
from mzpay.store.aws import batch_get, in_index, index_page, is_conditional_failure, landed, query_pages
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_item, event_puts
from mzpay.store.idempotency import completion_item, pending
from mzpay.store.ledger import entry_items
from mzpay.store.list_keys import list_attributes
from mzpay.store.pricing import FeeSchedules, schedule_key
from mzpay.store.pricing import parse as parse_schedule
from mzpay.store.psp_routing import pilot_item, status_item
from mzpay.store.transitions import applied, claim_of, claimed, own_write, versioned_update, write_token


class PaymentIdTaken(Exception):
    """Another request already created the payment with this payment_id."""


class CeilingReached(Exception):
    """A total the creation would raise (an account's daily total, a pilot window) would pass
    its ceiling."""

    def __init__(self, reservation: Reservation) -> None:
        super().__init__(reservation.key)
        self.reservation = reservation

    @staticmethod
    def of(reservations: tuple[Reservation, ...], first: int, refused: int) -> CeilingReached | None:
        """The ceiling a transaction met when its item `refused` is one of the counter raises of
        `reservations` (written from item `first` on); None when it is another item."""
        at = refused - first
        return CeilingReached(reservations[at]) if 0 <= at < len(reservations) else None


@dataclass(frozen=True)
class Reservation:
    """Raise the counter `key` by `amount` if the total stays within `ceiling`; `name` says
    which ceiling it is (daily, pilot daily, pilot monthly)."""

    name: str
    key: str
    amount: Decimal
    ceiling: Decimal


_key = keyed("PAY", "PAYMENT")


def _counter_key(key: str) -> dict[str, str]:
    return {"pk": key, "sk": "TOTAL"}


def _public(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("pk", "sk")}


def counter_raises(table_name: str, reservations: tuple[Reservation, ...], ttl: int) -> list[dict[str, Any]]:
    """Raise each total by its amount, on condition that it stays within its ceiling."""
    return [
        {
            "Update": {
                "TableName": table_name,
                "Key": _counter_key(reservation.key),
                "UpdateExpression": "ADD #total :amount SET #ttl = :ttl",
                "ConditionExpression": "attribute_not_exists(#total) OR #total <= :room",
                "ExpressionAttributeNames": {"#total": "total", "#ttl": "ttl"},
                "ExpressionAttributeValues": {
                    ":amount": reservation.amount,
                    ":room": reservation.ceiling - reservation.amount,
                    ":ttl": ttl,
                },
            }
        }
        for reservation in reservations
    ]


def counter_releases(
    table_name: str, reserved: tuple[Reserved, ...] | None, taken: Decimal | None
) -> list[dict[str, Any]]:
    """Give back what of each of its reservations an entity (payment, payout) did not take
    (`taken`: None while it is unsettled)."""
    if taken is None:
        return []
    unused = [(r.key, Decimal(r.amount) - taken) for r in reserved or ()]
    return [
        {
            "Update": {
                "TableName": table_name,
                "Key": _counter_key(key),
                "UpdateExpression": "ADD #total :release",
                "ExpressionAttributeNames": {"#total": "total"},
                "ExpressionAttributeValues": {":release": -amount},
            }
        }
        for key, amount in unused
        if amount > 0
    ]


@dataclass(frozen=True)
class Admission:
    """What `Payments.admission` read for a new charge."""

    claim: dict[str, Any] | None  # the payment_id's claim item, when the id was used before
    limits: AccountLimits
    statuses: dict[str, dict[str, Any]]
    pilots: dict[str, dict[str, Any]]
    schedule: Schedule = DEFAULT_SCHEDULE  # the account's fee schedule, should the charge succeed at once


def _psp_keys(psp_ids: list[str]) -> list[dict[str, str]]:
    return [{"pk": f"PSP#{psp_id}", "sk": sk} for psp_id in sorted(set(psp_ids)) for sk in ("STATUS", "PILOT")]


def _routing(
    psp_ids: list[str], items: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    statuses = {i["psp_id"]: _public(i) for i in items if i["sk"] == "STATUS"}
    for psp_id in psp_ids:
        statuses.setdefault(psp_id, {"psp_id": psp_id, "available": True, "reason": "", "updated_at": None})
    pilots = {i["psp_id"]: _public(i) for i in items if i["sk"] == "PILOT"}
    return statuses, pilots


class Payments(PaymentsTableStore):
    def _event_puts(self, events: list[Event]) -> list[dict[str, Any]]:
        return event_puts(self.events_name, events)

    def _raises(self, reservations: tuple[Reservation, ...], ttl: int) -> list[dict[str, Any]]:
        return counter_raises(self.name, reservations, ttl)

    def _releases(self, payment: Payment, taken: Decimal | None) -> list[dict[str, Any]]:
        return counter_releases(self.name, payment.reservations, taken)

    def create(
        self,
        payment: Payment,
        events: list[Event],
        reservations: tuple[Reservation, ...] = (),
        ttl: int = 0,
    ) -> None:
        """The payment, its payment_id claim, its events and the totals it raises (each within
        its ceiling): all or nothing. PaymentIdTaken or CeilingReached otherwise."""
        items = [*self.creation_items(payment), *self._raises(reservations, ttl)]
        try:
            self.client.transact_write_items(TransactItems=[*items, *self._event_puts(events)])
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons") or []]
            if "ConditionalCheckFailed" not in reasons[:2]:  # the claim held: a ceiling stopped it
                for reservation, reason in zip(reservations, reasons[2:], strict=False):
                    if reason == "ConditionalCheckFailed":
                        raise CeilingReached(reservation) from exc
            raise PaymentIdTaken() from exc

    def creation_items(self, payment: Payment) -> list[dict[str, Any]]:
        """TransactItems putting a new payment (in its lists) and the claim of its payment_id,
        each on condition that it is new (for a transaction that writes more than the payment)."""
        claim = {
            "pk": f"PAYID#{payment.account_id}#{payment.mode}#{payment.payment_id}",
            "sk": "PAYID",
            "provider_payment_id": payment.provider_payment_id,
            "fingerprint": payment.fingerprint,
        }
        return [
            put_new(self.name, {**_key(payment.provider_payment_id), **payment.item(), **list_attributes(payment)}),
            put_new(self.name, claim),
        ]

    def total(self, key: str) -> Decimal:
        item = self.table.get_item(Key=_counter_key(key), ConsistentRead=True).get("Item")
        return Decimal(item["total"]) if item else Decimal(0)

    def get(self, provider_payment_id: str) -> Payment | None:
        return self.read_item(Payment, _key(provider_payment_id))

    def with_schedule(
        self, provider_payment_id: str, account_id: str, schedules: FeeSchedules
    ) -> tuple[Payment | None, Schedule]:
        """The payment and the fee schedule of `account_id` in force now (in the table of
        `schedules`), in one consistent BatchGetItem (what a capture acts on)."""
        request = {
            self.name: {"Keys": [_key(provider_payment_id)], "ConsistentRead": True},
            schedules.name: {"Keys": [schedule_key(account_id)], "ConsistentRead": True},
        }
        items = batch_get(self.client, request)
        found, priced = items.get(self.name, []), items.get(schedules.name, [])
        payment = Payment.model_validate(found[0]) if found else None
        return payment, parse_schedule(priced[0]) if priced else DEFAULT_SCHEDULE

    def by_payment_id(self, account_id: str, mode: str, payment_id: str) -> Claimed[Payment] | None:
        key = {"pk": f"PAYID#{account_id}#{mode}#{payment_id}", "sk": "PAYID"}
        return claimed(self.table, key, "provider_payment_id", self.get)

    def transition(
        self,
        payment: Payment,
        changes: dict[str, Any],
        events: list[Event],
        taken: Decimal | None = None,
        reservations: tuple[Reservation, ...] = (),
        ttl: int = 0,
        entry: Entry | None = None,
        answer: Callable[[Payment], Any] | None = None,
    ) -> Payment:
        """Apply `changes` if the payment is still in the status and version it was read with;
        else 409 invalid_state (a concurrent request changed it first). A change to None
        removes the attribute. The same transaction gives back what of its reservations a
        settled payment did not take (`taken`), or raises new ones (a checkout being paid:
        CeilingReached when one would pass its ceiling), with its ledger `entry` (money moved).
        `answer(payment after)`: what the request answers with this outcome; the request's
        idempotency record, if it has one pending, is completed with it in the same transaction."""
        token = write_token()
        after = applied(payment, changes, token)
        completion = pending() if answer is not None else None
        rendered = completion.render(answer(after)) if completion is not None and answer is not None else None
        final = completion_item(completion, rendered) if completion is not None and rendered is not None else None
        raises = self._raises(reservations, ttl)
        items = [
            versioned_update(self.name, _key(payment.provider_payment_id), payment, changes, token),
            *raises,
            *self._event_puts(events),
            *self._releases(payment, taken),
            *entry_items(self.name, entry),
        ]
        try:
            self.client.transact_write_items(TransactItems=[*items, *([final] if final else [])])
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons") or []]
            if (
                final is not None
                and reasons[-1:] == ["ConditionalCheckFailed"]
                and not any(reason not in (None, "None") for reason in reasons[:-1])
            ):  # only the idempotency record refused (its lock was lost): write the outcome alone
                return self.transition(payment, changes, events, taken, reservations, ttl, entry)
            fresh = self.get(payment.provider_payment_id)
            if own_write(fresh, token):  # an earlier attempt of this very write landed
                assert fresh is not None
                if completion is not None:
                    completion.written = rendered
                return fresh
            if reasons[:1] != ["ConditionalCheckFailed"]:
                for reservation, reason in zip(reservations, reasons[1:], strict=False):
                    if reason == "ConditionalCheckFailed":
                        raise CeilingReached(reservation) from exc
            raise ServiceError(
                409, "invalid_state", "The payment changed meanwhile (another request moved it first)."
            ) from exc
        if completion is not None:
            completion.written = rendered
        return after

    def due_for_expiry(self, now: str, shards: int, limit: int = 100) -> list[Payment | Refund | Payout | BillPayment]:
        """Payments whose due_at has passed (the sparse `expiry` index holds only payments that
        wait to expire or, live and pending, to be reconciled), refunds whose creating request's
        lease ended or that wait to be reconciled, and live payouts in transit to reconcile,
        oldest first per shard."""
        due: list[Payment | Refund | Payout | BillPayment] = []
        for shard in range(shards):
            response = self.table.query(
                IndexName="expiry",
                KeyConditionExpression="expiry_shard = :shard AND due_at <= :now",
                ExpressionAttributeValues={":shard": f"EXP#{shard}", ":now": now},
                Limit=limit,
            )
            due += [_due_entity(item) for item in response.get("Items", [])]
        return due

    def reconciliation_cases(
        self, limit: int, after: dict[str, Any] | None = None
    ) -> tuple[list[Payment | Refund | Payout | BillPayment], dict[str, Any] | None]:
        """What waits for an operator (the expiry index's ATTENTION partition), oldest first, a
        page at a time: the objects and the key to start the next page after (None: the end)."""
        items, last = index_page(self.table, "expiry", "expiry_shard", ATTENTION, limit, after)
        return [_due_entity(item) for item in items], last

    def open_reconciliation_cases(self) -> int:
        """How many objects wait for an operator (the ATTENTION partition's size)."""
        query = {**in_index(ATTENTION, "expiry", "expiry_shard"), "Select": "COUNT"}
        return sum(int(answer.get("Count", 0)) for answer in query_pages(self.table, query))

    # ------------------------------------------------------------------ routing state
    def routing_state(self, psp_ids: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """The availability and pilot items operators wrote for `psp_ids` (one BatchGetItem);
        a PSP without an availability item is available."""
        if not psp_ids:
            return {}, {}
        items = batch_get(self.client, {self.name: {"Keys": _psp_keys(psp_ids), "ConsistentRead": True}})
        return _routing(psp_ids, items[self.name])

    def admission(
        self, limits: Limits, account_id: str, mode: str, payment_id: str | None, psp_ids: list[str]
    ) -> Admission:
        """Everything a new charge is admitted on, in one BatchGetItem: the claim of its
        payment_id (if it was used), the account's ceilings in `limits` and fee schedule (its
        table) and the routing state of the PSPs that may carry it."""
        keys = _psp_keys(psp_ids)
        claim_key = {"pk": f"PAYID#{account_id}#{mode}#{payment_id}", "sk": "PAYID"} if payment_id else None
        account_keys = [Limits.key(account_id, mode), schedule_key(account_id)]
        request: dict[str, Any] = {limits.name: {"Keys": account_keys, "ConsistentRead": True}}
        if keys or claim_key:
            request[self.name] = {"Keys": [*keys, *([claim_key] if claim_key else [])], "ConsistentRead": True}
        items = batch_get(self.client, request)
        mine = items.get(self.name, [])
        statuses, pilots = _routing(psp_ids, [i for i in mine if i["sk"] != "PAYID"]) if psp_ids else ({}, {})
        claims = [i for i in mine if i["sk"] == "PAYID"]
        account_items = {item["sk"]: item for item in items.get(limits.name, [])}
        ceilings = limits.parse(account_items.get(Limits.key(account_id, mode)["sk"]))
        priced = account_items.get(schedule_key(account_id)["sk"])
        schedule = parse_schedule(priced) if priced else DEFAULT_SCHEDULE
        return Admission(dict(claims[0]) if claims else None, ceilings, statuses, pilots, schedule)

    def claimed_payment(self, claim: dict[str, Any]) -> Claimed[Payment] | None:
        """The payment a payment_id claim (read by `admission`) names, with its fingerprint."""
        return claim_of(claim, "provider_payment_id", self.get)

    def pilot(self, psp_id: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key={"pk": f"PSP#{psp_id}", "sk": "PILOT"}, ConsistentRead=True).get("Item")
        return _public(item) if item else None

    def set_pilot(self, psp_id: str, pilot: dict[str, Any]) -> None:
        self.table.put_item(Item=pilot_item(psp_id, pilot))

    def set_psp_availability(self, psp_id: str, available: bool, reason: str, now: str) -> dict[str, Any]:
        item = status_item(psp_id, available, reason, now)
        self.table.put_item(Item=item)
        return _public(item)

    def count_attempt(self, key: str, limit: int, ttl: int) -> bool:
        """Count one more attempt under `key`; False (and nothing counted) once `limit` is reached."""
        return landed(
            lambda: self.table.update_item(
                Key=_counter_key(key),
                UpdateExpression="ADD #count :one SET #ttl = :ttl",
                ConditionExpression="attribute_not_exists(#count) OR #count < :limit",
                ExpressionAttributeNames={"#count": "count", "#ttl": "ttl"},
                ExpressionAttributeValues={":one": 1, ":limit": limit, ":ttl": ttl},
            )
        )

    def record_rejection(self, event: Event) -> None:
        """A refusal before any provider call leaves its event and nothing else."""
        self.client.put_item(TableName=self.events_name, Item=event_item(event))


def _due_entity(item: dict[str, Any]) -> Payment | Refund | Payout | BillPayment:
    """The entity of an item of the `expiry` index (its sort key names its kind)."""
    if item["sk"] == "BILLPAY":
        return BillPayment.model_validate(item)
    if item["sk"] == "REFUND":
        return Refund.model_validate(item)
    if item["sk"] == "PAYOUT":
        return Payout.model_validate(item)
    return Payment.model_validate(item)
