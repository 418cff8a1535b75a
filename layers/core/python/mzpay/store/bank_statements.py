"""Bank statements and their lines in CollectionTable (docs/bank-statements.md).

Items: BST#<mode>#<statement_id>/BST (what was imported: business, mode, format, counts) and
BSL#<mode>#<line_id>/BSL, a statement's credit line, whose id is derived from the business, the mode
and the line's identity (mzpay.domain.collection.bank_lines): putting it again finds it there, so
a statement imported twice, or two statements that overlap, store each line once. A line is in
its business's queue of its mode and status (gsi1: BSLQ#<account_id>#<mode>#<status> /
<created_at>#<line_id>, newest first). Every change of a line is one conditional write on its
status and version; applying it is a write of the request's settlement transaction
(CollectionRequests.settle_with), so the line, the payment and the request change together."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.bank_lines import StatementLine
from mzpay.store.aws import in_index, index_entry, is_conditional_failure, read_keys
from mzpay.store.base import InCollectionTable, put_new
from mzpay.store.transitions import applied, versioned_update, with_index_keys

MODES = ("live", "test")
BATCH = 100  # keys of a BatchGetItem, items of a transaction


def _line_key(mode: str, line_id: str) -> dict[str, str]:
    return {"pk": f"BSL#{mode}#{line_id}", "sk": "BSL"}


def _statement_key(mode: str, statement_id: str) -> dict[str, str]:
    return {"pk": f"BST#{mode}#{statement_id}", "sk": "BST"}


class LineMoved(Exception):
    """The line moved since it was read."""


def queue_key(account_id: str, mode: str, status: str) -> str:
    return f"BSLQ#{account_id}#{mode}#{status}"


def _queue_entry(line: StatementLine) -> dict[str, str]:
    return index_entry(queue_key(line.account_id, line.mode, line.status), f"{line.created_at}#{line.line_id}")


class BankStatements(InCollectionTable):
    def record_statement(self, mode: str, statement_id: str, item: dict[str, Any]) -> bool:
        """Keep what a statement was (once); False when it was imported before."""
        try:
            self.put_new_item({**_statement_key(mode, statement_id), **item, "mode": mode})
        except Exception as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def add_line(self, line: StatementLine) -> StatementLine:
        """Store a new line; the line as stored when it was there already (another statement or
        an earlier import brought it)."""
        try:
            self.put_new_item({**_line_key(line.mode, line.line_id), **_queue_entry(line), **line.item()})
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            stored = self.read_item(StatementLine, _line_key(line.mode, line.line_id))
            assert stored is not None  # lines are never deleted
            return stored
        return line

    def stored_of(self, lines: list[StatementLine]) -> dict[str, StatementLine]:
        """Those of `lines` stored already, as stored, by id (BatchGetItem, 100 keys a call)."""
        keys = [_line_key(line.mode, line.line_id) for line in lines]
        items = [
            item
            for at in range(0, len(keys), BATCH)
            for item in read_keys(self.client, self.name, keys[at : at + BATCH])
        ]
        found = (StatementLine.model_validate(item) for item in items)
        return {line.line_id: line for line in found}

    def add_lines(self, lines: list[StatementLine]) -> dict[str, StatementLine]:
        """Store new lines, 100 a transaction, each on condition that it is not there yet; a
        transaction refused (another import stored one of them meanwhile) stores its lines one by
        one. The lines as stored, by id."""
        stored: dict[str, StatementLine] = {}
        for at in range(0, len(lines), BATCH):
            chunk = lines[at : at + BATCH]
            puts = [
                put_new(self.name, {**_line_key(line.mode, line.line_id), **_queue_entry(line), **line.item()})
                for line in chunk
            ]
            try:
                self.client.transact_write_items(TransactItems=puts)
            except Exception as exc:
                if not is_conditional_failure(exc):
                    raise
                stored |= {line.line_id: self.add_line(line) for line in chunk}
                continue
            stored |= {line.line_id: line for line in chunk}
        return stored

    def line(self, line_id: str) -> StatementLine | None:
        """The line of this id, whichever its mode (its id is derived from its mode: one at most)."""
        items = read_keys(self.client, self.name, [_line_key(mode, line_id) for mode in MODES])
        return StatementLine.model_validate(items[0]) if items else None

    def change_item(self, line: StatementLine, changes: dict[str, Any]) -> dict[str, Any]:
        """The TransactItem changing `line` if it still has the status and version it was read
        with (its queue entry follows its status)."""
        update = versioned_update(self.name, _line_key(line.mode, line.line_id), line, changes)["Update"]
        return {"Update": with_index_keys(update, _queue_entry(applied(line, changes)), ("gsi1",))}

    def change(self, line: StatementLine, changes: dict[str, Any]) -> StatementLine:
        """Apply `changes` alone (a judgement, a dismissal); LineMoved when the line moved."""
        try:
            self.client.transact_write_items(TransactItems=[self.change_item(line, changes)])
        except Exception as exc:
            if is_conditional_failure(exc):
                raise LineMoved() from exc
            raise
        return applied(line, changes)

    def page(
        self, account_id: str, mode: str, status: str, limit: int, start: dict[str, str] | None
    ) -> tuple[list[StatementLine], dict[str, str] | None]:
        """A business's lines of one mode and status, newest first; the last key when more follow."""
        query: dict[str, Any] = {
            **in_index(queue_key(account_id, mode, status)),
            "ScanIndexForward": False,
            "Limit": limit,
        }
        if start is not None:
            query["ExclusiveStartKey"] = start
        answer = self.table.query(**query)
        items = [StatementLine.model_validate(item) for item in answer.get("Items", [])]
        return items, answer.get("LastEvaluatedKey")
