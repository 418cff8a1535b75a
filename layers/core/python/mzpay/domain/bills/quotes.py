"""Bill quotes, invoices and what a payment costs whom (docs/bills.md). Pure rules.

A channel asks for a quote (`POST /v1/bill-payments/quotes`: product, reference, amount where
the product lets the payer choose it); the biller's supplier names the customer and, for invoice
products, the invoice. A quote is `quoted` until a payment uses it (`used`; another payment is
409 quote_used) or its validity passes (`expired`: 422 quote_expired).

Money of one payment (the product's fee and discount, docs/bills.md "Fees and discounts"):
- `amount`: what the biller's reference is credited with (the bill paid);
- `total`: what the payer pays the channel = amount + fee (payer) - discount;
- `channel_debit`: what leaves the channel's float = amount + fee (payer or channel) - discount (biller);
- `biller_credit`: what the biller is paid = amount - fee (biller) - discount (biller).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.domain.bills.billers import ACTIVE, Biller, BillProduct, of_product
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.money.amounts import InvalidAmount, parse_amount

QUOTED, USED, EXPIRED = "quoted", "used", "expired"
MAX_REFERENCE = 64
BILLER_RETRY_AFTER = 60
OPEN, PARTIALLY_PAID, PAID = "open", "partially_paid", "paid"
PAYABLE_INVOICE = (OPEN, PARTIALLY_PAID)


def _ulid(cls: type, value: Any) -> Any:
    if not isinstance(value, str) or not is_ulid(value):
        raise PydanticCustomError("invalid_value", "must be an id this API gave (a ULID)")
    return value


def _amount(cls: type, value: Any) -> Any:
    if value is None:
        return None
    try:
        if not isinstance(value, str) or len(value) > 32 or parse_amount(value, "MZN") <= 0:
            raise InvalidAmount(value)
    except InvalidAmount as exc:
        raise PydanticCustomError(
            "invalid_amount", "amount must be a positive decimal string such as '150.00'"
        ) from exc
    return value


class QuoteRequest(Strict):
    """The body of `POST /v1/bill-payments/quotes`."""

    model_config = examples(
        {"product_id": "01M8A0MH8BAHW8JZV956J9ME25", "reference": "04123456789", "amount": "500.00"}
    )

    product_id: str = Field(description="The bill product (a ULID).")
    reference: str = Field(min_length=1, max_length=MAX_REFERENCE, description="The meter, account, phone or invoice.")
    amount: str | None = Field(default=None, description="What to pay, where the product lets the payer choose.")

    _product_id = field_validator("product_id", mode="before")(_ulid)
    _amount = field_validator("amount", mode="before")(_amount)

    @property
    def value(self) -> Decimal | None:
        return Decimal(self.amount) if self.amount is not None else None


def out_of_range(message: str) -> ServiceError:
    return ServiceError(422, "amount_out_of_range", message)


def biller_unavailable(message: str) -> ServiceError:
    return ServiceError(422, "biller_unavailable", message)


def supplier_down(biller: Biller) -> ServiceError:
    return ServiceError(
        503,
        "biller_unavailable",
        f"{biller.name}'s system does not answer; retry in {BILLER_RETRY_AFTER} s.",
        headers={"Retry-After": str(BILLER_RETRY_AFTER)},
    )


def check_payable(biller: Biller, product: BillProduct) -> None:
    """422 biller_unavailable unless both the biller and the product take payments."""
    if biller.status != ACTIVE:
        raise biller_unavailable(f"{biller.name} is not accepting payments ({biller.status}).")
    if product.status != ACTIVE:
        raise biller_unavailable(f"{product.name} is no longer sold ({product.status}).")


def chosen_amount(product: BillProduct, amount: Decimal | None) -> Decimal | None:
    """The amount a non-invoice product takes (None for an invoice product: its invoice decides);
    400 when the product needs one and none is given, 422 amount_out_of_range when it refuses it."""
    if product.kind == "invoice":
        return amount
    if product.kind == "fixed":
        price = Decimal(product.price or "0")
        if amount is not None and amount != price:
            raise out_of_range(f"{product.name} costs exactly {product.price}.")
        return price
    if amount is None:
        message = f"a {product.kind} product needs the amount"
        raise invalid_field("amount", message, field_code="required")
    if product.kind == "denominations":
        if amount not in {Decimal(d) for d in product.denominations or ()}:
            raise out_of_range(f"{product.name} is sold in {', '.join(product.denominations or ())} only.")
        return amount
    low, high = Decimal(product.min_amount or "0"), Decimal(product.max_amount or "0")
    if not low <= amount <= high:
        raise out_of_range(f"{product.name} takes from {product.min_amount} to {product.max_amount}.")
    return amount


def invoice_amount(product: BillProduct, invoice: Invoice, amount: Decimal | None) -> Decimal:
    """What to pay of an open invoice (all it owes unless `amount` says): 409 invoice_closed
    unless it is open or partly paid; 422 amount_out_of_range against the product's rules."""
    if invoice.status not in PAYABLE_INVOICE:
        raise ServiceError(409, "invoice_closed", f"Invoice {invoice.number} is {invoice.status}.")
    owed = invoice.outstanding
    if owed <= 0:
        raise out_of_range(f"Invoice {invoice.number} owes nothing.")
    rules = product.invoice or {}
    if amount is None:
        return owed
    if amount < owed and not rules.get("allow_partial"):
        raise out_of_range(f"Invoice {invoice.number} is paid in full only ({owed:f}).")
    if amount > owed and not rules.get("allow_overpayment"):
        raise out_of_range(f"Invoice {invoice.number} owes {owed:f}; it takes no more.")
    return amount


@dataclass(frozen=True)
class Pricing:
    amount: Decimal
    fee: Decimal
    fee_bearer: str | None
    discount: Decimal
    discount_bearer: str | None

    @property
    def total(self) -> Decimal:
        return self.amount + (self.fee if self.fee_bearer == "payer" else 0) - self.discount

    @property
    def channel_debit(self) -> Decimal:
        fee = self.fee if self.fee_bearer in ("payer", "channel") else 0
        return self.amount + fee - (self.discount if self.discount_bearer == "biller" else 0)

    @property
    def biller_credit(self) -> Decimal:
        fee = self.fee if self.fee_bearer == "biller" else 0
        return self.amount - fee - (self.discount if self.discount_bearer == "biller" else 0)


def pricing(product: BillProduct, amount: Decimal) -> Pricing:
    """What a payment of `amount` costs whom; a discount never takes the total below zero."""
    fee, discount = product.fee or {}, product.discount or {}
    return Pricing(
        amount,
        Decimal(fee.get("amount", "0")),
        fee.get("bearer"),
        min(Decimal(discount.get("amount", "0")), amount),
        discount.get("bearer"),
    )


class Invoice(Entity):
    """A biller's invoice as the gateway tracks it in one mode (first seen through its supplier
    in that mode): open, partially_paid, paid, cancelled or expired."""

    biller_id: str
    mode: str
    number: str
    customer_name: str
    currency: str
    amount_due: str
    paid: str = "0.00"
    due_date: str | None = None
    description: str | None = None
    document: dict[str, Any] | None = None
    created_at: str
    updated_at: str

    @property
    def outstanding(self) -> Decimal:
        return Decimal(self.amount_due) - Decimal(self.paid)

    @property
    def amount_due_value(self) -> Decimal:
        return Decimal(self.amount_due)

    def view(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "status": self.status,
            "customer_name": self.customer_name,
            "amount_due": self.amount_due,
            "paid": self.paid,
            "outstanding": f"{max(self.outstanding, Decimal(0)):.2f}",
            "currency": self.currency,
            "due_date": self.due_date,
            "description": self.description,
            "document": self.document,
            "updated_at": self.updated_at,
        }


def paid_status(invoice: Invoice, paid: Decimal) -> str:
    return PAID if paid >= Decimal(invoice.amount_due) else PARTIALLY_PAID if paid > 0 else OPEN


class BillOfProduct(Entity):
    """What a bill quote and the payment of it share: whose, what is paid to whom, and its money."""

    quote_id: str
    account_id: str
    mode: str
    product_id: str
    biller_id: str
    biller_name: str
    product_name: str
    reference: str
    customer_name: str
    currency: str
    amount: str
    fee: dict[str, str] | None = None
    discount: dict[str, str] | None = None
    total: str
    channel_debit: str
    biller_credit: str
    yields: str
    created_at: str
    updated_at: str


class BillQuote(BillOfProduct):
    """A quote of the supplier for one payment of a product to a reference."""

    invoice: dict[str, Any] | None = None  # number, amount_due, outstanding, due_date
    payment_id: str | None = None
    expires_at: str

    def current_status(self, now: str) -> str:
        return EXPIRED if self.status == QUOTED and now >= self.expires_at else self.status

    def view(self, now: str) -> dict[str, Any]:
        return {
            "quote_id": self.quote_id,
            "status": self.current_status(now),
            **product_view(self),
            **money_view(self),
            "invoice": self.invoice,
            "yields": self.yields,
            "payment_id": self.payment_id,
            "expires_at": self.expires_at,
            "created_at": self.created_at,
        }


PRODUCT_MEMBERS = ("product_id", "product_name", "biller_id", "biller_name", "reference", "customer_name")
MONEY_MEMBERS = ("amount", "currency", "fee", "discount", "total", "channel_debit")


def product_view(entity: Any) -> dict[str, Any]:
    """The members a quote, its payment and a subscription share: what is paid for and for whom."""
    return {name: getattr(entity, name) for name in PRODUCT_MEMBERS}


def money_view(entity: Any) -> dict[str, Any]:
    """The money members a quote and its payment share."""
    return {name: getattr(entity, name) for name in MONEY_MEMBERS}


def quote_of(
    ids: tuple[str, str, str],
    biller: Biller,
    product: BillProduct,
    reference: str,
    customer_name: str,
    price: Pricing,
    invoice: Invoice | None,
    times: tuple[str, str],
) -> BillQuote:
    quote_id, account_id, mode = ids
    now, expires_at = times

    def charge(amount: Decimal, bearer: str | None) -> dict[str, str] | None:
        return {"amount": f"{amount:.2f}", "bearer": bearer} if bearer and amount > 0 else None

    return BillQuote(
        quote_id=quote_id,
        account_id=account_id,
        mode=mode,
        status=QUOTED,
        version=1,
        **of_product(biller, product),
        reference=reference,
        customer_name=customer_name,
        currency=product.currency,
        amount=f"{price.amount:.2f}",
        fee=charge(price.fee, price.fee_bearer),
        discount=charge(price.discount, price.discount_bearer),
        total=f"{price.total:.2f}",
        channel_debit=f"{price.channel_debit:.2f}",
        biller_credit=f"{price.biller_credit:.2f}",
        yields=product.yields,
        invoice=None
        if invoice is None
        else {
            "number": invoice.number,
            "amount_due": invoice.amount_due,
            "outstanding": f"{invoice.outstanding:.2f}",
            "due_date": invoice.due_date,
        },
        expires_at=expires_at,
        created_at=now,
        updated_at=now,
    )
