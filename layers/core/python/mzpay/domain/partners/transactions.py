"""Transactions on a customer's payment method (docs/partners.md, "Transactions"): what each
transaction_type does, the body's rules, the stored history item and the test-mode answers of
the queries that move no money. Money-moving types run through the gateway (a charge or a
payout of the business's gateway account): no second payment path. Pure rules."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid

TYPES = ("check_balance", "transfer", "deposit", "pay_in", "pay_out", "pay_bill", "get_authorization", "validata")
MONEY_TYPES = frozenset({"transfer", "deposit", "pay_in", "pay_out", "pay_bill"})
INCOMING = frozenset({"pay_in"})  # the customer pays the business: a gateway charge
OUTGOING = frozenset({"pay_out", "deposit", "transfer"})  # the business pays the customer: a payout
BILL = "pay_bill"  # the customer pays a biller: a charge of the customer, then a bill payment of the business
BILL_IDS = uuid.UUID("5d0e3c1a-8f4b-5c6d-9e7f-0a1b2c3d4e5f")  # a pay_bill's bill payment id: uuid5 of its movement
BILL_FIELDS = ("biller_id", "product_id")  # the body's names of what a pay_bill pays (the gateway's quote's)
HISTORY_NAMES = {  # the history item's upper-case transaction_type
    "check_balance": "BALANCE_QUERY",
    "transfer": "TRANSFER",
    "deposit": "DEPOSIT",
    "pay_in": "PAY_IN",
    "pay_out": "PAY_OUT",
    "pay_bill": "PAY_BILL",
    "get_authorization": "AUTHORIZATION",
    "validata": "VALIDATION",
}
CURRENCIES = ("MZN",)
MAX_AMOUNT = Decimal("10000000.00")
MAX_PAGE = 100

# Test mode: the last four digits of the method's number (a wallet's phone, a bank account's NIB)
# or a card's token decide a query's outcome, as for charges (docs/test-mode.md).
DECLINED = {"0001": ("insufficient_funds", "The account has insufficient funds."), "0002": ("declined", "Declined.")}
PROVIDER_DOWN = "0003"
CARD_DECLINED = {"tok_test_insufficient_funds": "insufficient_funds", "tok_test_declined": "card_declined"}
TEST_BALANCE = {"available": Decimal("10000.00"), "pending": Decimal("0.00")}


class CustomerTransaction(Entity):
    """A transaction of a customer's payment method (ins_...): `reference` names the gateway
    payment or payout that moved the money, if any."""

    instruction_id: str
    business_account_id: str
    customer_id: str
    pm_id: str
    pm_type: str
    partner_id: str
    mode: str
    transaction_type: str
    amount: Decimal | None = None
    currency: str
    description: str | None = None
    destination: str | None = None
    role: str
    reference: str | None = None
    balance: dict[str, Any] | None = None
    authorization: dict[str, Any] | None = None
    error_code: str | None = None
    error_message: str | None = None
    metadata: dict[str, str] = {}
    notify_customer: bool = False
    bill: dict[str, Any] | None = None  # a pay_bill's bill payment (bill_view), else None
    movement_id: str | None = None  # a pay_bill's movement: its bill payment and refund ids derive from it
    created_at: str
    processed_at: str

    def _bill(self) -> dict[str, Any]:
        return {"bill": self.bill} if self.bill is not None else {}

    def result(self) -> dict[str, Any]:
        """The process result (spec)."""
        return {
            "object": "transaction",
            "transaction_id": self.instruction_id,
            "transaction_type": self.transaction_type,
            "status": self.status,
            "balance": self.balance,
            "authorization": self.authorization,
            "processed_at": self.processed_at,
            "error_code": self.error_code,
            "error_message": self.error_message,
            **self._bill(),
        }

    def history_item(self) -> dict[str, Any]:
        """Transaction (history item, spec)."""
        return {
            "reference": self.reference or self.instruction_id,
            "instruction_id": self.instruction_id,
            "transaction_type": HISTORY_NAMES[self.transaction_type],
            "amount": self.amount,
            "currency": self.currency,
            "description": self.description,
            "destination": self.destination,
            "status": self.status,
            "role": self.role,
            "payment_method_id": self.pm_id,
            "partner_id": self.partner_id,
            "created_at": self.created_at,
            "processed_at": self.processed_at,
            **self._bill(),
        }


def checked(transaction_type: str, amount: Decimal | None, currency: str | None) -> tuple[Decimal | None, str]:
    """(amount, currency) of a valid body: a known type, an amount over zero with two decimals at
    most for a type that moves money (none for a query), MZN. 400 naming each problem."""
    problems = []
    if transaction_type not in TYPES:
        problems.append(FieldError("transaction_type", "INVALID_FORMAT", f"one of {', '.join(TYPES)}"))
    currency = currency or CURRENCIES[0]
    if currency not in CURRENCIES:
        problems.append(FieldError("currency", "INVALID_FORMAT", f"one of {', '.join(CURRENCIES)}"))
    if transaction_type in MONEY_TYPES and amount is None:
        problems.append(FieldError("amount", "REQUIRED", f"a {transaction_type} moves money: how much"))
    if amount is not None:
        if not amount.is_finite() or amount <= 0 or amount > MAX_AMOUNT:
            problems.append(FieldError("amount", "INVALID_FORMAT", f"a number more than zero, at most {MAX_AMOUNT}"))
        elif amount.as_tuple().exponent < -2:  # type: ignore[operator]
            problems.append(FieldError("amount", "INVALID_FORMAT", "at most two decimal places"))
    if problems:
        raise invalid(problems)
    return (amount.quantize(Decimal("0.01")) if amount is not None else None), currency


def bill_fields(transaction_type: str, body: dict[str, Any]) -> None:
    """A pay_bill names its product (`product_id`, the gateway's quote's) and the biller's
    reference for the payer (`destination`: the meter, account, phone or invoice number); no other
    type names a bill. 400 naming each problem (their existence is the catalogue's to say)."""
    problems = []
    if transaction_type == BILL:
        if not body.get("product_id"):
            problems.append(FieldError("product_id", "REQUIRED", "the bill product to pay"))
        if not body.get("destination"):
            problems.append(FieldError("destination", "REQUIRED", "the meter, account, phone or invoice number to pay"))
    else:
        problems += [
            FieldError(name, "INVALID_FORMAT", "only a pay_bill names a bill")
            for name in BILL_FIELDS
            if body.get(name) is not None
        ]
    if problems:
        raise invalid(problems)


def bill_payment_id(movement_id: str) -> str:
    """The id of a pay_bill's bill payment, derived from its movement (a retry names the same)."""
    return str(uuid.uuid5(BILL_IDS, movement_id))


def unknown_bill(field: str, what: str) -> ServiceError:
    return invalid([FieldError(field, "NOT_FOUND", what)])


def bill_view(payment: dict[str, Any]) -> dict[str, Any]:
    """What a pay_bill's history and answer show of its bill payment (the gateway's bill payment
    or, before it was paid, its quote)."""
    return {
        "payment_id": payment.get("payment_id"),
        "biller_id": payment["biller_id"],
        "product_id": payment["product_id"],
        "reference": payment["reference"],
        "customer_name": payment["customer_name"],
        "amount": Decimal(payment["amount"]),
        "total": Decimal(payment["total"]),
        "status": payment.get("status"),
        "token": payment.get("token"),
        "receipt_number": payment.get("receipt_number"),
        "failure_code": payment.get("failure_code"),
        "refund_id": payment.get("refund_id"),
    }


def method_key(pm_type: str, details: dict[str, str]) -> str:
    """What decides a test-mode outcome: a card's token, else the last four digits of the number."""
    if pm_type == "card":
        return details.get("card_token", "")
    number = details.get("phone_number") or details.get("nib") or ""
    return number[-4:]


def test_query(transaction_type: str, key: str, currency: str) -> dict[str, Any]:
    """The simulator's answer to a query (check_balance, get_authorization, validata): the
    result's changes, or a refusal: 502 provider_error (number ending 0003, tok_test_timeout)."""
    if key in (PROVIDER_DOWN, "tok_test_timeout"):
        raise provider_error()
    declined = DECLINED.get(key) or (
        (CARD_DECLINED[key], "The issuer declined the card.") if key in CARD_DECLINED else None
    )
    if declined is not None:
        return {"status": "failed", "error_code": declined[0], "error_message": declined[1]}
    if transaction_type == "check_balance":
        return {"status": "succeeded", "balance": {**TEST_BALANCE, "currency": currency}}
    if transaction_type == "get_authorization":
        return {"status": "succeeded", "authorization": {"code": f"AUTH{key[-4:].upper():0>4}", "expires_in": 600}}
    return {"status": "succeeded"}


def provider_error(detail: str = "The provider did not answer; retry later.") -> ServiceError:
    return ServiceError(502, "provider_error", detail, headers={"Retry-After": "5"})


def declined(transaction: CustomerTransaction) -> ServiceError:
    return ServiceError(
        400,
        "transaction_failed",
        transaction.error_message or "The transaction was declined.",
        transaction_id=transaction.instruction_id,
        error_code=transaction.error_code,
    )
