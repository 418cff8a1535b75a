"""What a transaction on a customer's payment method takes from the gateway (docs/partners.md,
"Transactions"): the business's gateway account in the method's mode, and the charge of the
customer's wallet or card that pay_in and pay_bill make (named by the transaction's movement)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.payments.charges import ChargeRequest, MobileWallet, Source
from mzpay.ports.gateway import gateway
from mzpay.steps.business import gateway_account_of

NETWORKS = {"ptn_mpesa": "mpesa", "ptn_emola": "emola", "ptn_mkesh": "mkesh"}
PAYMENT_STATUS = {"succeeded": "succeeded", "failed": "failed", "canceled": "failed", "expired": "failed"}


def _principal(method: PaymentMethod) -> Principal:
    """The business's gateway account, in the method's mode."""
    return Principal.of_account(gateway_account_of(method.business_account_id), method.mode)


def _unsupported(what: str) -> ServiceError:
    return ServiceError(400, "invalid_request", what)


def _metadata(method: PaymentMethod) -> dict[str, str]:
    return {"customer_id": method.customer_id, "payment_method_id": method.pm_id}


def _source(method: PaymentMethod, kind: str) -> Source:
    """What a charge of the customer takes: its wallet or its card's token."""
    if method.type == "mobile_wallet" and method.partner_id in NETWORKS:
        wallet = MobileWallet(network=NETWORKS[method.partner_id], phone_number=method.details["phone_number"])
        return Source(type="mobile_wallet", mobile_wallet=wallet)
    if method.type == "card":
        return Source.model_validate({"type": "card", "card": {"token": method.details["card_token"]}})
    raise _unsupported(f"A {kind} takes a mobile wallet or a card, so far.")


def _pay_in(method: PaymentMethod, movement_id: str, amount: Decimal, currency: str) -> dict[str, Any]:
    source = _source(method, "pay_in")
    request = ChargeRequest(
        payment_id=movement_id,
        money={"amount": f"{amount:f}", "currency": currency},  # type: ignore[arg-type]
        source=source,
        country="MZ",
        metadata=_metadata(method),
    )
    charge = gateway().create_charge(_principal(method), request)  # the gateway's own charge path
    status = PAYMENT_STATUS.get(charge.status, "pending")
    return {
        "status": status,
        "reference": charge.provider_payment_id,
        "error_code": charge.failure_code,
        "error_message": charge.failure_message,
    }
