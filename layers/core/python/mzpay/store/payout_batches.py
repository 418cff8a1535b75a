"""Payout batches in the payments table: POB#<batch_id>/BATCH (status, version, counts, total)
and POB#<batch_id>/LINE#<nnnnn>, one item per uploaded line (the payout it asks for or why it
was refused; once sent, the payout made or why sending refused it). Lines are written before
the batch item, which alone makes the batch exist: an upload that stops halfway leaves lines
nobody can reach, never half a batch. A change of status is one transaction: the versioned
update, its event and, when released, the debit account's daily total raised within its
ceiling (or, when rejected or lines could not be sent, given back). A batch awaiting approval is
also in gsi1 under PAYOUT_BATCHES#AWAITING_APPROVAL (the operators' queue)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.batches import BatchLine, PayoutBatch, Status
from mzpay.domain.webhooks.events import Event
from mzpay.store.aws import query_all
from mzpay.store.base import PaymentsTableStore, keyed, put_new
from mzpay.store.events import event_puts
from mzpay.store.list_keys import list_attributes
from mzpay.store.payments import CeilingReached, Reservation, counter_raises, counter_releases
from mzpay.store.transitions import Queue, queued, versioned_update, write_token

# A batch awaiting an operator's approval is also in gsi1 under this partition, from the
# transition that makes it wait to the one that ends the wait (the operators' queue).
AWAITING_APPROVAL = Queue("PAYOUT_BATCHES#AWAITING_APPROVAL", Status.AWAITING_APPROVAL)


_key = keyed("POB", "BATCH")


def _line_key(batch_id: str, line: int) -> dict[str, str]:
    return {"pk": f"POB#{batch_id}", "sk": f"LINE#{line:05d}"}


class PayoutBatches(PaymentsTableStore):
    def create(self, batch: PayoutBatch, lines: list[BatchLine], events: list[Event]) -> None:
        """The lines, then the batch with its event (on condition that the id is new)."""
        with self.table.batch_writer() as writer:
            for line in lines:
                writer.put_item(Item={**_line_key(batch.batch_id, line.line), **line.model_dump(exclude_none=True)})
        self.client.transact_write_items(
            TransactItems=[
                put_new(self.name, {**_key(batch.batch_id), **batch.item(), **list_attributes(batch)}),
                *event_puts(self.events_name, events),
            ]
        )

    def get(self, batch_id: str) -> PayoutBatch | None:
        return self.read_item(PayoutBatch, _key(batch_id))

    def lines(self, batch_id: str) -> list[BatchLine]:
        """Every line of the batch, in upload order."""
        items = query_all(
            self.table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :line)",
            ExpressionAttributeValues={":pk": f"POB#{batch_id}", ":line": "LINE#"},
            ConsistentRead=True,
        )
        return [BatchLine.model_validate(item) for item in items]

    def record_line(self, batch_id: str, line: int, changes: dict[str, Any]) -> None:
        """What sending made of a line (its payout, or why it was refused): written once, the same
        again when a send is resumed."""
        names = {f"#f{i}": name for i, name in enumerate(changes)}
        values = {f":v{i}": value for i, value in enumerate(changes.values())}
        self.table.update_item(
            Key=_line_key(batch_id, line),
            UpdateExpression="SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(changes))),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def awaiting_approval(
        self, size: int, start: dict[str, str] | None
    ) -> tuple[list[PayoutBatch], dict[str, str] | None]:
        """A page of the batches awaiting an operator's approval, oldest first (every account and
        mode of this region), and the key to continue after."""
        items, last = AWAITING_APPROVAL.page(self.table, size, start)
        return [PayoutBatch.model_validate(item) for item in items], last

    def transition(
        self,
        batch: PayoutBatch,
        changes: dict[str, Any],
        events: list[Event],
        reservation: Reservation | None = None,
        give_back: Decimal | None = None,
        ttl: int = 0,
    ) -> PayoutBatch:
        """Apply `changes` if the batch still has the status and version it was read with (else
        409 invalid_state), with its events, raising the debit account's daily total by
        `reservation` within its ceiling (else CeilingReached) or giving `give_back` of the total
        it raised back."""
        token = write_token()
        counters = counter_raises(self.name, (reservation,), ttl) if reservation else []
        if give_back:
            back = tuple(Reserved(key=r.key, amount=str(give_back)) for r in batch.reservations or ())
            counters += counter_releases(self.name, back, Decimal(0))
        items = [
            queued(
                versioned_update(self.name, _key(batch.batch_id), batch, _stored(changes), token),
                batch,
                batch.with_changes(changes),
                AWAITING_APPROVAL,
                batch.batch_id,
            ),
            *counters,
            *event_puts(self.events_name, events),
        ]

        def refused(_fresh: PayoutBatch | None, exc: BaseException) -> Exception:
            reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons") or []]
            failed = [code == "ConditionalCheckFailed" for code in reasons]
            if reservation is not None and failed[1:2] == [True] and not failed[0]:
                return CeilingReached(reservation)
            return ServiceError(
                409, "invalid_state", "The payout batch changed meanwhile (another request moved it first)."
            )

        return self.transact_versioned(items, batch, changes, token, lambda: self.get(batch.batch_id), refused)


def _stored(changes: dict[str, Any]) -> dict[str, Any]:
    """The changes as DynamoDB takes them (reservations as plain maps)."""
    return {
        name: [r.model_dump() for r in value]
        if isinstance(value, tuple) and value and isinstance(value[0], Reserved)
        else value
        for name, value in changes.items()
    }
