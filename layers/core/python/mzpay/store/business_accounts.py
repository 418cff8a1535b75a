"""Business accounts of the collection surface in CollectionTable: pk BIZ#<account_id>, sk ACCOUNT
(the account, with status and version), and sk REVIEW#<ulid> (one audit record per reviewer
decision, written in the decision's transaction); pk GWLINK#<gateway account id>, sk LINK: the
business that collects through that gateway account (one per gateway account, put new in the
transaction that gives the business its gateway_account_id). Every change is conditioned on the
status and version it was read with: of two racing changes exactly one lands."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.business import BusinessAccount
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import is_conditional_failure, landed
from mzpay.store.base import InCollectionTable, put_new
from mzpay.store.events import EventWrites
from mzpay.store.transitions import applied, versioned_update


class AccountChanged(Exception):
    """The account moved (or was created) since it was read."""


def _partition(account_id: str) -> str:
    return f"BIZ#{account_id}"


def _key(account_id: str) -> dict[str, str]:
    return {"pk": _partition(account_id), "sk": "ACCOUNT"}


def _link_key(gateway_account_id: str) -> dict[str, str]:
    return {"pk": f"GWLINK#{gateway_account_id}", "sk": "LINK"}


class BusinessAccounts(InCollectionTable):
    def get(self, account_id: str) -> BusinessAccount | None:
        return self.read_item(BusinessAccount, _key(account_id))

    def create(self, account: BusinessAccount) -> bool:
        """Store a new account; False when the account already exists (nothing is changed)."""
        return landed(lambda: self.put_new_item({**_key(account.account_id), **account.item()}))

    def linked_business(self, gateway_account_id: str) -> str | None:
        """The business that collects through the gateway account, if one was given it."""
        item = self.table.get_item(Key=_link_key(gateway_account_id), ConsistentRead=True).get("Item")
        return str(item["business_account_id"]) if item else None

    def transition(
        self,
        account: BusinessAccount,
        changes: dict[str, Any],
        audit: dict[str, Any] | None = None,
        events: tuple[EventWrites, list[Event]] | None = None,
    ) -> BusinessAccount:
        """Apply `changes` if the account still has the status and version it was read with, with
        its audit record (REVIEW#<audit id>) and `events` (written by the EventsTable's store: the
        message a decision sends) in the same transaction; AccountChanged otherwise.
        A change giving the account its gateway_account_id puts that account's link item too, new:
        a gateway account another business took fails it the same way."""
        update = versioned_update(self.name, _key(account.account_id), account, changes)
        items = [update]
        if audit is not None:
            record = {"pk": _partition(account.account_id), "sk": f"REVIEW#{audit['id']}", **audit}
            items.append(put_new(self.name, record))
        gateway_account_id = changes.get("gateway_account_id")
        if gateway_account_id is not None and gateway_account_id != account.gateway_account_id:
            link = {**_link_key(gateway_account_id), "business_account_id": account.account_id}
            items.append(put_new(self.name, {**link, "linked_at": changes["updated_at"]}))
        if events and events[1]:
            events[0].together(items, events[1], AccountChanged)
            return applied(account, changes)
        try:
            if len(items) == 1:
                self.client.update_item(**update["Update"])
            else:
                self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            if is_conditional_failure(exc):
                raise AccountChanged() from exc
            raise
        return applied(account, changes)

    def reviews(
        self, account_id: str, limit: int, start: dict[str, str] | None
    ) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
        """An account's audit records, newest first."""
        answer = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :review)",
            ExpressionAttributeValues={":pk": _partition(account_id), ":review": "REVIEW#"},
            ScanIndexForward=False,
            Limit=limit,
            ConsistentRead=True,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        items = [{k: v for k, v in item.items() if k not in ("pk", "sk")} for item in answer.get("Items", [])]
        return items, answer.get("LastEvaluatedKey")
