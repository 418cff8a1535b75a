"""Collection methods and collection requests in CollectionTable.

Items: CM#<method_id>/CM (gsi1: CMACC#<account_id>/<method_id>) and CR#<request_id>/CR (gsi1:
CRACC#<account_id>/<request_id>, the account's list; gsi2: CRPHONE#<E.164>/<request_id>, the
payer's list by phone, only while the request is `listed`; gsi3: DUE#<due date>#<shard>/<request_id>,
the requests due that day, only while they await payment: what the daily sweep of reminders and
overdue notices reads, sharded so that one busy day is not one hot partition). Request ids are cr_<ULID>, so both
lists read in creation order. A deleted request loses its index keys (it leaves every list) and
keeps its item for the audit.
A request with a bank reference (mzpay.domain.collection.bank_references) is listed under it:
CRREF#<account_id>#<mode>#<9-digit body> holds the body's claim (sk CLAIM, its owner: the request,
or the standing series, that holds the body in that account and mode) and one item per request
carrying it (sk CR#<request_id>, creation order).
Every change of a request is one conditional write on its status and version, with the events
it records (EventsTable) in the same transaction: the outbox delivers them to the request's
callback_url.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from mzpay.domain.collection.bank_references import REFERENCE_DIGITS, body_of
from mzpay.domain.collection.notices import awaits_payment
from mzpay.domain.collection.requests import CollectionMethod, CollectionRequest, RequestStatus
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import env, in_index, index_entry, is_conditional_failure, landed, query_pages, read_keys
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_puts, update_with_events
from mzpay.store.kyc import customer_active_check
from mzpay.store.kyc import request_link as customer_request_link
from mzpay.store.transitions import applied, versioned_update, with_index_keys


class Changed(Exception):
    """The method or request moved since it was read."""


class CustomerGone(Exception):
    """The customer a new request names was removed (or never was) when the request was written."""


_method_key = keyed("CM", "CM")


_request_key = keyed("CR", "CR")


def account_list_key(account_id: str) -> str:
    return f"CRACC#{account_id}"


def phone_list_key(mode: str, phone: str) -> str:
    """A phone's requests of one mode: a test request's link never lists live ones."""
    return f"CRPHONE#{mode}#{phone}"


DUE_SHARDS = 4  # the partitions one due date's requests are spread over


def due_list_key(day: str, shard: int) -> str:
    """The requests due on `day` (YYYY-MM-DD) of one shard."""
    return f"DUE#{day}#{shard}"


def reference_key(account_id: str, mode: str, body: str) -> str:
    """The partition of a reference body of one account and mode: its claim and its requests."""
    return f"CRREF#{account_id}#{mode}#{body}"


CLAIM = "CLAIM"
REQUEST_SORT = "CR#"
BATCH_GET_KEYS = 100  # BatchGetItem's limit


def _reference_link(request: CollectionRequest) -> dict[str, Any]:
    assert request.reference_number is not None
    return {
        "pk": reference_key(request.account_id, request.mode, body_of(request.reference_number)),
        "sk": REQUEST_SORT + request.request_id,
        "request_id": request.request_id,
        "reference_number": request.reference_number,
    }


def _due_shard(request_id: str) -> int:
    return int.from_bytes(hashlib.sha256(request_id.encode()).digest()[:4], "big") % DUE_SHARDS


def _index_keys(request: CollectionRequest) -> dict[str, str]:
    """The list keys a request in this state has (none once deleted; the due-date entry only
    while it awaits payment)."""
    if request.status == RequestStatus.DELETED:
        return {}
    keys = index_entry(account_list_key(request.account_id), request.request_id)
    if request.payer_phone and request.listed:  # a request marked not listed is in no payer's list
        keys |= index_entry(phone_list_key(request.mode, request.payer_phone), request.request_id, "gsi2")
    due = request.invoice_metadata.get("due_date")
    if due and awaits_payment(request.status):
        keys |= index_entry(due_list_key(str(due)[:10], _due_shard(request.request_id)), request.request_id, "gsi3")
    return keys


def _with_index(update: dict[str, Any], after: CollectionRequest) -> dict[str, Any]:
    """`update` (a versioned_update's Update) also setting the list keys of `after` and removing
    the ones it no longer has."""
    return with_index_keys(update, _index_keys(after), ("gsi1", "gsi2", "gsi3"))


class CollectionRequests(PaymentsTableStore):
    @classmethod
    def from_env(cls) -> CollectionRequests:
        return cls(env("COLLECTION_TABLE"), env("EVENTS_TABLE"))

    # ------------------------------------------------------------ methods
    def add_method(self, method: CollectionMethod) -> None:
        item = {
            **_method_key(method.method_id),
            **index_entry(f"CMACC#{method.account_id}", method.method_id),
            **method.item(),
        }
        self.put_new_item(item)

    def method(self, method_id: str) -> CollectionMethod | None:
        return self.read_item(CollectionMethod, _method_key(method_id))

    def methods(self, method_ids: list[str]) -> dict[str, CollectionMethod]:
        """The methods of `method_ids` that exist (read consistently), by id."""
        items = read_keys(self.client, self.name, [_method_key(i) for i in dict.fromkeys(method_ids)])
        found = (CollectionMethod.model_validate(item) for item in items)
        return {method.method_id: method for method in found}

    def methods_of(self, account_id: str, limit: int) -> list[CollectionMethod]:
        """The account's methods in creation order (at most `limit`)."""
        answer = self.table.query(**in_index(f"CMACC#{account_id}"), Limit=limit)
        return [CollectionMethod.model_validate(item) for item in answer.get("Items", [])]

    def change_method(self, method: CollectionMethod, changes: dict[str, Any]) -> CollectionMethod:
        return self.change_versioned(_method_key(method.method_id), method, changes, Changed)

    # ------------------------------------------------------------ requests
    def create(self, request: CollectionRequest, events: list[Event]) -> None:
        """Store a new request with its events, in one transaction; one that names a customer also
        lists itself among the customer's requests, on condition that the customer is still
        active (CustomerGone otherwise: a removed customer's data is never copied again)."""
        item = {**_request_key(request.request_id), **_index_keys(request), **request.item()}
        puts = [put_new(self.name, item)]
        if request.reference_number:
            puts.append(put_new(self.name, _reference_link(request)))
        if request.customer_id:
            link = customer_request_link(request.customer_id, request.request_id, request.account_id)
            puts += [put_new(self.name, link), customer_active_check(self.name, request.customer_id)]
        try:
            self.client.transact_write_items(TransactItems=[*puts, *event_puts(self.events_name, events)])
        except Exception as exc:
            if request.customer_id and is_conditional_failure(exc):
                raise CustomerGone() from exc
            raise

    def claim_reference(self, account_id: str, mode: str, body: str, owner: str) -> bool:
        """Hold the reference body `body` of the account and mode for `owner` (a request id, or a
        standing series' key): True when it is now `owner`'s (new, or held by `owner` already),
        False when another owner holds it. One conditional write: of two racing claims one wins."""
        item = {"pk": reference_key(account_id, mode, body), "sk": CLAIM, "owner": owner}
        return landed(
            lambda: self.table.put_item(
                Item=item,
                ConditionExpression="attribute_not_exists(pk) OR #owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": owner},
            )
        )

    def requests_by_reference(self, account_id: str, mode: str, reference_number: str) -> list[CollectionRequest]:
        """Every request of the account and mode that carries `reference_number`, oldest first,
        whatever its status (paid, cancelled) but deleted; none for anything that is not 11 digits."""
        if len(reference_number) != REFERENCE_DIGITS or not (reference_number.isascii() and reference_number.isdigit()):
            return []
        query = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :sort)",
            "ExpressionAttributeValues": {
                ":pk": reference_key(account_id, mode, body_of(reference_number)),
                ":sort": REQUEST_SORT,
            },
            "ConsistentRead": True,
        }
        links = [item for answer in query_pages(self.table, query) for item in answer.get("Items", [])]
        ids = [str(link["request_id"]) for link in links if link.get("reference_number") == reference_number]
        keys = [_request_key(request_id) for request_id in ids]
        items = [
            item
            for start in range(0, len(keys), BATCH_GET_KEYS)
            for item in read_keys(self.client, self.name, keys[start : start + BATCH_GET_KEYS])
        ]
        found = (CollectionRequest.model_validate(item) for item in items)
        carrying = [
            request
            for request in found
            if request.status != RequestStatus.DELETED
            and request.account_id == account_id
            and request.mode == mode
            and request.reference_number == reference_number
        ]
        return sorted(carrying, key=lambda request: (request.created_at, request.request_id))

    def get(self, request_id: str) -> CollectionRequest | None:
        return self.read_item(CollectionRequest, _request_key(request_id))

    def transition(self, request: CollectionRequest, changes: dict[str, Any], events: list[Event]) -> CollectionRequest:
        """Apply `changes` if the request still has the status and version it was read with (its
        list keys follow), with `events`, in one transaction; Changed otherwise."""
        after = applied(request, changes)
        update = _with_index(
            versioned_update(self.name, _request_key(request.request_id), request, changes)["Update"], after
        )
        update_with_events(self.client, update, self.events_name, events, Changed)
        return after

    def settle_with(
        self, request: CollectionRequest, changes: dict[str, Any], items: list[dict[str, Any]], events: list[Event]
    ) -> CollectionRequest:
        """Apply `changes` if the request still has the status and version it was read with, in
        one transaction with `items` (a recorded payment's, in the payments table, each new) and
        `events`; Changed when a condition refused (the request moved, or the payment is there
        already: the caller reads both again)."""
        after = applied(request, changes)
        update = _with_index(
            versioned_update(self.name, _request_key(request.request_id), request, changes)["Update"], after
        )
        try:
            self.client.transact_write_items(
                TransactItems=[{"Update": update}, *items, *event_puts(self.events_name, events)]
            )
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            raise Changed() from exc
        return after

    def due_on(self, day: str) -> Iterator[CollectionRequest]:
        """The requests due on `day` (YYYY-MM-DD) that await payment, shard after shard: a Query
        of the due-date index each, never a Scan."""
        for shard in range(DUE_SHARDS):
            for answer in query_pages(self.table, in_index(due_list_key(day, shard), "gsi3")):
                yield from (CollectionRequest.model_validate(item) for item in answer.get("Items", []))

    def page(
        self, list_key: str, limit: int, start: dict[str, str] | None
    ) -> tuple[list[CollectionRequest], dict[str, str] | None]:
        """A list (account_list_key or phone_list_key), newest first; the last key when more follow."""
        index = "gsi2" if list_key.startswith("CRPHONE#") else "gsi1"
        query: dict[str, Any] = {**in_index(list_key, index), "ScanIndexForward": False, "Limit": limit}
        if start is not None:
            query["ExclusiveStartKey"] = start
        answer = self.table.query(**query)
        items = [CollectionRequest.model_validate(item) for item in answer.get("Items", [])]
        return items, answer.get("LastEvaluatedKey")
