"""Customers and their KYC verifications in CollectionTable: CUST#<customer_id>/CUSTOMER and
KYC#<kyc_id>/KYC (the verification with its log's messages). A customer and its first
verification are created in one transaction; a verification changes by a conditional write on
its status and version (of two racing reviews exactly one lands).

The payer directory (docs/customers.md) reads customers by index, never by a Scan: gsi1
CUSTACC#<account_id> / <folded name>#<customer_id> (the account's directory by name, and a name
prefix's search), gsi2 CUSTPHONE#<account_id>#<E.164> and gsi3 CUSTNUIT#<account_id>#<NUIT> /
<customer_id> (exact matches). A removed customer loses its index keys. The collection requests
that name a customer are listed by a link item in the customer's partition: CUST#<customer_id> /
CR#<request_id> (request ids are ULIDs: newest last)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.directory import REMOVED, folded, nuit_key, phone_key
from mzpay.domain.collection.kyc import Customer, KycVerification
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import in_index, index_entry, is_conditional_failure
from mzpay.store.base import InCollectionTable, keyed, put_new
from mzpay.store.events import EventWrites
from mzpay.store.transitions import applied, versioned_update, with_index_keys


class VerificationChanged(Exception):
    """The verification moved since it was read."""


class CustomerChanged(Exception):
    """The customer moved since it was read (or, naming it on a request, it was removed)."""


_customer_key = keyed("CUST", "CUSTOMER")
INDEXES = ("gsi1", "gsi2", "gsi3")


def name_list_key(account_id: str) -> str:
    return f"CUSTACC#{account_id}"


def phone_list_key(account_id: str, phone: str) -> str:
    return f"CUSTPHONE#{account_id}#{phone}"


def nuit_list_key(account_id: str, nuit: str) -> str:
    return f"CUSTNUIT#{account_id}#{nuit}"


def customer_index_keys(customer: Customer) -> dict[str, str]:
    """The directory's keys of `customer` (none once removed)."""
    if customer.status == REMOVED:
        return {}
    account, customer_id = customer.account_id, customer.customer_id
    keys = index_entry(name_list_key(account), f"{folded(customer.name)}#{customer_id}")
    if customer.phone_number:
        keys |= index_entry(phone_list_key(account, phone_key(customer.phone_number)), customer_id, "gsi2")
    if customer.nuit:
        keys |= index_entry(nuit_list_key(account, nuit_key(customer.nuit)), customer_id, "gsi3")
    return keys


def customer_key(customer_id: str) -> dict[str, str]:
    """The customer item's key (its partition also holds its request links)."""
    return _customer_key(customer_id)


def request_link(customer_id: str, request_id: str, account_id: str) -> dict[str, str]:
    """The item that lists a collection request among its customer's."""
    partition = _customer_key(customer_id)["pk"]
    return {"pk": partition, "sk": f"CR#{request_id}", "request_id": request_id, "account_id": account_id}


def customer_active_check(table_name: str, customer_id: str) -> dict[str, Any]:
    """A TransactItem that holds only while the customer exists and is not removed."""
    return {
        "ConditionCheck": {
            "TableName": table_name,
            "Key": _customer_key(customer_id),
            "ConditionExpression": "attribute_exists(pk) AND #status <> :removed",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {":removed": REMOVED},
        }
    }


def list_index(list_key: str) -> str:
    """The index a directory list key is read from."""
    return {"CUSTACC": "gsi1", "CUSTPHONE": "gsi2", "CUSTNUIT": "gsi3"}[list_key.partition("#")[0]]


_kyc_key = keyed("KYC", "KYC")


class KycStore(InCollectionTable):
    def register(self, customer: Customer, verification: KycVerification) -> None:
        puts = [
            put_new(self.name, {**key, **item})
            for key, item in (
                (_customer_key(customer.customer_id), {**customer_index_keys(customer), **customer.item()}),
                (_kyc_key(verification.kyc_id), verification.item()),
            )
        ]
        self.client.transact_write_items(TransactItems=puts)

    def customer(self, customer_id: str) -> Customer | None:
        return self.read_item(Customer, _customer_key(customer_id))

    def change_customer(self, customer: Customer, changes: dict[str, Any]) -> Customer:
        """Apply `changes` if the customer still has the status and version it was read with, its
        directory keys following; CustomerChanged otherwise."""
        after = applied(customer, changes)
        update = versioned_update(self.name, _customer_key(customer.customer_id), customer, changes)["Update"]
        try:
            self.client.update_item(**with_index_keys(update, customer_index_keys(after), INDEXES))
        except Exception as exc:
            if is_conditional_failure(exc):
                raise CustomerChanged() from exc
            raise
        return after

    def customers_page(
        self, list_key: str, prefix: str, limit: int, start: dict[str, str] | None
    ) -> tuple[list[Customer], dict[str, str] | None]:
        """A page of a directory list (name_list_key, phone_list_key or nuit_list_key) in its sort
        key's order; a name list only its names starting with `prefix` (folded)."""
        index = list_index(list_key)
        query: dict[str, Any] = {**in_index(list_key, index), "Limit": limit}
        if prefix:
            query["KeyConditionExpression"] += f" AND begins_with({index}sk, :prefix)"
            query["ExpressionAttributeValues"] = {**query["ExpressionAttributeValues"], ":prefix": prefix}
        if start is not None:
            query["ExclusiveStartKey"] = start
        answer = self.table.query(**query)
        return [Customer.model_validate(item) for item in answer.get("Items", [])], answer.get("LastEvaluatedKey")

    def request_links(
        self, customer_id: str, limit: int, start: dict[str, str] | None
    ) -> tuple[list[str], dict[str, str] | None]:
        """The ids of a page of the customer's collection requests, newest first."""
        query: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :cr)",
            "ExpressionAttributeValues": {":pk": _customer_key(customer_id)["pk"], ":cr": "CR#"},
            "ScanIndexForward": False,
            "Limit": limit,
        }
        if start is not None:
            query["ExclusiveStartKey"] = start
        answer = self.table.query(**query)
        return [item["request_id"] for item in answer.get("Items", [])], answer.get("LastEvaluatedKey")

    def all_request_links(self, customer_id: str) -> list[str]:
        """Every collection request that named the customer."""
        ids: list[str] = []
        start = None
        while True:
            page, start = self.request_links(customer_id, 100, start)
            ids += page
            if start is None:
                return ids

    def verification(self, kyc_id: str) -> KycVerification | None:
        return self.read_item(KycVerification, _kyc_key(kyc_id))

    def transition(
        self,
        verification: KycVerification,
        changes: dict[str, Any],
        events: tuple[EventWrites, list[Event]] | None = None,
    ) -> KycVerification:
        """Apply `changes` on the status and version read, with `events` (an outcome's message,
        written by the EventsTable's store) in the same transaction; VerificationChanged otherwise."""
        if not events or not events[1]:
            return self.change_versioned(_kyc_key(verification.kyc_id), verification, changes, VerificationChanged)
        update = versioned_update(self.name, _kyc_key(verification.kyc_id), verification, changes)
        events[0].together([update], events[1], VerificationChanged)
        return applied(verification, changes)
