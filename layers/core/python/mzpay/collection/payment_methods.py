"""Customers' payment methods (docs/partners.md, "Payment methods"): a business adds methods of a
partner to its customers, lists and reads them (card details masked) and switches them on and off.
Another account's customer is 404 customer_not_found; another customer's method 404 not_found."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers import collection_partners as answers
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ensure_room
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.domain.partners import payment_methods as rules
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.steps.customers import customer_of, method_of
from mzpay.store.payment_methods import MethodChanged
from mzpay.store.transitions import rejudged


def add(
    account_id: str, customer_id: str, partner_id: str, pm_type: str, details: dict[str, Any], mode: str = "live"
) -> answers.PaymentMethodResult:
    """A new active method whose details fill the partner's form for `pm_type`; `mode` test: its
    transactions run in the gateway's test mode. A card number in its details is refused before
    the customer is looked up (as the card screen refuses one anywhere, whoever the customer is)."""
    if cards := rules.card_problems(details):
        raise rules.invalid(cards)
    customer_of(account_id, customer_id)
    if mode not in rules.MODES:
        raise rules.invalid([FieldError("mode", "INVALID_FORMAT", "test or live")])
    cleaned = rules.checked_details(partner_id, pm_type, details)
    most = rules.MAX_METHODS_PER_CUSTOMER
    ensure_room(len(deps.payment_methods().of_customer(customer_id, most)), most, "A customer", "payment methods")
    now = now_iso()
    method = PaymentMethod(
        pm_id=new_prefixed_id("pm"),
        business_account_id=account_id,
        customer_id=customer_id,
        type=pm_type,
        partner_id=partner_id,
        details=cleaned,
        mode=mode,
        status="active",
        version=1,
        created_at=now,
        updated_at=now,
    )
    deps.payment_methods().add(method)
    return _result(method)


def _result(method: PaymentMethod) -> answers.PaymentMethodResult:
    return answers.PaymentMethodResult.of({"object": "payment_method", "payment_method": method.view()})


def listed(account_id: str, customer_id: str) -> answers.PaymentMethodList:
    customer_of(account_id, customer_id)
    methods = deps.payment_methods().of_customer(customer_id, rules.MAX_METHODS_PER_CUSTOMER)
    return answers.PaymentMethodList.of({"object": "list", "data": [method.view() for method in methods]})


def read(account_id: str, customer_id: str, pm_id: str) -> answers.PaymentMethodResult:
    return _result(method_of(account_id, customer_id, pm_id))


def set_status(account_id: str, customer_id: str, pm_id: str, status: str) -> answers.PaymentMethodResult:
    """active <-> inactive (the same status again changes nothing); racing changes are each
    judged on what the other left."""
    rules.check_status(status)

    def change(method: PaymentMethod) -> PaymentMethod:
        if method.status == status:
            return method
        return deps.payment_methods().change(method, {"status": status, "updated_at": now_iso()})

    changed = rejudged(lambda: method_of(account_id, customer_id, pm_id), change, MethodChanged, "payment method")
    return _result(changed)
