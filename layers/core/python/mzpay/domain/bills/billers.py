"""Billers and their bill products (docs/bills.md), administered by operators.

A biller (an electricity utility, a water company, a TV operator, a school) is paid through
channels: merchants whose customers pay bills at their counters, apps or agents. Its products:

| kind | what the payer pays |
|---|---|
| fixed | exactly `price` (a TV package) |
| denominations | one of `denominations` (airtime) |
| open | any amount from `min_amount` to `max_amount` (prepaid electricity) |
| invoice | what an open invoice owes (less: `invoice.allow_partial`; more: `invoice.allow_overpayment`) |

A product may carry a fee (`fee.bearer`: the payer pays it on top, the channel pays it from its
float, or the biller has it deducted) and a discount (`discount.bearer`: the biller or the
channel funds it). A contradictory configuration is 422 fee_bearer_conflict (`fee_conflicts`).
A biller owned by its origin back-office system keeps its commercial fields (name, category,
logo, credit account) and cannot be retired here: 409 owned_by_origin.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal, TypedDict

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.common import nib
from mzpay.domain.common.bounds import MAX_CODE, url_problem
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import StrictText, examples
from mzpay.domain.money.amounts import InvalidAmount, is_currency_code, minor_units, parse_amount

CATEGORIES = ("electricity", "water", "tv", "airtime", "education", "municipal", "other")
KINDS = ("fixed", "denominations", "open", "invoice")
ACTIVE, PAUSED, RETIRED = "active", "paused", "retired"
COMMERCIAL = ("name", "category", "logo_url", "credit_account")
MAX_BILLER_NAME = 100
MAX_DENOMINATIONS = 20
MAX_AMOUNT_TEXT = 32

Category = Literal["electricity", "water", "tv", "airtime", "education", "municipal", "other"]


def positive_amount(value: Any) -> str:
    """A positive decimal string with at most two fraction digits (MZN)."""
    if not isinstance(value, str) or len(value) > MAX_AMOUNT_TEXT:
        raise PydanticCustomError("invalid_amount", "a positive decimal string such as '150.00'")
    try:
        amount = parse_amount(value, "MZN")
    except InvalidAmount as exc:
        raise PydanticCustomError("invalid_amount", "a positive decimal string such as '150.00'") from exc
    if amount <= 0:
        raise PydanticCustomError("invalid_amount", "a positive decimal string such as '150.00'")
    return f"{amount:.2f}"


def _optional_amount(cls: type, value: Any) -> Any:
    return None if value is None else positive_amount(value)


def _optional_ulid(cls: type, value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not is_ulid(value)):
        raise PydanticCustomError("invalid_value", "must be a ULID")
    return value


def _logo_url(cls: type, value: Any) -> Any:
    if value is None:
        return None
    problem = url_problem(value) if isinstance(value, str) else "must be a URL"
    if problem is not None or not str(value).startswith("https://"):
        raise PydanticCustomError("invalid_value", "logo_url must be an https:// URL")
    return value


def _credit_account(cls: type, value: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_CODE or not nib.is_valid(value):
        raise PydanticCustomError("invalid_account", "credit_account must be a valid NIB (21 digits, MOD 97-10)")
    return nib.normalize(value)


# ---------------------------------------------------------------- billers
class BillerIn(StrictText):
    """The body of `POST /v1/billers` (management)."""

    model_config = examples(
        {
            "name": "EDM - Electricidade de Moçambique",
            "category": "electricity",
            "logo_url": "https://www.edm.co.mz/logo.png",
            "credit_account": "0003 0108 0016 3671 0237 1",
        }
    )

    biller_id: str | None = Field(default=None, description="Its id when imported from a catalogue (a ULID).")
    name: str = Field(min_length=1, max_length=MAX_BILLER_NAME, description="The biller's name.")
    category: Category
    logo_url: str | None = Field(default=None, max_length=500, description="An https:// URL of its logo.")
    credit_account: str = Field(description="The NIB its money is credited to.")
    owned_by_origin: bool = Field(default=False, description="Its commercial fields belong to its back office.")
    origin_system: str | None = Field(default=None, max_length=MAX_CODE, description="That back office's name.")
    supplier: Literal["simulator"] = Field(default="simulator", description="The bill supplier that answers for it.")
    account_id: str | None = Field(default=None, max_length=MAX_CODE, description="Its own mzpay account, if any.")
    psp_id: str | None = Field(
        default=None, max_length=MAX_CODE, description="The PSP whose pilot its live payments count in."
    )

    _logo = field_validator("logo_url", mode="before")(_logo_url)
    _credit = field_validator("credit_account", mode="before")(_credit_account)
    _id = field_validator("biller_id", mode="before")(_optional_ulid)


class BillerPatch(StrictText):
    """The body of `PATCH /v1/billers/{biller_id}`: only the fields given change."""

    model_config = examples({"status": "paused"})

    name: str | None = Field(default=None, min_length=1, max_length=MAX_BILLER_NAME)
    category: Category | None = None
    logo_url: str | None = Field(default=None, max_length=500)
    credit_account: str | None = None
    status: Literal["active", "paused"] | None = Field(default=None, description="paused: it takes no payments.")
    account_id: str | None = Field(default=None, max_length=MAX_CODE)
    psp_id: str | None = Field(default=None, max_length=MAX_CODE)

    _logo = field_validator("logo_url", mode="before")(_logo_url)
    _credit = field_validator("credit_account", mode="before")(_credit_account)

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


class Biller(Entity):
    """A biller (status active, paused or retired)."""

    biller_id: str
    name: str
    category: str
    logo_url: str | None = None
    credit_account: str
    owned_by_origin: bool = False
    origin_system: str | None = None
    supplier: str
    account_id: str | None = None
    psp_id: str | None = None
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        return {
            "object": "biller",
            "biller_id": self.biller_id,
            "name": self.name,
            "category": self.category,
            "logo_url": self.logo_url,
            "credit_account": self.credit_account,
            "owned_by_origin": self.owned_by_origin,
            "origin_system": self.origin_system,
            "supplier": self.supplier,
            "account_id": self.account_id,
            "psp_id": self.psp_id,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def public(self) -> dict[str, Any]:
        """What channels see of it (no credit account, no back office)."""
        return {"biller_id": self.biller_id, "name": self.name, "category": self.category, "logo_url": self.logo_url}


def owned_by_origin(what: str) -> ServiceError:
    return ServiceError(
        409, "owned_by_origin", f"This biller is owned by its origin back-office system: {what} changes there."
    )


def check_biller_change(biller: Biller, changes: dict[str, Any]) -> None:
    """409 owned_by_origin for a commercial field changed on a biller its origin owns (a field
    sent with its current value is no change); 409 invalid_state on a retired biller."""
    if biller.status == RETIRED:
        raise ServiceError(409, "invalid_state", "This biller is retired.")
    if biller.owned_by_origin:
        touched = [name for name in COMMERCIAL if name in changes and changes[name] != getattr(biller, name)]
        if touched:
            raise owned_by_origin(", ".join(touched))


def check_retirement(biller: Biller) -> None:
    if biller.owned_by_origin:
        raise owned_by_origin("its retirement")
    if biller.status == RETIRED:
        raise ServiceError(409, "invalid_state", "This biller is already retired.")


# ---------------------------------------------------------------- products
class Charge(StrictText):
    """A fee or a discount: a fixed amount and who bears it."""

    amount: str | None = None
    bearer: str | None = Field(default=None, max_length=MAX_CODE)

    _amount = field_validator("amount", mode="before")(_optional_amount)


class InvoiceRules(StrictText):
    allow_partial: bool = False
    allow_overpayment: bool = False


class ProductIn(StrictText):
    """The body of `POST /v1/billers/{biller_id}/products` (management)."""

    model_config = examples(
        {
            "name": "Credelec recarga",
            "kind": "open",
            "min_amount": "20.00",
            "max_amount": "25000.00",
            "yields": "token",
            "supplier_product": "CREDELEC",
        }
    )

    product_id: str | None = Field(default=None, description="Its id when imported from a catalogue (a ULID).")
    name: str = Field(min_length=1, max_length=MAX_BILLER_NAME)
    kind: Literal["fixed", "denominations", "open", "invoice"]
    currency: str = "MZN"
    price: str | None = None
    denominations: list[str] | None = Field(default=None, max_length=MAX_DENOMINATIONS)
    min_amount: str | None = None
    max_amount: str | None = None
    invoice: InvoiceRules | None = None
    yields: Literal["token", "receipt"] = "receipt"
    supplier_product: str = Field(min_length=1, max_length=MAX_CODE, description="The supplier's code of it.")
    fee: Charge | None = None
    discount: Charge | None = None
    daily_limit_per_reference: str | None = None
    daily_limit_per_channel: str | None = None

    _id = field_validator("product_id", mode="before")(_optional_ulid)
    _amounts = field_validator(
        "price", "min_amount", "max_amount", "daily_limit_per_reference", "daily_limit_per_channel", mode="before"
    )(_optional_amount)

    @field_validator("currency", mode="before")
    @classmethod
    def _currency(cls, value: Any) -> Any:
        if not is_currency_code(value) or minor_units(str(value)) != 2:
            raise PydanticCustomError("invalid_currency", "currency must be 3 upper-case letters (ISO 4217)")
        return value

    @field_validator("denominations", mode="before")
    @classmethod
    def _denominations(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, list) or len(value) > MAX_DENOMINATIONS:
            raise PydanticCustomError("invalid_value", f"a list of at most {MAX_DENOMINATIONS} amounts")
        return sorted({positive_amount(item) for item in value}, key=Decimal)


KIND_FIELDS = {
    "fixed": ("price",),
    "denominations": ("denominations",),
    "open": ("min_amount", "max_amount"),
    "invoice": ("invoice",),
}
FEE_BEARERS = ("payer", "channel", "biller")
DISCOUNT_BEARERS = ("biller", "channel")


def check_product(product: ProductIn) -> None:
    """The rules across a product's fields: 400 for the kind's fields missing or foreign; 422
    fee_bearer_conflict for a contradictory fee and discount configuration."""
    errors: list[FieldError] = []
    for kind, names in KIND_FIELDS.items():
        for name in names:
            given = getattr(product, name) is not None
            if kind == product.kind and not given:
                errors.append(FieldError(name, "required", f"a {kind} product needs {name}"))
            elif kind != product.kind and given:
                errors.append(FieldError(name, "invalid_value", f"only a {kind} product has {name}"))
    if product.kind == "denominations" and product.denominations == []:
        errors.append(FieldError("denominations", "required", "at least one denomination"))
    low, high = product.min_amount, product.max_amount
    if low is not None and high is not None and Decimal(low) > Decimal(high):
        errors.append(FieldError("min_amount", "invalid_value", "min_amount is above max_amount"))
    if errors:
        raise ServiceError(400, "invalid_request", "The product has invalid fields.", errors=errors)
    conflict = fee_conflicts(product.fee, product.discount)
    if conflict:
        raise ServiceError(422, "fee_bearer_conflict", conflict)


def fee_conflicts(fee: Charge | None, discount: Charge | None) -> str | None:
    """Why a fee and discount configuration contradicts itself (None: it does not): an amount
    nobody bears, a bearer of nothing, a bearer that cannot bear it, or a payer charged a fee and
    given a discount on the same payment."""
    for what, charge, bearers in (("fee", fee, FEE_BEARERS), ("discount", discount, DISCOUNT_BEARERS)):
        if charge is None:
            continue
        if charge.amount is None and charge.bearer is not None:
            return f"The {what} names a bearer ({charge.bearer}) but no amount."
        if charge.amount is not None and charge.bearer is None:
            return f"The {what} of {charge.amount} has no bearer."
        if charge.bearer is not None and charge.bearer not in bearers:
            return f"A {what} is borne by {' or '.join(bearers)}, not {charge.bearer}."
    if fee and discount and fee.bearer == "payer" and discount.amount is not None:
        return "The payer cannot be charged a fee and given a discount on the same product."
    return None


class BillProduct(Entity):
    """A product of a biller (status active or retired)."""

    product_id: str
    biller_id: str
    name: str
    kind: str
    currency: str
    price: str | None = None
    denominations: tuple[str, ...] | None = None
    min_amount: str | None = None
    max_amount: str | None = None
    invoice: dict[str, bool] | None = None
    yields: str
    supplier_product: str
    fee: dict[str, str] | None = None
    discount: dict[str, str] | None = None
    daily_limit_per_reference: str | None = None
    daily_limit_per_channel: str | None = None
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        return {
            "object": "bill_product",
            "product_id": self.product_id,
            "biller_id": self.biller_id,
            "name": self.name,
            "kind": self.kind,
            "currency": self.currency,
            "price": self.price,
            "denominations": list(self.denominations) if self.denominations is not None else None,
            "min_amount": self.min_amount,
            "max_amount": self.max_amount,
            "invoice": self.invoice,
            "yields": self.yields,
            "supplier_product": self.supplier_product,
            "fee": self.fee,
            "discount": self.discount,
            "daily_limit_per_reference": self.daily_limit_per_reference,
            "daily_limit_per_channel": self.daily_limit_per_channel,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def product_of(product_id: str, biller_id: str, request: ProductIn, now: str) -> BillProduct:
    fields = request.model_dump(exclude_none=True, exclude={"product_id"})
    for name in ("fee", "discount"):
        if name in fields and not fields[name]:
            del fields[name]  # {} is no fee
    return BillProduct(
        product_id=product_id, biller_id=biller_id, status=ACTIVE, version=1, created_at=now, updated_at=now, **fields
    )


class SmsChannelIn(StrictText):
    """The body of `PUT /v1/accounts/{account_id}/sms-channel`: the SMS sender id (3 to 11 letters
    or digits, as networks register them)."""

    model_config = examples({"sender_id": "LojaMachava"})

    sender_id: str = Field(pattern=r"^[A-Za-z0-9]{3,11}$", description="The name payers see as the sender.")


class OfProduct(TypedDict):
    """What a quote or a subscription keeps of the product it is for and of its biller."""

    product_id: str
    product_name: str
    biller_id: str
    biller_name: str


def of_product(biller: Biller, product: BillProduct) -> OfProduct:
    return {
        "product_id": product.product_id,
        "product_name": product.name,
        "biller_id": biller.biller_id,
        "biller_name": biller.name,
    }
