"""The charge request and every rule it must pass before any provider is called.

Field rules live on the model (each failure carries its spec code as the field code);
rules across fields (phone vs network, currency vs method, limits, open amounts, cards by
mode) live in `check_charge`.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common.bounds import Code, Email, Name, Phone, SubObject, Text, holds_card_number, url_problem
from mzpay.domain.common.errors import FieldError, raise_field_errors
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import WALLET_EXAMPLE, Strict, examples
from mzpay.domain.money.amounts import InvalidAmount, is_currency_code, minor_units, parse_amount
from mzpay.domain.payments.cards import RAW_CARD_DATA, TEST_CARDS, Card, card_errors, no_card_number, raw_card_data
from mzpay.domain.payments.methods import METHODS, NETWORK_PREFIXES
from mzpay.domain.payments.phones import national_phone, phone_fault, phone_network_error

MAX_METADATA_KEYS = 50
MAX_METADATA_KEY_LENGTH = 100
MAX_METADATA_VALUE_LENGTH = 500
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_COUNTRY = re.compile(r"[A-Z]{2}")


def _custom(code: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


MAX_AMOUNT_LENGTH = 32  # '9999999999999999999999.99' and then some


def _amount_rule(cls: type, value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_AMOUNT_LENGTH:
        raise _custom("invalid_amount", "amount must be a decimal string such as '150.00'")
    try:
        parse_amount(value)
    except InvalidAmount as exc:
        raise _custom("invalid_amount", "amount must be a non-negative decimal string such as '150.00'") from exc
    return value


def _currency_rule(cls: type, value: Any) -> str:
    if not is_currency_code(value):
        raise _custom("invalid_currency", "currency must be 3 upper-case letters (ISO 4217)")
    return str(value)


class Money(Strict):
    amount: str
    currency: str

    _amount = field_validator("amount", mode="before")(_amount_rule)
    _currency = field_validator("currency", mode="before")(_currency_rule)

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)


class MobileWallet(Strict):
    network: Code | None = None
    phone_number: Phone | None = None


class Source(Strict):
    """`type` plus a sub-object named after it (optional for methods that need no details)."""

    type: Literal["mobile_wallet", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]
    mobile_wallet: MobileWallet | None = None
    card: Card | None = None
    bank_transfer: SubObject | None = None
    reference: SubObject | None = None
    ussd: SubObject | None = None
    qr: SubObject | None = None
    bnpl: SubObject | None = None

    @field_validator("bank_transfer", "reference", "ussd", "qr", "bnpl")
    @classmethod
    def _no_card_numbers(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is not None and any(holds_card_number(item) for item in value.values()):
            raise raw_card_data()
        return value


class Customer(Strict):
    id: str | None = Field(default=None, max_length=100)
    email: Email | None = None
    name: Name | None = None

    _name = field_validator("name")(no_card_number)


def _payment_id_rule(cls: type, value: str | None) -> str | None:
    if value is not None and not (is_ulid(value) or _UUID.fullmatch(value)):
        raise _custom("invalid_value", "payment_id must be a ULID or a UUID")
    return value


class PaymentDetails(Strict):
    """What a charge and a hosted checkout share: where to call back, where to return, metadata."""

    callback_url: str | None = None
    return_url: str | None = None
    metadata: dict[str, Any] | None = None

    @field_validator("callback_url")
    @classmethod
    def _callback_url(cls, value: str | None) -> str | None:
        problem = url_problem(value) if value is not None else None
        if problem is not None:
            raise _custom("invalid_callback_url", f"callback_url must be {problem}")
        return value

    @field_validator("return_url")
    @classmethod
    def _return_url(cls, value: str | None) -> str | None:
        problem = url_problem(value, allow_path=True) if value is not None else None
        if problem is not None:
            scheme = problem == "an absolute http:// or https:// URL"
            detail = "an absolute http(s) URL or a path starting with /" if scheme else problem
            raise _custom("invalid_return_url", f"return_url must be {detail}")
        return value

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        if len(value) > MAX_METADATA_KEYS:
            raise _custom("metadata_too_large", f"metadata has more than {MAX_METADATA_KEYS} keys")
        for key, item in value.items():
            if not isinstance(item, str):
                raise _custom("invalid_value", f"metadata values must be strings ({key!r} is not)")
            if len(key) > MAX_METADATA_KEY_LENGTH or len(item) > MAX_METADATA_VALUE_LENGTH:
                raise _custom(
                    "metadata_value_too_large",
                    f"metadata keys are at most {MAX_METADATA_KEY_LENGTH} characters and values at most "
                    f"{MAX_METADATA_VALUE_LENGTH} ({key[:20]!r} is longer)",
                )
            if holds_card_number(item) or holds_card_number(key):
                raise raw_card_data()
        return value


class ChargeRequest(PaymentDetails):
    """A charge: your payment_id (a ULID or UUID, your retry key for the same charge), the money,
    where it comes from (`source`: a mobile wallet, or a card as an acquirer token) and the
    payer's country."""

    model_config = examples(
        {
            "payment_id": "01JDA6Q0Z8X4M2N7P5R3T9V1W6",
            "money": {"amount": "150.00", "currency": "MZN"},
            "source": WALLET_EXAMPLE,
            "country": "MZ",
            "metadata": {"order": "A-1001"},
        }
    )

    payment_id: str
    money: Money
    source: Source
    country: str
    customer: Customer | None = None
    open_amount: bool = False
    min_amount: Code | None = None
    max_amount: Code | None = None
    suggested_amounts: list[Code] | None = Field(default=None, max_length=10)

    _payment_id = field_validator("payment_id")(_payment_id_rule)

    @field_validator("country")
    @classmethod
    def _country(cls, value: str) -> str:
        if not _COUNTRY.fullmatch(value):
            raise _custom("invalid_value", "country must be an ISO 3166-1 alpha-2 code such as 'MZ'")
        return value


class CheckoutRequest(PaymentDetails):
    """POST /v1/payments: a hosted checkout; the payer chooses how to pay on its page."""

    model_config = examples(
        {"amount": "250.00", "currency": "MZN", "description": "Order A-1001", "return_url": "/thank-you"}
    )

    amount: str
    currency: str
    payment_id: str | None = None  # the merchant's own id (ULID or UUID); one is made when absent
    expires_in: int | None = None  # seconds the payer has (see CHECKOUT_EXPIRY)
    description: Text | None = None  # what the payer pays for, shown on the hosted page

    _description = field_validator("description")(no_card_number)

    _amount = field_validator("amount", mode="before")(_amount_rule)
    _currency = field_validator("currency", mode="before")(_currency_rule)
    _payment_id = field_validator("payment_id")(_payment_id_rule)

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)


def _raise(errors: list[FieldError]) -> None:
    raise_field_errors(errors, "charge")


def check_charge(request: ChargeRequest, mode: str, card_on_page: bool = False) -> None:
    """Every rule across fields; ServiceError 400 naming each failed field. `card_on_page`: the
    hosted checkout's live card choice, a card the provider's own page takes (no card data here)."""
    errors: list[FieldError] = []
    source = request.source
    method = METHODS[source.type]
    currency = request.money.currency
    if source.type == "mobile_wallet":
        wallet = source.mobile_wallet or MobileWallet()
        if wallet.network not in NETWORK_PREFIXES:
            errors.append(
                FieldError(
                    "source.mobile_wallet.network",
                    "invalid_value",
                    f"network must be one of {', '.join(NETWORK_PREFIXES)}",
                )
            )
        if not wallet.phone_number:
            errors.append(
                FieldError(
                    "source.mobile_wallet.phone_number",
                    "missing_phone",
                    "a mobile-wallet charge needs the payer's phone_number",
                )
            )
        elif wallet.network in NETWORK_PREFIXES:
            problem = phone_network_error(wallet.network, wallet.phone_number)
            if problem:
                errors.append(FieldError("source.mobile_wallet.phone_number", "invalid_phone", problem))
    elif source.type == "card" and not (card_on_page and mode == "live" and source.card is None):
        errors += card_errors(source.card or Card(), mode)
    if currency not in method.limits:
        errors.append(
            FieldError(
                "money.currency",
                "unsupported_currency",
                f"{source.type} takes {', '.join(sorted(method.limits))}, not {currency}",
            )
        )
    errors += _amount_errors(request, method.limits.get(currency))
    _raise(errors)


def _amount_errors(request: ChargeRequest, limits: Any) -> list[FieldError]:
    currency = request.money.currency
    amount = request.money.value
    digits = minor_units(currency)
    errors: list[FieldError] = []
    if -amount.as_tuple().exponent > digits:  # type: ignore[operator]
        errors.append(FieldError("money.amount", "invalid_amount", f"{currency} has {digits} fraction digits"))
        return errors
    if request.open_amount:
        if amount != 0:
            errors.append(FieldError("money.amount", "invalid_amount", "an open-amount charge has amount 0"))
        bounds: dict[str, Decimal] = {}
        for name in ("min_amount", "max_amount"):
            text = getattr(request, name)
            try:
                bounds[name] = parse_amount(text, currency) if text is not None else Decimal(0)
            except InvalidAmount:
                errors.append(FieldError(name, "invalid_amount", f"{name} must be a decimal string"))
        minimum, maximum = bounds.get("min_amount", Decimal(0)), bounds.get("max_amount", Decimal(0))
        if request.max_amount is not None and "max_amount" in bounds and "min_amount" in bounds and maximum < minimum:
            errors.append(FieldError("max_amount", "invalid_amount", "max_amount is below min_amount"))
        for index, text in enumerate(request.suggested_amounts or []):
            try:
                value = parse_amount(text, currency)
            except InvalidAmount:
                errors.append(FieldError(f"suggested_amounts.{index}", "invalid_amount", "not a decimal string"))
                continue
            if value < minimum or (request.max_amount is not None and value > maximum) or value == 0:
                errors.append(
                    FieldError(
                        f"suggested_amounts.{index}",
                        "invalid_amount",
                        "suggested amounts lie between min_amount and max_amount",
                    )
                )
        return errors
    if any(v is not None for v in (request.min_amount, request.max_amount, request.suggested_amounts)):
        errors.append(
            FieldError(
                "open_amount", "invalid_request", "min_amount, max_amount and suggested_amounts need open_amount: true"
            )
        )
    if amount == 0:
        errors.append(FieldError("money.amount", "invalid_amount", "amount must be above zero"))
    elif limits is not None and amount < limits.minimum:
        errors.append(
            FieldError(
                "money.amount",
                "amount_too_low",
                f"the minimum for {request.source.type} in {currency} is {limits.minimum:f}",
            )
        )
    elif limits is not None and amount > limits.maximum:
        errors.append(
            FieldError(
                "money.amount",
                "amount_too_high",
                f"the maximum for {request.source.type} in {currency} is {limits.maximum:f}",
            )
        )
    return errors


__all__ = [
    "RAW_CARD_DATA",
    "TEST_CARDS",
    "Card",
    "ChargeRequest",
    "CheckoutRequest",
    "MobileWallet",
    "Money",
    "PaymentDetails",
    "Source",
    "check_charge",
    "national_phone",
    "phone_fault",
    "phone_network_error",
]
