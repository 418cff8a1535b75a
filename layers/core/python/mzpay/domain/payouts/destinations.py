"""Where a payout goes: the destination types with their currencies and limits, each
destination's model (a mobile wallet, a bank account by NIB, manual, crypto, cheque), and the
validators the payout request and the name lookup share (`type` plus the sub-object named after
it)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, ClassVar

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common import nib
from mzpay.domain.payments.charges import Strict, phone_network_error
from mzpay.domain.payments.methods import NETWORK_PREFIXES, MethodLimits

DESTINATION_TYPES = ("mobile_wallet", "bank_transfer", "manual", "crypto", "cheque")
# Destinations without a currency listed here take MZN and USD and have no per-payout limits.
CURRENCIES: dict[str, tuple[str, ...]] = {
    "mobile_wallet": ("MZN",),
    "bank_transfer": ("MZN",),
    "manual": ("MZN", "USD"),
    "crypto": ("MZN", "USD"),
    "cheque": ("MZN", "USD"),
}
LIMITS: dict[str, dict[str, MethodLimits]] = {
    "mobile_wallet": {"MZN": MethodLimits(Decimal("1.00"), Decimal("125000.00"))},
    "bank_transfer": {"MZN": MethodLimits(Decimal("1.00"), Decimal("10000000.00"))},
}
MAX_DESCRIPTION_LENGTH = 140
MAX_NAME_LENGTH = 140
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _custom(code: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


def documented_required(*names: str, bodies: tuple[dict[str, Any], ...] = ()) -> ConfigDict:
    """Model config listing `names` as required in the JSON schema (the OpenAPI document): they
    default to None only so that their absence gets its own spec code, not pydantic's missing;
    `bodies` are the model's examples (what domain.common.model.examples documents elsewhere)."""

    def schema(document: dict[str, Any]) -> None:
        document["required"] = [*document.get("required", []), *names]
        for name in names:
            document["properties"][name].pop("default", None)
        if bodies:
            document["examples"] = list(bodies)

    return ConfigDict(json_schema_extra=schema)


def nib_account(cls: type, value: Any) -> str:
    """Field rule: a valid NIB (21 digits, MOD 97-10; spaces, dots, dashes ignored), kept
    normalized; anything else (absent included) is invalid_account."""
    if not isinstance(value, str) or not nib.is_valid(value):
        raise _custom("invalid_account", "account must be a NIB: 21 digits with valid ISO 7064 MOD 97-10 check digits")
    return nib.normalize(value)


def one_of_types(cls: Any, value: Any, info: ValidationInfo) -> str:
    """Field rule: `type` (or `method`) is one of the model's TYPES, else invalid_method."""
    if not isinstance(value, str) or value not in cls.TYPES:
        raise _custom("invalid_method", f"{info.field_name} must be one of {', '.join(cls.TYPES)}")
    return value


def without_unknown_details(cls: Any, data: Any) -> Any:
    """Model rule: with an unknown `type`, the sub-object named after it is not reported as
    another error (`{"type": "wire", "wire": {...}}` is one invalid_method)."""
    if isinstance(data, dict):
        chosen = data.get("type")
        if isinstance(chosen, str) and chosen not in cls.TYPES and chosen in data:
            data = {key: value for key, value in data.items() if key != chosen}
    return data


def named_sub_object(cls: Any, value: Any, info: ValidationInfo) -> Any:
    """Field rule of the sub-objects: the one named by `type` is there when the type needs
    details; no other one is sent (a payout goes to exactly one place)."""
    chosen = info.data.get("type")
    if chosen is None:  # type itself failed: its error says it all
        return value
    if info.field_name == chosen and value is None and chosen in cls.NEEDS_DETAILS:
        raise _custom("required", f"type {chosen} needs its details in {chosen}")
    if info.field_name != chosen and value is not None:
        raise _custom("invalid_value", f"{info.field_name} does not go with type {chosen}")
    return value


class MobileWalletDestination(Strict):
    """`{network, phone_number}`: the charges' rules (network known, E.164 Mozambican mobile
    number of that network's prefixes)."""

    model_config = documented_required("network", "phone_number")
    network: str | None = Field(default=None, validate_default=True)
    phone_number: str | None = Field(default=None, validate_default=True)

    @field_validator("network")
    @classmethod
    def _network(cls, value: str | None) -> str | None:
        if value not in NETWORK_PREFIXES:
            raise _custom("invalid_value", f"network must be one of {', '.join(NETWORK_PREFIXES)}")
        return value

    @field_validator("phone_number")
    @classmethod
    def _phone_number(cls, value: str | None, info: ValidationInfo) -> str | None:
        if not value:
            raise _custom("missing_phone", "a mobile wallet needs its phone_number")
        network = info.data.get("network")
        if network in NETWORK_PREFIXES:  # else the network's own error is reported
            problem = phone_network_error(network, value)
            if problem:
                raise _custom("invalid_phone", problem)
        return value


class BankAccount(Strict):
    """A bank payout's beneficiary: the account holder's `name` and the `account` NIB."""

    model_config = documented_required("name", "account")
    name: str = Field(default=None, validate_default=True, max_length=MAX_NAME_LENGTH)
    account: str = Field(default=None, validate_default=True)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise _custom("beneficiary_name_required", "a bank payout needs the account holder's name")
        return value.strip()

    _account = field_validator("account", mode="before")(nib_account)


class ManualDestination(Strict):
    """Paid by the merchant outside the gateway; `reference` is theirs to reconcile with."""

    reference: str | None = Field(default=None, min_length=1, max_length=140)


class CryptoDestination(Strict):
    address: str = Field(min_length=1, max_length=128)
    network: str = Field(min_length=1, max_length=32)


class ChequeDestination(Strict):
    payee_name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    delivery_address: str | None = Field(default=None, min_length=1, max_length=500)


class Destination(Strict):
    """`type` plus the sub-object named after it (optional for manual)."""

    model_config = documented_required("type")
    TYPES: ClassVar[tuple[str, ...]] = DESTINATION_TYPES
    NEEDS_DETAILS: ClassVar[frozenset[str]] = frozenset({"mobile_wallet", "bank_transfer", "crypto", "cheque"})

    type: str = Field(default=None, validate_default=True)
    mobile_wallet: MobileWalletDestination | None = Field(default=None, validate_default=True)
    bank_transfer: BankAccount | None = Field(default=None, validate_default=True)
    manual: ManualDestination | None = Field(default=None, validate_default=True)
    crypto: CryptoDestination | None = Field(default=None, validate_default=True)
    cheque: ChequeDestination | None = Field(default=None, validate_default=True)

    _type = field_validator("type", mode="before")(one_of_types)
    _details = field_validator(*DESTINATION_TYPES)(named_sub_object)
    _unknown = model_validator(mode="before")(without_unknown_details)
