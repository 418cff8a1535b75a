"""A provider's callback with a charge's outcome (POST /callbacks/<provider>, no authorizer: the
provider's signature over the raw body authenticates it).

The callback names our payment (its reference is the payment's id); the connector bound for the
payment's method verifies the signature with the binding's secret before anything is read as an
outcome. A bad signature, an unknown reference or a payment of another connector changes
nothing; a callback for a payment that is no longer open (a duplicate, a replay, one a status
query beat) is acknowledged and changes nothing either: each outcome is applied once, by one
conditional transition (a callback that loses a race with the charge's own request, which
records PaySuite's answer, reads the payment again and applies to what it finds). Logs name the
payment, the provider's event and request id, never the body, the signature or a secret."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers.service import ProviderCallbackReceipt
from mzpay.connectors.base import Notified
from mzpay.connectors.provider_http import json_object
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.payments.rules import Status
from mzpay.observability import logger
from mzpay.steps.payments import apply_outcome, connector_of, provider_call

PROVIDERS = frozenset({"paysuite"})
OPEN = frozenset({Status.PENDING, Status.REQUIRES_ACTION})
CLOSED_UNPAID = frozenset({Status.EXPIRED, Status.CANCELED, Status.FAILED})
ATTEMPTS = 3  # a callback racing the charge's own request reads the payment again, this many times


def _ignored(status: int, code: str, message: str, log: dict[str, Any]) -> ServiceError:
    logger.warning(f"provider callback ignored: {code}", extra=log)
    return ServiceError(status, code, message)


def receive(provider: str, body: bytes, signed: str | None) -> ProviderCallbackReceipt:
    if provider not in PROVIDERS:
        raise ServiceError(404, "not_found", f"No callbacks are taken from {provider}.")
    event = json_object(body)
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    reference = str((data or {}).get("reference") or "")
    log = {
        "provider": provider,
        "provider_payment_id": reference if is_ulid(reference) else None,
        "provider_event": str(event.get("event") or "")[:64] or None,
        "provider_request_id": str(event.get("request_id") or "")[:64] or None,
    }
    payment = deps.payments().get(reference) if is_ulid(reference) else None
    if payment is None or payment.mode != "live" or payment.source is None:
        raise _ignored(404, "not_found", "No payment has this reference.", log)
    try:
        connector = connector_of(payment)
    except ServiceError:  # unbound since: nobody can verify it
        connector = None
    if not isinstance(connector, Notified):
        raise _ignored(404, "not_found", "No payment has this reference.", log)
    if not connector.verify_callback(body, signed or ""):
        raise _ignored(401, "invalid_signature", "The callback's signature does not verify.", log)
    result = connector.callback_outcome(event, provider_call(payment))
    for _attempt in range(ATTEMPTS):
        if payment.status not in OPEN or result.status not in (Status.SUCCEEDED, Status.FAILED):
            if result.status == Status.SUCCEEDED and payment.status in CLOSED_UNPAID:
                # money moved at the provider for a payment we closed: an operator settles or refunds it
                logger.error(
                    "provider says paid after the payment closed", extra={**log, "payment_status": payment.status}
                )
            logger.info("provider callback changed nothing", extra={**log, "payment_status": payment.status})
            return ProviderCallbackReceipt(received=True, applied=False, status=payment.status)
        try:
            moved = apply_outcome(payment, result, now_iso())
        except ServiceError as lost:  # the charge's own request (or a status query) wrote it meanwhile
            if lost.code != "invalid_state":
                raise
            payment = deps.payments().get(payment.provider_payment_id) or payment
            continue
        logger.info("provider callback applied", extra={**log, "payment_status": moved.status})
        return ProviderCallbackReceipt(received=True, applied=True, status=moved.status)
    raise ServiceError(503, "service_unavailable", "The payment keeps changing; send the callback again.")
