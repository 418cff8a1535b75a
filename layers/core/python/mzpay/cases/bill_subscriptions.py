"""Payer subscriptions to recurring bills (mzpay.domain.bills.subscriptions, docs/bills.md): the
payer's consent is kept with when and from where it was given; the biller's supplier confirms the
reference first."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers import bills as answers
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.billers import of_product
from mzpay.domain.bills.quotes import check_payable, chosen_amount
from mzpay.domain.bills.subscriptions import (
    ACTIVE,
    BillSubscription,
    SubscriptionRequest,
    check_consent,
    check_payer_id,
)
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_id
from mzpay.steps.bills import ask_supplier, catalogue_of
from mzpay.store.bill_subscriptions import AlreadySubscribed


def subscribe(
    principal: Principal, payer_id: str, request: SubscriptionRequest, source_ip: str
) -> answers.BillSubscription:
    """Subscribe `payer_id` (the channel's own id of its payer) to a product for a reference."""
    check_payer_id(payer_id)
    consent = check_consent(request.consent)
    biller, product = catalogue_of(request.product_id)
    check_payable(biller, product)
    amount = chosen_amount(product, request.value)  # None: each invoice, all it owes
    answer = ask_supplier(biller, product, principal.mode, request.reference, amount)
    now = iso(datetime.now(UTC))
    subscription = BillSubscription(
        subscription_id=new_id(),
        account_id=principal.acting_account_id,
        mode=principal.mode,
        payer_id=payer_id,
        status=ACTIVE,
        version=1,
        **of_product(biller, product),
        reference=request.reference,
        customer_name=answer.customer_name,
        amount=f"{amount:.2f}" if amount is not None else None,
        currency=product.currency,
        frequency=request.frequency,
        consent={"accepted": True, **consent, "accepted_at": now, "source_ip": source_ip},
        created_at=now,
    )
    try:
        deps.bill_subscriptions().create(subscription)
    except AlreadySubscribed:
        raise ServiceError(
            409, "invalid_state", f"Payer {payer_id} is subscribed to {product.name} for {request.reference} already."
        ) from None
    return answers.BillSubscription.of(subscription.view())


def subscriptions(principal: Principal, payer_id: str) -> answers.BillSubscriptionList:
    """The payer's subscriptions (an unknown payer has none)."""
    check_payer_id(payer_id)
    found = deps.bill_subscriptions().of_payer(principal.acting_account_id, principal.mode, payer_id)
    ordered = sorted(found, key=lambda s: s.subscription_id)
    return answers.BillSubscriptionList(data=[answers.BillSubscription.of(s.view()) for s in ordered])
