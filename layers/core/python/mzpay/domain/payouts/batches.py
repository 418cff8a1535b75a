"""Payout batches: many payouts uploaded as one batch, validated line by line, closed, released
(after an operator's approval above the account's threshold) and sent, each accepted line then a
payout like any other (docs/payouts.md, "Payout batches").

Statuses: open (uploaded, with its report of refused lines), closed (frozen, ready to release),
awaiting_approval (released above the approval threshold: an operator decides), released (the
debit account's daily total raised; its payouts are being made), sent (every accepted line is a
payout, or is reported as refused at sending), rejected (by the approver). sent and rejected are
terminal.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.accounts.limits import business_day
from mzpay.domain.common.entity import Entity, Reserved
from mzpay.domain.common.errors import ServiceError, allowed_move
from mzpay.domain.common.model import WALLET_EXAMPLE, examples
from mzpay.domain.payments.charges import Strict
from mzpay.domain.payouts.limits import PayoutLimits, limit_refusal
from mzpay.domain.payouts.rules import PayoutRequest, callback_url_rule, check_payout

MAX_LINES = 1000  # per batch; a bigger run is several batches
MAX_REFERENCE_LENGTH = 64
MAX_MESSAGE_LENGTH = 300  # a refused line's message as kept


class Status:
    OPEN = "open"
    CLOSED = "closed"
    AWAITING_APPROVAL = "awaiting_approval"
    RELEASED = "released"
    SENT = "sent"
    REJECTED = "rejected"


TERMINAL = frozenset({Status.SENT, Status.REJECTED})

# (status, action) -> the statuses the action may lead to. Anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], frozenset[str]] = {
    (Status.OPEN, "close"): frozenset({Status.CLOSED}),
    (Status.CLOSED, "release"): frozenset({Status.RELEASED, Status.AWAITING_APPROVAL}),
    (Status.AWAITING_APPROVAL, "approve"): frozenset({Status.RELEASED}),
    (Status.AWAITING_APPROVAL, "reject"): frozenset({Status.REJECTED}),
    (Status.RELEASED, "send"): frozenset({Status.SENT}),
}

# The event recording each status a batch reaches (none is posted as a webhook but
# payout_batch.sent; every one is served by the events API).
EVENT_OF_STATUS = {
    Status.OPEN: "payout_batch.created",
    Status.CLOSED: "payout_batch.closed",
    Status.AWAITING_APPROVAL: "payout_batch.awaiting_approval",
    Status.RELEASED: "payout_batch.released",
    Status.SENT: "payout_batch.sent",
    Status.REJECTED: "payout_batch.rejected",
}
RELEASED_EVENT = EVENT_OF_STATUS[Status.RELEASED]


def ensure_transition(current: str, action: str) -> frozenset[str]:
    """The statuses `action` may reach from `current`, or 409 invalid_state."""
    shown = current.replace("_", " ")
    return allowed_move(TRANSITIONS, current, action, f"Cannot {action} a payout batch that is {shown}.")


# ---------------------------------------------------------------- the upload
class PayoutBatchRequest(Strict):
    """The body of `POST /v1/payout-batches`: the batch's currency and its lines, each one what
    `POST /payouts` takes (judged one by one: a bad line is reported, never the whole upload)."""

    model_config = examples(
        {
            "reference": "Salaries 2026-11",
            "currency": "MZN",
            "lines": [
                {
                    "payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8",
                    "money": {"amount": "1500.00", "currency": "MZN"},
                    "destination": WALLET_EXAMPLE,
                    "description": "Salary November",
                }
            ],
        }
    )

    reference: str | None = Field(default=None, min_length=1, max_length=MAX_REFERENCE_LENGTH)
    currency: str
    callback_url: str | None = None
    lines: list[Any] = Field(min_length=1, max_length=MAX_LINES)

    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        if len(value) != 3 or not value.isalpha() or not value.isupper():
            raise PydanticCustomError("invalid_currency", "currency must be 3 upper-case letters, e.g. MZN")
        return value


class LineRefusal(Strict):
    """Why one line of a batch was refused: its spec code, as POST /payouts would answer it."""

    line: int  # 1 is the first element of `lines`
    payout_id: str | None = None
    code: str
    message: str
    rule: str | None = None  # a limit_exceeded line's ceiling
    errors: list[dict[str, str]] = Field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return self.model_dump()


def refusal_of(line: int, payout_id: Any, error: ServiceError) -> LineRefusal:
    """The report entry of a line that `error` refuses."""
    return LineRefusal(
        line=line,
        payout_id=payout_id if isinstance(payout_id, str) and len(payout_id) <= 64 else None,
        code=error.code,
        message=error.message[:MAX_MESSAGE_LENGTH],
        rule=error.extensions.get("rule"),
        errors=[{k: v[:MAX_MESSAGE_LENGTH] for k, v in e.as_dict().items()} for e in error.errors],
    )


def judge_line(line: int, request: PayoutRequest, currency: str, limits: PayoutLimits, seen: set[str]) -> None:
    """The rules a well-formed line must pass before anything is written: the batch's currency,
    the payout rules across fields, the per-transaction ceiling, a payout_id used once in the
    batch. Raises the ServiceError POST /payouts would answer."""
    if request.money.currency != currency:
        raise ServiceError(
            400,
            "invalid_currency",
            f"money.currency: this batch pays out {currency}, not {request.money.currency}.",
        )
    check_payout(request)
    maximum = limits.per_transaction.get(currency)
    if maximum is not None and request.money.value > maximum:
        message = f"The payout ceiling of this account is {maximum:f} {currency}."
        raise ServiceError(422, "limit_exceeded", message, rule="per_transaction")
    if request.payout_id in seen:
        raise ServiceError(409, "payout_id_reused", f"payout_id {request.payout_id} is on an earlier line.")
    seen.add(request.payout_id)


# ---------------------------------------------------------------- the batch as kept and answered
class PayoutBatch(Entity):
    """A batch of payouts of one account, mode and currency. `total` is the sum of its accepted
    lines; `release_key` names the release that moved it (its retries resume it)."""

    batch_id: str
    account_id: str
    mode: str
    key_id: str | None = None
    reference: str | None = None
    callback_url: str | None = None  # where payout_batch.sent and .rejected are posted
    currency: str
    line_count: int
    accepted: int
    refused: int
    total: str  # a decimal string in the currency's exponent
    reservations: tuple[Reserved, ...] | None = None  # the debit_daily total it raised when released
    sent_count: int | None = None
    failed_count: int | None = None  # accepted lines refused at sending (e.g. insufficient_balance)
    failure_message: str | None = None  # the approver's reason when rejected
    created_at: str
    updated_at: str
    closed_at: str | None = None
    released_at: str | None = None
    sent_at: str | None = None

    @property
    def value(self) -> Decimal:
        return Decimal(str(self.total))


class BatchLine(Strict):
    """One line as kept: the payout it asks for (accepted) or why it was refused, and once sent
    the payout made (provider_payout_id) or why sending refused it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    line: int
    payout_id: str | None = None
    request: dict[str, Any] | None = None
    refusal: dict[str, Any] | None = None
    provider_payout_id: str | None = None
    send_refusal: dict[str, Any] | None = None


def debit_window(account_id: str, mode: str, currency: str, moment: Any) -> str:
    """The counter of the debit account's releases on the Maputo business day of `moment`."""
    return f"PODEBIT#{account_id}#{mode}#{currency}#{business_day(moment)}"


def debit_refusal(ceiling: Decimal, currency: str, rejection_id: str) -> ServiceError:
    message = f"The daily batch ceiling of the debit account ({ceiling:f} {currency}) would be exceeded."
    return limit_refusal("debit_daily", message, rejection_id)  # type: ignore[no-any-return]


def batch_view(batch: PayoutBatch, lines: list[BatchLine] | None = None) -> dict[str, Any]:
    """The batch as answered: with `lines`, its report of refused lines and, once sent, the
    payout of each accepted line."""
    view: dict[str, Any] = {
        "object": "payout_batch",
        "batch_id": batch.batch_id,
        "reference": batch.reference,
        "status": batch.status,
        "mode": batch.mode,
        "total": {"amount": batch.total, "currency": batch.currency},
        "lines": batch.line_count,
        "accepted": batch.accepted,
        "refused": batch.refused,
        "sent": batch.sent_count,
        "failed": batch.failed_count,
        "failure_message": batch.failure_message,
        "created_at": batch.created_at,
        "closed_at": batch.closed_at,
        "released_at": batch.released_at,
        "sent_at": batch.sent_at,
    }
    if lines is not None:
        view["report"] = [line.refusal for line in lines if line.refusal is not None]
        view["payouts"] = (
            [
                {
                    "line": line.line,
                    "payout_id": line.payout_id,
                    "provider_payout_id": line.provider_payout_id,
                    "refusal": line.send_refusal,
                }
                for line in lines
                if line.request is not None
            ]
            if batch.status == Status.SENT
            else None
        )
    return view
