"""What the stores kept in one DynamoDB table share: the table, its low-level client (for
transactions) and its name, reading an item by its key, the conditional put of a new item and
the versioned change of an entity; the payments-table stores whose transitions write their
events in the same transaction also know the events table. Each store names its tables in its
`from_env` (`env("PAYMENTS_TABLE")`), which is where devstack.code_reach reads them; the stores
of one table alone inherit theirs (InPaymentsTable, InCollectionTable, InDirectoryTable,
InAccountsTable), as do the payments-table stores with events (PaymentsTableStore)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeVar

from pydantic import BaseModel

from mzpay.domain.common.entity import Entity
from mzpay.store.aws import env, first_failed_item, is_conditional_failure, table
from mzpay.store.transitions import applied, own_write, versioned_update

M = TypeVar("M", bound=BaseModel)
E = TypeVar("E", bound=Entity)

NEW = "attribute_not_exists(pk)"
"""The condition of a put that must not overwrite an item."""


def put_new(table_name: str, item: dict[str, Any]) -> dict[str, Any]:
    """A TransactItem putting `item`, on condition that no item has its key yet."""
    return {"Put": {"TableName": table_name, "Item": item, "ConditionExpression": NEW}}


def keyed(prefix: str, sort: str) -> Callable[[str], dict[str, str]]:
    """The key of the items kept alone in their partition: `<prefix>#<id>` / `sort` for an id."""

    def key(item_id: str) -> dict[str, str]:
        return {"pk": f"{prefix}#{item_id}", "sk": sort}

    return key


class TableStore:
    """A store kept in the table `table_name`."""

    def __init__(self, table_name: str) -> None:
        self.table = table(table_name)
        self.client = self.table.meta.client
        self.name = table_name

    def read_item(self, model: type[M], key: dict[str, str]) -> M | None:
        """The item under `key` (a consistent read) as a `model`; None when there is none."""
        item = self.table.get_item(Key=key, ConsistentRead=True).get("Item")
        return None if item is None else model.model_validate(item)

    def put_new_item(self, item: dict[str, Any]) -> None:
        """Put `item`, on condition that no item has its key yet (a refusal raises as DynamoDB's)."""
        self.table.put_item(Item=item, ConditionExpression=NEW)

    def put_unique(self, item: dict[str, Any], taken: Callable[[], BaseException]) -> None:
        """Put `item`, on condition that no item has its key yet (else raise `taken()`)."""
        try:
            self.put_new_item(item)
        except Exception as exc:
            if is_conditional_failure(exc):
                raise taken() from exc
            raise

    def change_versioned(
        self, key: dict[str, str], entity: E, changes: dict[str, Any], moved: Callable[[], BaseException]
    ) -> E:
        """Apply `changes` to `entity` (kept under `key`) if it still has the status and version
        it was read with; else raise `moved()`."""
        try:
            self.client.update_item(**versioned_update(self.name, key, entity, changes)["Update"])
        except Exception as exc:
            if is_conditional_failure(exc):
                raise moved() from exc
            raise
        return applied(entity, changes)

    def transact_new(self, items: list[dict[str, Any]], refused: Callable[[int], BaseException]) -> None:
        """Write `items` in one transaction; when a condition refuses, raise `refused(the index of
        the first item refused)`."""
        try:
            self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            raise refused(first_failed_item(exc)) from exc

    def transact_versioned(
        self,
        items: list[dict[str, Any]],
        entity: E,
        changes: dict[str, Any],
        token: str,
        reread: Callable[[], E | None],
        refused: Callable[[E | None, BaseException], BaseException],
    ) -> E:
        """Write `items` in one transaction, the first a versioned update of `entity` carrying
        `token`, and answer the entity as changed. When a condition refuses: the entity read
        again if an earlier attempt of this very write landed (see `own_write`), else raise
        `refused(the entity read again, the error)`."""
        try:
            self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            fresh = reread()
            if own_write(fresh, token):  # an earlier attempt of this very write landed
                assert fresh is not None
                return fresh
            raise refused(fresh, exc) from exc
        return applied(entity, changes, token)


class SealedTableStore(TableStore):
    """A store whose secrets are sealed with the KMS data key `key_id`."""

    def __init__(self, table_name: str, key_id: str) -> None:
        super().__init__(table_name)
        self.key_id = key_id


class UploadsTableStore(TableStore):
    """A store whose files are kept in the uploads bucket `bucket`."""

    def __init__(self, table_name: str, bucket: str) -> None:
        super().__init__(table_name)
        self.bucket = bucket


class PaymentsTableStore(TableStore):
    """A store of the PaymentsTable whose transitions write their events to the EventsTable."""

    def __init__(self, table_name: str, events_table: str) -> None:
        super().__init__(table_name)
        self.events_name = events_table

    @classmethod
    def from_env(cls) -> Self:
        return cls(env("PAYMENTS_TABLE"), env("EVENTS_TABLE"))


class InPaymentsTable(TableStore):
    """A store kept in the PaymentsTable."""

    @classmethod
    def from_env(cls) -> Self:
        return cls(env("PAYMENTS_TABLE"))


class InCollectionTable(TableStore):
    """A store kept in the CollectionTable."""

    @classmethod
    def from_env(cls) -> Self:
        return cls(env("COLLECTION_TABLE"))


class InDirectoryTable(TableStore):
    """A store kept in the DirectoryTable."""

    @classmethod
    def from_env(cls) -> Self:
        return cls(env("DIRECTORY_TABLE"))


class InAccountsTable(TableStore):
    """A store kept in the AccountsTable (of the account's home region)."""

    @classmethod
    def from_env(cls) -> Self:
        return cls(env("ACCOUNTS_TABLE"))
