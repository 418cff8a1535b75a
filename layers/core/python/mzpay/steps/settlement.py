"""The outbox's share of payouts: a new payout.created (pending) or payout.approved event sends
one message to PayoutSettlementQueue, where PayoutSettlementFunction settles the payout; a
payout_batch.released event sends one message there too, which makes the batch's payouts."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.payouts.batches import RELEASED_EVENT
from mzpay.domain.payouts.rules import CREATED_EVENT, Status


def dispatch_settlement(image: dict[str, Any]) -> bool:
    """The outbox for settlement: a new payout.created (pending) or payout.approved event sends
    one message to PayoutSettlementQueue, as does payout_batch.released (its batch is sent). A
    duplicate message is harmless (settle and send are conditional)."""
    kind = image.get("type")
    if kind == RELEASED_EVENT:
        batch_id = image.get("resource_id")
        if not isinstance(batch_id, str) or not is_ulid(batch_id):
            from mzpay.webhooks.outbox import PoisonRecord

            raise PoisonRecord("malformed_event", "a payout batch event without a batch id")
        deps.settlement_queue().send_batch(batch_id)
        return True
    status = ((image.get("data") or {}).get("object") or {}).get("status")
    if not (kind == "payout.approved" or (kind == CREATED_EVENT and status == Status.PENDING)):
        return False
    resource_id = image.get("resource_id")
    if not isinstance(resource_id, str) or not is_ulid(resource_id):
        from mzpay.webhooks.outbox import PoisonRecord

        raise PoisonRecord("malformed_event", "a payout event without a payout id")
    deps.settlement_queue().send(resource_id)
    return True
