"""Refunds and balances (merchant use cases).

A refund is claimed before the provider is called (refund, refund_id claim, the payment's
refunded total raised within what was captured, the money held in the ledger and the
refund.created event: one transaction), then the provider's answer settles it: succeeded
(the held money leaves) or failed (it comes back, and so does the payment's remainder).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mzpay import payments as payment_cases
from mzpay.connectors.base import Refunding
from mzpay.domain import expiry, ledger
from mzpay.domain.bounds import MAX_ID
from mzpay.domain.charges import Money
from mzpay.domain.errors import FieldError, ServiceError
from mzpay.domain.events import new_event
from mzpay.domain.ids import is_ulid, new_id, request_fingerprint
from mzpay.domain.money import InvalidAmount, format_amount, parse_amount
from mzpay.domain.payments import Status
from mzpay.http.principal import Principal
from mzpay.store.directory import iso
from mzpay.store.ledger import BalanceTooLow, Ledger, movement_items
from mzpay.store.refunds import RefundIdTaken, Refunds, RemainderGone
from mzpay.store.transitions import same_request


class RefundBody(BaseModel):
    """POST /v1/payments/{id}/refund: the payment is in the path."""

    model_config = ConfigDict(extra="forbid")
    refund_id: str | None = Field(default=None, min_length=1, max_length=64)
    amount: Money | None = None  # omitted: everything not refunded yet
    reason: str | None = Field(default=None, max_length=500)


class RefundRequest(RefundBody):
    """POST /refunds (spec RefundRequest)."""

    refund_id: str = Field(min_length=1, max_length=64)  # type: ignore[assignment]
    provider_payment_id: str = Field(max_length=MAX_ID)


@lru_cache(maxsize=1)
def refunds() -> Refunds:
    return Refunds.from_env()


@lru_cache(maxsize=1)
def ledger_store() -> Ledger:
    return Ledger.from_env()


def _now() -> str:
    return iso(datetime.now(UTC))


def refund_result(refund: dict[str, Any]) -> dict[str, Any]:
    """RefundResult."""
    return {
        "refund_id": refund["refund_id"],
        "provider_refund_id": refund["provider_refund_id"],
        "provider_payment_id": refund["provider_payment_id"],
        "status": refund["status"],
        "money": {"amount": refund["amount"], "currency": refund["currency"]},
        "reason": refund.get("reason"),
        "failure_code": refund.get("failure_code"),
        "failure_message": refund.get("failure_message"),
        "processed_at": refund["updated_at"],
    }


def _event(kind: str, refund: dict[str, Any], now: str) -> dict[str, Any]:
    event = new_event(
        kind,
        refund["account_id"],
        refund["mode"],
        "refund",
        refund["provider_refund_id"],
        {"object": refund_result(refund)},
        now,
    )
    if refund.get("callback_url"):
        event["callback_url"] = refund["callback_url"]
    return event


def _amount(payment: dict[str, Any], money: Money | None) -> Decimal:
    currency = payment["currency"]
    remaining = Decimal(payment["captured_amount"]) - Decimal(payment.get("refunded_amount", 0))
    if money is None:
        return remaining
    if money.currency != currency:
        raise ServiceError(
            400,
            "invalid_currency",
            f"amount.currency: refund in the payment's currency ({currency}).",
            errors=[FieldError("amount.currency", "invalid_currency", f"use {currency}")],
        )
    try:
        value = parse_amount(money.amount, currency)
    except InvalidAmount as exc:
        raise ServiceError(
            400,
            "invalid_amount",
            f"amount.amount: {exc}",
            errors=[FieldError("amount.amount", "invalid_amount", str(exc))],
        ) from exc
    if value <= 0:
        raise ServiceError(
            400,
            "invalid_amount",
            "amount.amount: a refund is more than zero.",
            errors=[FieldError("amount.amount", "invalid_amount", "more than zero")],
        )
    return value


def _exceeds(payment: dict[str, Any], amount: Decimal) -> ServiceError:
    remaining = Decimal(payment["captured_amount"]) - Decimal(payment.get("refunded_amount", 0))
    currency = payment["currency"]
    return ServiceError(
        422,
        "amount_exceeds_remaining",
        f"Only {format_amount(max(remaining, Decimal(0)), currency)} {currency} of this payment is left to refund.",
        remaining=format_amount(max(remaining, Decimal(0)), currency),
    )


def create_refund(
    principal: Principal, provider_payment_id: str, refund_id: str | None, money: Money | None, reason: str | None
) -> dict[str, Any]:
    """Refund all (amount omitted) or part of a succeeded payment: a RefundResult."""
    if refund_id is not None and not (is_ulid(refund_id) or refund_id.replace("-", "").isalnum()):
        raise ServiceError(
            400,
            "invalid_request",
            "refund_id: letters, digits and dashes.",
            errors=[FieldError("refund_id", "invalid_value", "letters, digits and dashes")],
        )
    account, mode = principal.acting_account_id, principal.mode
    body = {
        "provider_payment_id": provider_payment_id,
        "amount": money.model_dump() if money else None,
        "reason": reason,
    }
    fingerprint = request_fingerprint(body)
    if refund_id is not None:
        existing = refunds().by_refund_id(account, mode, refund_id)
        if existing is not None:
            return _replay(existing, fingerprint)
    payment = payment_cases.visible_payment(principal, provider_payment_id)
    if payment["status"] != Status.SUCCEEDED:
        raise ServiceError(409, "invalid_state", f"Cannot refund a payment that is {payment['status']}.")
    amount = _amount(payment, money)
    if amount <= 0 or amount > Decimal(payment["captured_amount"]) - Decimal(payment.get("refunded_amount", 0)):
        raise _exceeds(payment, amount)
    connector = payment_cases.connector_of(payment)
    if not isinstance(connector, Refunding):
        raise ServiceError(
            422, "not_supported", "This payment's provider cannot refund through the API.", rule="operation"
        )
    now = _now()
    currency = payment["currency"]
    provider_refund_id = new_id()
    refund: dict[str, Any] = {
        "provider_refund_id": provider_refund_id,
        "refund_id": refund_id or new_id(),
        "provider_payment_id": payment["provider_payment_id"],
        "account_id": account,
        "mode": mode,
        "status": Status.PENDING,
        "version": 1,
        "amount": format_amount(amount, currency),
        "currency": currency,
        "reason": reason,
        "callback_url": payment.get("callback_url"),
        "fingerprint": fingerprint,
        "created_at": now,
        "updated_at": now,
        **_submitting(mode, provider_refund_id),
    }
    refund = {k: v for k, v in refund.items() if v is not None}
    created = _event("refund.created", refund, now)
    held = movement_items(
        refunds().name,
        account,
        mode,
        currency,
        ledger.hold("refund.created", amount),
        created["id"],
        refund["provider_refund_id"],
        now,
    )
    try:
        refunds().create(refund, payment, [created], held)
    except RemainderGone:
        fresh = payment_cases.payments().get(provider_payment_id) or payment
        if fresh["status"] != Status.SUCCEEDED:
            raise ServiceError(409, "invalid_state", f"Cannot refund a payment that is {fresh['status']}.") from None
        raise _exceeds(fresh, amount) from None
    except BalanceTooLow:
        raise ledger.insufficient_balance(currency, amount) from None
    except RefundIdTaken:
        winner = refunds().by_refund_id(account, mode, refund["refund_id"])
        assert winner is not None
        if winner["provider_refund_id"] != refund["provider_refund_id"]:
            return _replay(winner, fingerprint)
        # else it is this very creation, landed on an attempt whose answer was lost: submit it
    if expiry.abandoned(refund, datetime.now(UTC)):  # the write landed after its lease: claim it like a retry
        return refund_result(expiry.settled_or_wait(resume(refund)))
    result = connector.refund(payment_cases.provider_call(payment), amount)
    try:
        return refund_result(_settle(refund, result.status, result.failure_code, result.failure_message))
    except ServiceError as lost:  # a retry or the sweep took the submission over meanwhile
        if lost.code != "invalid_state":
            raise
        return refund_result(expiry.settled_or_wait(refunds().get(refund["provider_refund_id"]) or refund))


def _settle(
    refund: dict[str, Any], status: str, failure_code: str | None, failure_message: str | None
) -> dict[str, Any]:
    now = _now()
    if status == Status.PENDING:  # the provider has it: never submitted again, nothing left to sweep
        return refunds().settle(refund, {**_SUBMITTED, "updated_at": now}, [], [], Decimal(0))
    amount = Decimal(refund["amount"])
    changes = {
        "status": status,
        "failure_code": failure_code,
        "failure_message": failure_message,
        "updated_at": now,
        **_SUBMITTED,
    }
    after = {**refund, **{k: v for k, v in changes.items() if v is not None}}
    event = _event(f"refund.{status}", after, now)
    if status == Status.SUCCEEDED:
        movement, give_back = ledger.paid_out("refund.succeeded", amount), Decimal(0)
    else:
        movement, give_back = ledger.released("refund.failed", amount), amount
    entries = movement_items(
        refunds().name,
        refund["account_id"],
        refund["mode"],
        refund["currency"],
        movement,
        event["id"],
        refund["provider_refund_id"],
        now,
    )
    return refunds().settle(refund, changes, [event], entries, give_back)


# A refund's submission lease and its place in the sweep's index, cleared by the provider's answer.
_SUBMITTED: dict[str, Any] = {"submit_lease_until": None, "expiry_shard": None, "due_at": None}


def _submitting(mode: str, provider_refund_id: str) -> dict[str, Any]:
    """Written with a new refund: the lease of its creating request (expiry.SUBMIT_LEASE), and the
    sweep's index entry that finds it if that request never reaches the provider."""
    lease = expiry.submission_lease(mode, datetime.now(UTC))
    return {"submit_lease_until": lease, "due_at": lease, "expiry_shard": expiry.shard(provider_refund_id)}


def resume(refund: dict[str, Any]) -> dict[str, Any]:
    """Finish a refund whose creating request wrote it (the money held) but never recorded the
    provider's answer, once its submission lease ended: one conditional write claims it (a
    concurrent retry or sweep loses and sees it as it is), then the provider is asked to refund."""
    now = datetime.now(UTC)
    if not expiry.abandoned(refund, now):
        return refund
    lease = expiry.submission_lease(refund["mode"], now)
    try:
        claimed = refunds().settle(refund, {"submit_lease_until": lease, "due_at": lease}, [], [], Decimal(0))
    except ServiceError as lost:
        if lost.code != "invalid_state":
            raise
        return refunds().get(refund["provider_refund_id"]) or refund
    payment = payment_cases.payments().get(refund["provider_payment_id"])
    if payment is None:
        raise RuntimeError(f"refund {refund['provider_refund_id']} has no payment")
    connector = payment_cases.connector_of(payment)
    if not isinstance(connector, Refunding):  # checked at creation; a binding changed since
        return _settle(claimed, Status.FAILED, "not_supported", "The provider can no longer refund this payment.")
    result = connector.refund(payment_cases.provider_call(payment), Decimal(refund["amount"]))
    return _settle(claimed, result.status, result.failure_code, result.failure_message)


def resume_refund(item: dict[str, Any]) -> int:
    """The sweep: a refund its creating request left unsubmitted is submitted (1 when it was)."""
    refund = {k: v for k, v in item.items() if k not in ("pk", "sk")}
    try:
        after = resume(refund)
    except ServiceError as refused:
        if refused.code not in ("invalid_state", "no_connector_binding"):
            raise
        return 0
    return int(after.get("version") != refund.get("version"))


def _replay(existing: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    """The refund a refund_id was claimed for; one its creating request left unsubmitted is
    submitted now (`resume`), so retrying a request that met a fault finishes it."""
    same_request(
        existing,
        fingerprint,
        "refund_id_reused",
        "This refund_id belongs to another refund (different payment, amount or reason).",
    )
    refund = {k: v for k, v in existing.items() if k != "_claim"}
    if expiry.being_submitted(refund, datetime.now(UTC)):
        raise expiry.in_progress()
    return refund_result(resume(refund))


def read_refund(principal: Principal, provider_refund_id: str) -> dict[str, Any]:
    refund = refunds().get(provider_refund_id) if is_ulid(provider_refund_id) else None
    if refund is None or refund["account_id"] != principal.acting_account_id:
        raise ServiceError(404, "not_found", "No such refund.")
    if refund["mode"] != principal.mode:
        from mzpay.http.principal import wrong_environment

        raise wrong_environment(principal.mode, refund["mode"])
    return refund_result(refund)


def balance(principal: Principal) -> dict[str, Any]:
    """GET /v1/balance: per currency, what is available (may be refunded or paid out) and held."""
    items = ledger_store().balances(principal.acting_account_id, principal.mode)
    return {
        "object": "balance",
        "mode": principal.mode,
        "balances": [
            {
                "currency": item["currency"],
                "available": format_amount(Decimal(item["available"]), item["currency"]),
                "held": format_amount(Decimal(item["held"]), item["currency"]),
            }
            for item in sorted(items, key=lambda i: i["currency"])
        ],
    }
