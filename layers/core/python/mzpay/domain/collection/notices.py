"""What a collection request's messages to its payer depend on (docs/notifications.md): the
address its delivery_method reaches, and whether it still awaits payment (what reminders and
overdue notices are sent for)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.requests import RequestStatus

AWAITING_PAYMENT = (RequestStatus.PENDING, RequestStatus.PARTIALLY_PAID, RequestStatus.OVERDUE)
# what reminders and overdue notices are sent for (overdue is a read status: a stored request is
# pending or partially_paid)
CONTACT_OF = {"email": "email", "sms": "phone_number"}  # a delivery_method's address in payer.contact


def awaits_payment(status: str) -> bool:
    """Whether a request of `status` is still to be paid: pending, partially_paid (what is still
    due) or overdue; paid, cancelled and deleted requests are not reminded."""
    return status in AWAITING_PAYMENT


def reaches_payer(request: dict[str, Any]) -> str | None:
    """The address a collection request's messages go to (its view's payer, by its delivery_method);
    None for erp, or no address for the method: nothing is sent."""
    payer = request.get("payer") or {}
    contact_field = CONTACT_OF.get(payer.get("delivery_method") or "")
    address = (payer.get("contact") or {}).get(contact_field) if contact_field else None
    return str(address) if address else None
