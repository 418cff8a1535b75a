"""A payment's receipt: once money has moved (else 409 not_receiptable), who was paid, how much,
how (the method, masked: never a whole phone or card number), the provider's reference, when
(UTC, and as Maputo's clock shows it) and what was refunded so far. The same content answers
GET /v1/payments/{id}/receipt (JSON or PDF) and the payer's printable page."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments.fiscal import FiscalDetails, short_number
from mzpay.domain.payments.methods import NETWORK_NAMES
from mzpay.domain.payments.rules import Payment

MAPUTO = timezone(timedelta(hours=2), "CAT")  # Mozambique keeps Central Africa Time all year


def masked_method(source: dict[str, Any] | None) -> dict[str, str | None]:
    """The method as a receipt shows it: type, network, and only the end of the number."""
    source = source or {}
    kind = str(source.get("type") or "")
    if kind == "mobile_wallet":
        wallet = source.get("mobile_wallet") or {}
        phone = str(wallet.get("phone_number") or "")
        network = str(wallet.get("network") or "")
        return {"type": kind, "network": NETWORK_NAMES.get(network, network), "masked": f"****{phone[-3:]}"}
    if kind == "card":
        last4 = str((source.get("card") or {}).get("last4") or "")
        return {"type": kind, "network": None, "masked": f"**** {last4}" if last4 else None}
    return {"type": kind or None, "network": None, "masked": None}


def receipt(payment: Payment, merchant: str, fiscal: FiscalDetails | None = None) -> dict[str, Any]:
    """The receipt of `payment` (paid to `merchant`, whose account's fiscal details are `fiscal`:
    None when an operator set none); 409 not_receiptable before money moved."""
    captured = Decimal(payment.captured_amount or "0")
    if captured <= 0:
        raise ServiceError(
            409,
            "not_receiptable",
            f"A receipt exists once money has moved; this payment is {payment.status}.",
        )
    currency = payment.currency
    refunded = Decimal(payment.refunded_amount or "0")
    paid_at = payment.captured_at or payment.updated_at
    moment = datetime.fromisoformat(paid_at.replace("Z", "+00:00")).astimezone(MAPUTO)
    return {
        "receipt_number": f"R-{payment.provider_payment_id}",
        "short_number": short_number(payment.provider_payment_id),
        "provider_payment_id": payment.provider_payment_id,
        "payment_id": payment.payment_id,
        "mode": payment.mode,
        "merchant": {"account_id": payment.account_id, "name": merchant},
        "description": (payment.statement or {}).get("description"),
        "amount": {"amount": format_amount(captured, currency), "currency": currency},
        "refunded": {"amount": format_amount(refunded, currency), "currency": currency},
        "net": {"amount": format_amount(captured - refunded, currency), "currency": currency},
        "method": masked_method(payment.source),
        "provider_reference": payment.provider_reference,
        "paid_at": paid_at,
        "paid_at_maputo": moment.strftime("%Y-%m-%d %H:%M"),
        "fiscal": fiscal.on_receipt(captured, currency) if fiscal is not None else None,
    }
