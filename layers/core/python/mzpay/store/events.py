"""Reading the event store: ACC#<account>#<mode>/EVT#<ulid> (so a partition reads in time
order), and gsi1 RES#<resource_id>/EVT#<ulid> per resource. Events are written only inside
the transactions that change state (the entity stores use event_puts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import env, index_entry, is_conditional_failure
from mzpay.store.base import TableStore, put_new


def event_item(event: Event) -> dict[str, Any]:
    return {
        "pk": f"ACC#{event.account_id}#{event.mode}",
        "sk": f"EVT#{event.id}",
        **index_entry(f"RES#{event.resource_id}", f"EVT#{event.id}"),
        **event.item(),
    }


def event_puts(events_table: str, events: list[Event]) -> list[dict[str, Any]]:
    """TransactItems writing immutable events (never over an existing one)."""
    return [put_new(events_table, event_item(e)) for e in events]


def update_with_events(
    client: Any, update: dict[str, Any], events_table: str, events: list[Event], refused: Callable[[], BaseException]
) -> None:
    """Apply `update` (an Update's body), in one transaction with the puts of `events` (to
    `events_table`) when there are any; raise `refused()` when its condition fails."""
    try:
        if events:
            client.transact_write_items(TransactItems=[{"Update": update}, *event_puts(events_table, events)])
        else:
            client.update_item(**update)
    except Exception as exc:
        if is_conditional_failure(exc):
            raise refused() from exc
        raise


class EventWrites(TableStore):
    """Another table's change written with events in one transaction, for the stores whose
    changes have no event of their own but may send a message (docs/notifications.md): a
    decision on a business, a KYC outcome, a transaction with notify_customer."""

    @classmethod
    def from_env(cls) -> EventWrites:
        return cls(env("EVENTS_TABLE"))

    def together(self, items: list[dict[str, Any]], events: list[Event], refused: Callable[[], BaseException]) -> None:
        """Write `items` (TransactItems of another table) and put `events`, in one transaction;
        raise `refused()` when a condition fails."""
        try:
            self.client.transact_write_items(TransactItems=[*items, *event_puts(self.name, events)])
        except Exception as exc:
            if is_conditional_failure(exc):
                raise refused() from exc
            raise


class Events(TableStore):
    @classmethod
    def from_env(cls) -> Events:
        return cls(env("EVENTS_TABLE"))

    def get(self, account_id: str, mode: str, event_id: str) -> Event | None:
        item = self.table.get_item(Key={"pk": f"ACC#{account_id}#{mode}", "sk": f"EVT#{event_id}"}).get("Item")
        return Event.from_item(item) if item else None

    def by_key(self, pk: str, sk: str) -> dict[str, Any] | None:
        """The raw stored item under (pk, sk), read consistently: operators replay it to the
        outbox as the stream image it was (see operators.dispatch_failures)."""
        item = self.table.get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def page(
        self,
        account_id: str,
        mode: str,
        limit: int,
        after: dict[str, Any] | None,
        event_type: str | None = None,
        resource_id: str | None = None,
    ) -> tuple[list[Event], dict[str, Any] | None]:
        """Newest first; `after` is the previous page's last key. Filters apply within the
        partition read, so a filtered page may hold fewer than `limit` events and still go on."""
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        filters = []
        if resource_id is not None:
            query: dict[str, Any] = {"IndexName": "gsi1", "KeyConditionExpression": "gsi1pk = :pk"}
            values[":pk"] = f"RES#{resource_id}"
            names |= {"#account": "account_id", "#mode": "mode"}
            values |= {":account": account_id, ":mode": mode}
            filters.append("#account = :account AND #mode = :mode")
        else:
            query = {"KeyConditionExpression": "pk = :pk"}
            values[":pk"] = f"ACC#{account_id}#{mode}"
        if event_type is not None:
            names["#type"] = "type"
            values[":type"] = event_type
            filters.append("#type = :type")
        if filters:
            query["FilterExpression"] = " AND ".join(filters)
        if names:
            query["ExpressionAttributeNames"] = names
        if after:
            query["ExclusiveStartKey"] = after
        response = self.table.query(**query, ExpressionAttributeValues=values, ScanIndexForward=False, Limit=limit)
        return [Event.from_item(i) for i in response.get("Items", [])], response.get("LastEvaluatedKey")
