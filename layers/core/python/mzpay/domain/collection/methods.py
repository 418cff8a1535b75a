"""Collection methods (docs/collection-requests.md, "Collection methods"): what a business can be
paid through, in one mode, and whether the requests naming a method may be paid in parts
(instalments, with an optional minimum). Pure rules: no storage, no HTTP."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.collection.business import INVALID_FORMAT, NOT_FOUND, REQUIRED
from mzpay.domain.common import nib
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError
from mzpay.domain.common.errors import field_refusal as invalid
from mzpay.domain.payments.methods import METHODS, NETWORK_NAMES

MAX_AMOUNT = Decimal("10000000.00")  # a request's amount, or a method's minimum instalment, at most
AMOUNT_EXPONENT = 2
CENTS = Decimal("0.01")

# type -> the name a method of that type gets when the business gives none
METHOD_TYPES = {
    "mpesa": "M-Pesa",
    "emola": "e-Mola",
    "mkesh": "mKesh",
    "bank_transfer": "Bank transfer",
    "payment_reference": "Payment reference",
    "card": "Card",
    "simo_erv": "SIMO reference",
    "interbank": "Bank transfer (NIB)",
}
BANK_TYPES = ("simo_erv", "interbank")  # paid at a bank with the request's reference number
ENTITY_DIGITS = 5
CHECKOUT_NETWORKS = tuple(NETWORK_NAMES)  # the methods a payer pays with on the hosted checkout
MODES = ("test", "live")
MAX_METHODS_PER_REQUEST = 10
MAX_METHODS_PER_ACCOUNT = 50


class MethodStatus:
    ACTIVE = "active"
    INACTIVE = "inactive"


class CollectionMethod(Entity):
    """What a business can be paid through (cm_...): a type, a display name, the mode its
    payments run in (test: the simulator, no money moves) and a status (active, inactive)."""

    method_id: str
    account_id: str
    type: str
    name: str
    mode: str
    allow_installments: bool = False  # its requests may be paid in parts
    min_installment: Decimal | None = None  # the least one part may be (unless it pays all that is due)
    entity_number: str | None = None  # simo_erv: the business's SIMO entity (5 digits)
    nib: str | None = None  # interbank: the business's NIB (21 digits, no separators)
    allow_reuses: bool = False  # bank types: a standing reference per payer and amount (recurring bills)
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = {
            "object": "collection_method",
            "id": self.method_id,
            "account_id": self.account_id,
            "name": self.name,
            "type": self.type,
            "mode": self.mode,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if self.allow_installments:  # shown only when set: other methods answer as they always did
            view["allow_installments"] = True
            view["min_installment"] = None if self.min_installment is None else self.min_installment.quantize(CENTS)
        if self.type in BANK_TYPES:  # Kulpay's details: only the bank types have them
            where = {"entity_number": self.entity_number} if self.type == "simo_erv" else {"nib": self.nib}
            view["details"] = {
                **where,
                "allow_installments": self.allow_installments,
                "allow_reuses": self.allow_reuses,
            }
        return view

    def detail(self) -> dict[str, str]:
        """A request's collection_method_details item."""
        return {"collection_method_id": self.method_id, "name": self.name, "type": self.type, "status": self.status}


def check_method_type(method_type: str) -> None:
    if method_type not in METHOD_TYPES:
        raise invalid([FieldError("type", INVALID_FORMAT, f"one of {', '.join(METHOD_TYPES)}")])


def check_amount(currency: str, value: Decimal, field: str = "amount") -> dict[str, Any]:
    """{currency, value}: a currency the hosted checkout takes, a value over zero with at most
    two decimals and at most 10,000,000.00."""
    problems = []
    currencies = sorted(METHODS["mobile_wallet"].limits)
    if currency not in currencies:
        problems.append(FieldError(f"{field}.currency", INVALID_FORMAT, f"one of {', '.join(currencies)}"))
    if not value.is_finite() or value <= 0:
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, "a number more than zero"))
    elif value.as_tuple().exponent < -AMOUNT_EXPONENT:  # type: ignore[operator]
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, "at most two decimal places"))
    elif value > MAX_AMOUNT:
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, f"at most {MAX_AMOUNT}"))
    if problems:
        raise invalid(problems)
    return {"currency": currency, "value": value.quantize(CENTS)}


def check_details(
    method_type: str, entity_number: str | None, nib_given: str | None, allow_reuses: bool
) -> dict[str, str | None]:
    """The details of a method of `method_type`: a simo_erv method names its SIMO entity (5 digits),
    an interbank one the business's NIB (21 digits, MOD 97-10; written grouped or not); neither for
    other types, nor allow_reuses. 400 validation_error naming details.<field> otherwise. The
    details to store: {entity_number, nib} (the NIB without separators)."""
    problems = []
    wanted = {"simo_erv": "entity_number", "interbank": "nib"}.get(method_type)
    for field, value in (("entity_number", entity_number), ("nib", nib_given)):
        if field != wanted and value is not None:
            problems.append(FieldError(f"details.{field}", INVALID_FORMAT, f"not for a {method_type} method"))
        elif field == wanted and value is None:
            problems.append(FieldError(f"details.{field}", REQUIRED, f"required for {method_type} methods"))
    entity = entity_number or ""
    an_entity = len(entity) == ENTITY_DIGITS and entity.isascii() and entity.isdigit()
    if entity_number is not None and wanted == "entity_number" and not an_entity:
        problems.append(FieldError("details.entity_number", INVALID_FORMAT, "a SIMO entity: 5 digits"))
    if nib_given is not None and wanted == "nib" and not nib.is_valid(nib_given):
        problems.append(FieldError("details.nib", INVALID_FORMAT, "a NIB: 21 digits with valid check digits"))
    if allow_reuses and method_type not in BANK_TYPES:
        problems.append(FieldError("details.allow_reuses", INVALID_FORMAT, "only for simo_erv and interbank methods"))
    if problems:
        raise invalid(problems)
    return {"entity_number": entity_number, "nib": None if nib_given is None else nib.normalize(nib_given)}


def check_installments(allow: bool, least: Decimal | None) -> None:
    """A method's instalment rule: a minimum only with allow_installments, more than zero, at most
    two decimals and at most the largest amount."""
    if least is None:
        return
    problem = None
    if not allow:
        problem = "only with allow_installments true"
    elif not least.is_finite() or least <= 0:
        problem = "a number more than zero"
    elif least.as_tuple().exponent < -AMOUNT_EXPONENT:  # type: ignore[operator]
        problem = "at most two decimal places"
    elif least > MAX_AMOUNT:
        problem = f"at most {MAX_AMOUNT}"
    if problem:
        raise invalid([FieldError("min_installment", INVALID_FORMAT, problem)])


def installments_of(methods: list[CollectionMethod]) -> tuple[bool, Decimal | None]:
    """What a request naming `methods` takes: instalments when one of them allows them, each at
    least the largest minimum they set."""
    taking = [method for method in methods if method.allow_installments]
    minimums = [method.min_installment for method in taking if method.min_installment is not None]
    return bool(taking), max(minimums) if minimums else None


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise invalid([FieldError("mode", INVALID_FORMAT, "test or live")])


def check_method_status(status: str) -> None:
    if status not in (MethodStatus.ACTIVE, MethodStatus.INACTIVE):
        raise invalid([FieldError("status", INVALID_FORMAT, "active or inactive")])


def usable_methods(ids: list[str], found: dict[str, CollectionMethod], field: str = "collection_method_ids") -> str:
    """The mode of the request whose methods are `ids` (each one of `found`, the caller's own,
    read): every id names an active method of the caller's account, at most ten, no repeats, all
    of one mode. 400 validation_error naming each offending item otherwise."""
    problems = []
    if not ids:
        problems.append(FieldError(field, REQUIRED, "at least one collection method"))
    if len(ids) > MAX_METHODS_PER_REQUEST:
        problems.append(FieldError(field, INVALID_FORMAT, f"at most {MAX_METHODS_PER_REQUEST} methods"))
    if len(set(ids)) != len(ids):
        problems.append(FieldError(field, INVALID_FORMAT, "each method once"))
    for index, method_id in enumerate(ids):
        method = found.get(method_id)
        if method is None:
            problems.append(FieldError(f"{field}.{index}", NOT_FOUND, "not a collection method of this account"))
        elif method.status != MethodStatus.ACTIVE:
            problems.append(FieldError(f"{field}.{index}", INVALID_FORMAT, "the method is inactive"))
    modes = {method.mode for method in found.values() if method.method_id in ids}
    if len(modes) > 1:
        problems.append(FieldError(field, INVALID_FORMAT, "test and live methods cannot be mixed in one request"))
    if problems:
        raise invalid(problems)
    return modes.pop()
