"""A business's customers and their payment methods as every customer route finds them: another
account's customer is 404 customer_not_found, another customer's method 404 not_found."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.directory import REMOVED, payer_of
from mzpay.domain.collection.kyc import Customer
from mzpay.domain.collection.requests import invalid
from mzpay.domain.common.errors import FieldError, ServiceError, found_of
from mzpay.domain.partners.payment_methods import PaymentMethod

MAX_ID = 64


def customer_of(account_id: str, customer_id: str, removed: bool = False) -> Customer:
    """The business's customer; 404 customer_not_found otherwise (another account's included, and
    a removed one unless `removed`: only its read, its removal and its requests' list see it)."""
    customer = deps.kyc().customer(customer_id) if len(customer_id) <= MAX_ID else None
    if customer is not None and customer.status == REMOVED and not removed:
        customer = None
    return found_of(account_id, customer, "customer", "customer_not_found")


def method_of(account_id: str, customer_id: str, pm_id: str) -> PaymentMethod:
    customer_of(account_id, customer_id)
    method = deps.payment_methods().get(pm_id) if len(pm_id) <= MAX_ID else None
    if method is None or method.customer_id != customer_id or method.business_account_id != account_id:
        raise ServiceError(404, "not_found", "No such payment method.")
    return method


def with_payer(account_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """`body` with its payer: the one given, or the directory's customer that customer_id names
    (another business's or a removed one: 404 customer_not_found); not both, not neither."""
    customer_id = body.get("customer_id")
    if customer_id is None:
        if "payer" not in body:  # the route refuses it first (CollectionRequestIn.ensure_payer)
            raise invalid([FieldError("payer", "REQUIRED", "a payer or a customer_id")])
        return body
    if "payer" in body:
        problem = FieldError("customer_id", INVALID_FORMAT, "a payer or a customer_id, not both")
        raise invalid([problem])
    try:
        customer = customer_of(account_id, customer_id)
    except ServiceError as error:
        error.extensions["field"] = "customer_id"
        raise
    return {**body, "payer": payer_of(customer)}
