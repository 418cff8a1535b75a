"""Payouts: statuses and the transition table of their lifecycle, the payout request (`POST
/payouts`, and the bank payout of `POST /v1/payouts`), every rule it must pass before any provider
is called, and the payout as answered.

Statuses: waiting_for_approval (an operator must approve it first), pending (accepted, waiting
for settlement), in_transit (settlement took it; once `submitted` the provider has been called),
paid, failed (failure_code says why), canceled (by the merchant before submission), rejected (by
the approver). paid, failed, canceled and rejected are terminal.

Field rules live on the models (each failure carries its spec code as the pydantic error type,
which `mzpay.http.resolver` turns into the field code); rules across fields (currency and limits
per destination) live in `check_payout`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common.entity import Reserved, Settling
from mzpay.domain.common.errors import FieldError, ServiceError, raise_field_errors
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import WALLET_EXAMPLE, examples
from mzpay.domain.money.amounts import format_amount, minor_units
from mzpay.domain.payments.charges import Money, PaymentDetails, Strict
from mzpay.domain.payouts.destinations import (
    CURRENCIES,
    LIMITS,
    MAX_DESCRIPTION_LENGTH,
    BankAccount,
    Destination,
    documented_required,
    one_of_types,
)

# ---------------------------------------------------------------- statuses and transitions


class Status:
    WAITING_FOR_APPROVAL = "waiting_for_approval"
    PENDING = "pending"
    IN_TRANSIT = "in_transit"
    PAID = "paid"
    FAILED = "failed"
    CANCELED = "canceled"
    REJECTED = "rejected"


TERMINAL = frozenset({Status.PAID, Status.FAILED, Status.CANCELED, Status.REJECTED})
# A new payout starts in one of these: waiting_for_approval when the account's payouts need an
# operator's approval, pending otherwise.
INITIAL = frozenset({Status.WAITING_FOR_APPROVAL, Status.PENDING})

# (status, action) -> the statuses the action may lead to. Anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], frozenset[str]] = {
    (Status.WAITING_FOR_APPROVAL, "approve"): frozenset({Status.PENDING}),
    (Status.WAITING_FOR_APPROVAL, "reject"): frozenset({Status.REJECTED}),
    (Status.PENDING, "settle"): frozenset({Status.IN_TRANSIT}),
    # The settlement claims the provider call (the payout's `submitted` flag turns true) in its
    # own conditional write before calling, so a payout reaches a provider at most once.
    (Status.IN_TRANSIT, "submit"): frozenset({Status.IN_TRANSIT}),
    (Status.IN_TRANSIT, "complete"): frozenset({Status.PAID, Status.FAILED}),
    (Status.PENDING, "cancel"): frozenset({Status.CANCELED}),
    (Status.IN_TRANSIT, "cancel"): frozenset({Status.CANCELED}),
}
# Actions allowed in transit only while the provider has not been called.
BEFORE_SUBMISSION = frozenset({"submit", "cancel"})

CREATED_EVENT = "payout.created"
# The event (and webhook, for paid and failed) of the status a change reaches; approve and
# submit have their own (see event_kind).
EVENT_OF_STATUS = {
    Status.WAITING_FOR_APPROVAL: "payout.waiting_for_approval",
    Status.PENDING: "payout.pending",
    Status.IN_TRANSIT: "payout.in_transit",
    Status.PAID: "payout.paid",
    Status.FAILED: "payout.failed",
    Status.CANCELED: "payout.canceled",
    Status.REJECTED: "payout.rejected",
}
EVENT_OF_ACTION = {"approve": "payout.approved", "submit": "payout.submitted"}


def ensure_transition(current: str, action: str, submitted: bool = False) -> frozenset[str]:
    """The statuses `action` may reach from `current` (`submitted`: the provider was called), or
    409 invalid_state."""
    allowed = TRANSITIONS.get((current, action))
    if allowed is not None and current == Status.IN_TRANSIT and submitted and action in BEFORE_SUBMISSION:
        allowed = None
    if allowed is None:
        verb = action.replace("_", " ")
        status = f"{current} and submitted to the provider" if submitted and current == Status.IN_TRANSIT else current
        raise ServiceError(409, "invalid_state", f"Cannot {verb} a payout that is {status}.")
    return allowed


def event_kind(action: str, status: str) -> str:
    """The event recording `action` that brought a payout to `status`."""
    return EVENT_OF_ACTION.get(action) or EVENT_OF_STATUS[status]


# ---------------------------------------------------------------- requests
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _custom(code: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


def _charge_rule(field: str, value: Any) -> Any:
    """The charges' rule for `field` (callback_url, metadata), with its codes and messages."""
    try:
        PaymentDetails.model_validate({field: value})
    except ValidationError as exc:
        error = exc.errors()[0]
        raise _custom(error["type"], error["msg"]) from None
    return value


def payout_id_rule(cls: type, value: str) -> str:
    """Field rule: the merchant's payout_id is a ULID or a UUID."""
    if not (is_ulid(value) or _UUID.fullmatch(value)):
        raise _custom("invalid_value", "payout_id must be a ULID or a UUID")
    return value


def callback_url_rule(cls: type, value: Any) -> Any:
    """Field rule: the charges' callback_url rule (invalid_callback_url)."""
    return _charge_rule("callback_url", value)


def metadata_rule(cls: type, value: Any) -> Any:
    """Field rule: the charges' metadata rules (metadata_too_large, metadata_value_too_large, ...)."""
    return _charge_rule("metadata", value)


class PayoutRequest(Strict):
    """The body of `POST /payouts`."""

    model_config = examples(
        {
            "payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8",
            "money": {"amount": "10.00", "currency": "MZN"},
            "destination": WALLET_EXAMPLE,
            "description": "Weekly settlement",
        }
    )

    payout_id: str
    money: Money
    destination: Destination
    callback_url: str | None = None
    metadata: dict[str, str] | None = None
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_LENGTH)

    _payout_id = field_validator("payout_id")(payout_id_rule)
    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)


class BankPayoutRequest(Strict):
    """The body of `POST /v1/payouts`: a bank payout (`method: bank`) to `beneficiary`."""

    model_config = documented_required(
        "method",
        "beneficiary",
        bodies=(
            {
                "payout_id": "01JDB2C4E6G8J0K2M4P6R8T0V2",
                "money": {"amount": "25000.00", "currency": "MZN"},
                "method": "bank",
                "beneficiary": {"name": "Loja Machava Lda", "account": "0003 0108 0016 3671 0237 1"},
                "description": "Settlement November",
            },
        ),
    )
    TYPES: ClassVar[tuple[str, ...]] = ("bank",)

    payout_id: str
    money: Money
    method: str = Field(default=None, validate_default=True)
    beneficiary: BankAccount = Field(default=None, validate_default=True)
    callback_url: str | None = None
    metadata: dict[str, str] | None = None
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_LENGTH)

    _payout_id = field_validator("payout_id")(payout_id_rule)
    _method = field_validator("method", mode="before")(one_of_types)
    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)

    @field_validator("beneficiary", mode="before")
    @classmethod
    def _beneficiary(cls, value: Any) -> Any:
        # Absent beneficiary: report its name and account as missing, each with its own code.
        return {} if value is None else value

    def to_payout_request(self) -> PayoutRequest:
        """The same payout as a PayoutRequest with a bank_transfer destination."""
        return PayoutRequest.model_validate(
            {
                "payout_id": self.payout_id,
                "money": self.money.model_dump(),
                "destination": {"type": "bank_transfer", "bank_transfer": self.beneficiary.model_dump()},
                "callback_url": self.callback_url,
                "metadata": self.metadata,
                "description": self.description,
            }
        )


# ---------------------------------------------------------------- rules across fields


def _raise(errors: list[FieldError]) -> None:
    raise_field_errors(errors, "payout")


def check_payout(request: PayoutRequest | BankPayoutRequest) -> None:
    """Every rule across fields (currency and amount limits of the destination); ServiceError 400
    naming each failed field: one failure answers its own code, several invalid_request."""
    if isinstance(request, BankPayoutRequest):
        request = request.to_payout_request()
    kind = request.destination.type
    currency = request.money.currency
    amount = request.money.value
    errors: list[FieldError] = []
    if currency not in CURRENCIES[kind]:
        errors.append(
            FieldError(
                "money.currency",
                "unsupported_currency",
                f"{kind} payouts take {', '.join(CURRENCIES[kind])}, not {currency}",
            )
        )
    digits = minor_units(currency)
    limits = LIMITS.get(kind, {}).get(currency)
    if -amount.as_tuple().exponent > digits:  # type: ignore[operator]
        errors.append(FieldError("money.amount", "invalid_amount", f"{currency} has {digits} fraction digits"))
    elif amount <= 0:
        errors.append(FieldError("money.amount", "invalid_amount", "amount must be above zero"))
    elif limits is not None and amount < limits.minimum:
        errors.append(
            FieldError(
                "money.amount", "amount_too_low", f"the minimum for {kind} payouts in {currency} is {limits.minimum:f}"
            )
        )
    elif limits is not None and amount > limits.maximum:
        errors.append(
            FieldError(
                "money.amount", "amount_too_high", f"the maximum for {kind} payouts in {currency} is {limits.maximum:f}"
            )
        )
    _raise(errors)


# ---------------------------------------------------------------- the payout as kept and answered


def stored_destination(destination: Destination) -> dict[str, Any]:
    """The destination as kept: type and its sub-object, NIB normalized, nothing empty."""
    return destination.model_dump(exclude_none=True)


def mask_account(account: str) -> str:
    """A bank account as shown: every digit but the last four replaced by '*'."""
    return "*" * max(len(account) - 4, 0) + account[-4:]


def shown_destination(destination: Mapping[str, Any]) -> dict[str, Any]:
    """The destination as answered: a bank account masked but for its last four digits (the
    beneficiary's name and a wallet's phone number are shown in full)."""
    shown = {key: dict(value) if isinstance(value, Mapping) else value for key, value in destination.items()}
    bank = shown.get("bank_transfer")
    if isinstance(bank, dict) and isinstance(bank.get("account"), str):
        bank["account"] = mask_account(bank["account"])
    return shown


def destination_summary(destination: Mapping[str, Any]) -> dict[str, str | None]:
    """A destination in one line for an approver (the console's payouts awaiting approval): its
    type, and the number it pays (a wallet's phone, a bank account's NIB, a crypto address) masked
    as `mask_account` masks a bank account, the last four characters kept; the network and the
    beneficiary's name as they are. Nothing else of the destination is shown."""
    kind = str(destination.get("type") or "")
    details = destination.get(kind)
    details = details if isinstance(details, Mapping) else {}
    number = next((details[name] for name in ("phone_number", "account", "address") if details.get(name)), None)
    name = details.get("name") or details.get("payee_name")
    return {
        "type": kind,
        "number": mask_account(str(number)) if number else None,
        "network": str(details["network"]) if details.get("network") else None,
        "name": str(name) if name else None,
    }


class Payout(Settling):
    """A payout: money held from the merchant's available balance and paid to a destination.
    `submitted`: the provider has been called (never again, and no cancel after it)."""

    provider_payout_id: str
    payout_id: str
    account_id: str
    mode: str
    key_id: str | None = None
    batch_id: str | None = None  # the payout batch whose line it is (docs/payouts.md, "Payout batches")
    submitted: bool = False
    currency: str
    amount: str  # a decimal string in the currency's exponent
    destination: dict[str, Any]
    callback_url: str | None = None
    metadata: dict[str, Any] | None = None
    description: str | None = None
    reservations: tuple[Reserved, ...] | None = None
    fingerprint: str
    created_at: str
    updated_at: str
    cash_deposit: dict[str, Any] | None = None  # the cash deposit it carries (domain.payouts.cash_deposits)
    customer_id: str | None = None  # the merchant's customer it is for (a restricted key finds only its own)

    @field_validator("amount", mode="before")
    @classmethod
    def _decimal_string(cls, value: Any, info: ValidationInfo) -> Any:
        """A number read back from DynamoDB becomes the decimal string it was written as."""
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return format_amount(Decimal(str(value)), info.data.get("currency", "MZN"))
        return value

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)


def payout_view(payout: Payout) -> dict[str, Any]:
    """The payout as answered (`customer_id` when it names one)."""
    view = {
        "payout_id": payout.payout_id,
        "provider_payout_id": payout.provider_payout_id,
        "status": payout.status,
        "money": {"amount": payout.amount, "currency": payout.currency},
        "destination": shown_destination(payout.destination),
        "failure_code": payout.failure_code,
        "failure_message": payout.failure_message,
        "created_at": payout.created_at,
        "processed_at": payout.updated_at,
    }
    return view | ({"customer_id": payout.customer_id} if payout.customer_id is not None else {})
