"""A business's customers and their payment methods as every customer route finds them: another
account's customer is 404 customer_not_found, another customer's method 404 not_found."""

from __future__ import annotations

from mzpay import deps
from mzpay.domain.collection.directory import REMOVED
from mzpay.domain.collection.kyc import Customer
from mzpay.domain.common.errors import ServiceError, found_of
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
