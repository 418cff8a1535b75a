"""PSP transactions: a payment service provider records, through the gateway, the transactions it
moved on its own rails (docs/psp-transactions.md). Each carries the PSP's `originator_reference`,
unique per account and mode: a second submission of it is 409 duplicate_originator_reference.

| type | needs | means |
|---|---|---|
| payment | `source` | money the PSP took from a payer |
| payout | `destination` | money the PSP paid out |
| refund | `original_reference` | money given back on an earlier payment of the same PSP |

A refund is refused with 422 not_refundable when its original is not a payment, is in another
currency, or when it would take the original's refunds past its amount. The PSP's own money
does not pass through the gateway's balance: a PSP transaction is recorded (status `recorded`)
and announced (`psp_transaction.recorded`), and it counts against the account's ceilings like a
charge (currency, per transaction; payments also the daily total), but it leaves the merchant
ledger alone.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common.entity import Entity, Reserved
from mzpay.domain.common.errors import FieldError, ServiceError, raise_field_errors
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.money.amounts import format_amount, minor_units
from mzpay.domain.payments.charges import Money
from mzpay.domain.payouts.destinations import Destination
from mzpay.domain.payouts.rules import callback_url_rule, metadata_rule, shown_destination

TYPES = ("payment", "payout", "refund")
RECORDED = "recorded"
RECORDED_EVENT = "psp_transaction.recorded"
MAX_REFERENCE_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 140
MAX_FUTURE_SKEW = timedelta(minutes=5)  # occurred_at may run this far ahead of our clock
REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*")
_FIELD_OF_TYPE = {"payment": "source", "payout": "destination", "refund": "original_reference"}


def _custom(code: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


def reference_rule(cls: type, value: Any, info: ValidationInfo) -> Any:
    """An originator reference: 1 to 64 characters, letters, digits and . _ : / - (not first)."""
    if value is None:
        return value
    if not isinstance(value, str) or len(value) > MAX_REFERENCE_LENGTH or not REFERENCE.fullmatch(value):
        raise _custom(
            "invalid_value",
            f"{info.field_name} must be 1 to {MAX_REFERENCE_LENGTH} letters, digits or . _ : / - "
            "(starting with a letter or digit)",
        )
    return value


class Party(Destination):
    """Who paid (a payment's `source`) or was paid (a payout's `destination`): a mobile wallet
    `{network, phone_number}` or a bank account `{name, account}` (NIB)."""

    TYPES: ClassVar[tuple[str, ...]] = ("mobile_wallet", "bank_transfer")


class PspTransactionRequest(Strict):
    """The body of `POST /v1/psp/transactions`."""

    model_config = examples(
        {
            "type": "payment",
            "originator_reference": "PSP-2026-000123",
            "money": {"amount": "250.00", "currency": "MZN"},
            "source": {
                "type": "mobile_wallet",
                "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"},
            },
            "occurred_at": "2026-11-25T08:30:00Z",
        }
    )

    type: str
    originator_reference: str
    money: Money
    source: Party | None = None
    destination: Party | None = None
    original_reference: str | None = None
    occurred_at: datetime | None = Field(default=None, description="When the PSP moved the money (UTC).")
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_LENGTH)
    callback_url: str | None = None
    metadata: dict[str, str] | None = None

    _reference = field_validator("originator_reference", "original_reference", mode="before")(reference_rule)
    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        if value not in TYPES:
            raise _custom("invalid_value", f"type must be one of {', '.join(TYPES)}")
        return str(value)

    @field_validator("occurred_at")
    @classmethod
    def _occurred_at(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return value
        if value.tzinfo is None:
            raise _custom("invalid_value", "occurred_at needs a time zone (UTC: a trailing Z)")
        if value.astimezone(UTC) > datetime.now(UTC) + MAX_FUTURE_SKEW:
            raise _custom("invalid_value", "occurred_at is in the future")
        return value.astimezone(UTC)


def check_psp_transaction(request: PspTransactionRequest) -> None:
    """Rules across fields: the amount in the currency's exponent and above zero, and exactly
    the party field the type needs (source, destination or original_reference)."""
    errors: list[FieldError] = []
    currency, amount = request.money.currency, request.money.value
    digits = minor_units(currency)
    if -amount.as_tuple().exponent > digits:  # type: ignore[operator]
        errors.append(FieldError("money.amount", "invalid_amount", f"{currency} has {digits} fraction digits"))
    elif amount <= 0:
        errors.append(FieldError("money.amount", "invalid_amount", "amount must be above zero"))
    needed = _FIELD_OF_TYPE[request.type]
    for name in _FIELD_OF_TYPE.values():
        given = getattr(request, name) is not None
        if name == needed and not given:
            errors.append(FieldError(name, "required", f"a {request.type} needs {name}"))
        elif name != needed and given:
            errors.append(FieldError(name, "invalid_value", f"{name} does not go with type {request.type}"))
    raise_field_errors(errors, "PSP transaction")


class PspTransaction(Entity):
    """One transaction a PSP recorded. A payment also keeps `refunded`, the sum of its refunds
    (raised only by a conditional write that keeps it within `amount`)."""

    transaction_id: str
    account_id: str
    mode: str
    type: str
    originator_reference: str
    amount: str
    currency: str
    refunded: Decimal | None = None
    party: dict[str, Any] | None = None  # a payment's source or a payout's destination
    original_reference: str | None = None
    original_transaction_id: str | None = None
    occurred_at: str
    description: str | None = None
    callback_url: str | None = None
    metadata: dict[str, str] | None = None
    reservations: tuple[Reserved, ...] | None = None
    fingerprint: str
    created_at: str
    updated_at: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)

    def view(self) -> dict[str, Any]:
        """The transaction as answered (a bank account masked but for its last four digits)."""
        answer: dict[str, Any] = {
            "transaction_id": self.transaction_id,
            "type": self.type,
            "status": self.status,
            "originator_reference": self.originator_reference,
            "money": {"amount": self.amount, "currency": self.currency},
        }
        if self.type == "payment":
            refunded = self.refunded or Decimal(0)
            answer["source"] = shown_destination(self.party or {})
            answer["refunded"] = {"amount": format_amount(refunded, self.currency), "currency": self.currency}
        elif self.type == "payout":
            answer["destination"] = shown_destination(self.party or {})
        else:
            answer["original_reference"] = self.original_reference
            answer["original_transaction_id"] = self.original_transaction_id
        return {
            **answer,
            "occurred_at": self.occurred_at,
            "description": self.description,
            "metadata": self.metadata or {},
            "created_at": self.created_at,
        }


def not_refundable(message: str) -> ServiceError:
    return ServiceError(422, "not_refundable", message)


def check_refund(original: PspTransaction, currency: str, amount: Decimal) -> Decimal:
    """422 not_refundable unless `original` is a payment in `currency` whose remainder covers
    `amount`; the most its `refunded` may be before this refund (the condition of its write)."""
    if original.type != "payment":
        raise not_refundable(f"{original.originator_reference} is a {original.type}; only payments are refunded.")
    if original.currency != currency:
        raise not_refundable(f"{original.originator_reference} was in {original.currency}, not {currency}.")
    remainder = original.value - (original.refunded or Decimal(0))
    if amount > remainder:
        raise not_refundable(
            f"{original.originator_reference} has {format_amount(remainder, currency)} {currency} left to refund."
        )
    return original.value - amount


def refund_above_remainder(original: PspTransaction) -> ServiceError:
    """A refund that lost its race: another refund took the remainder first."""
    return not_refundable(
        f"{original.originator_reference}: its remainder changed meanwhile and no longer covers this refund."
    )
