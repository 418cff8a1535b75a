"""GET /v1/collection-requests/{id}/notifications (docs/notifications.md): the messages sent to a
request's payer with their status, as the business that issued it reads them (another
business's request, or a deleted one: 404 not_found)."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers.messages import NotificationList
from mzpay.collection.collection_requests import own

CAUSE_PREFIX = "collection_request."


def listed(account_id: str, request_id: str) -> NotificationList:
    request = own(account_id, request_id)
    records = deps.message_records().about(request.request_id)
    data = [_view(record) for record in records if str(record.get("cause", "")).startswith(CAUSE_PREFIX)]
    return NotificationList.of({"object": "list", "data": data, "has_more": False})


def _view(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "notification",
        "cause": str(record["cause"]).partition(":")[0],
        "channel": record["channel"],
        "to": record["to"],
        "status": record["status"],
        "provider_message_id": record.get("provider_message_id"),
        "failure": record.get("failure"),
        "created_at": record["created_at"],
        "updated_at": record.get("updated_at"),
    }
