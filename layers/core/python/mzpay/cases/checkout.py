"""Hosted checkout: a payment the payer completes on the page at checkout_url (POST /v1/payments),
its cancellation, and the page's own actions (pay with a wallet, the test toolbar)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers.payments import PaymentSnapshot
from mzpay.answers.receipts import Receipt
from mzpay.connectors.base import Reconciling
from mzpay.connectors.simulated import OTP
from mzpay.domain.access.principal import Principal
from mzpay.domain.accounts.settings import Brand, brand
from mzpay.domain.common.bounds import MAX_CODE, MAX_PHONE
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError, refused_field
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.payments.charges import (
    Card,
    ChargeRequest,
    CheckoutRequest,
    MobileWallet,
    Source,
    check_charge,
    national_phone,
)
from mzpay.domain.payments.checkout_offer import Offer, PayerChoice, expiry_problem, offers
from mzpay.domain.payments.routing import binding_method
from mzpay.domain.payments.rules import Payment, Status, ensure_transition, snapshot
from mzpay.steps.accounts import merchant_name, payment_receipt
from mzpay.steps.admission import COUNTER_TTL, admit, ceiling_refusal, reject, stored_source
from mzpay.steps.business import business_of, require_payee_active
from mzpay.steps.checkouts import cancel_payment
from mzpay.steps.checkouts import create_checkout as open_checkout
from mzpay.steps.connectors import connector_for
from mzpay.steps.payments import (
    apply_outcome,
    connector_of,
    current,
    kept,
    provider_call,
    visible_payment,
    waiting,
)
from mzpay.steps.routing import observe, route_charge
from mzpay.store.payments import CeilingReached


def create_checkout(principal: Principal, request: CheckoutRequest, base_url: str) -> PaymentSnapshot:
    """POST /v1/payments: a payment the payer completes on the hosted page at `base_url`."""
    return PaymentSnapshot.of(open_checkout(principal, request, base_url))


def cancel(principal: Principal, provider_payment_id: str) -> PaymentSnapshot:
    """POST /v1/payments/{id}/cancel: while the payer has not paid (a checkout, or a payment
    waiting for the payer's action)."""
    return PaymentSnapshot.of(snapshot(cancel_payment(visible_payment(principal, provider_payment_id))))


def checkout_payment(provider_payment_id: str) -> Payment:
    """The checkout behind a hosted page (no key: the page is the payer's); 404 unless one."""
    payment = deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None
    if payment is None or not payment.checkout:
        raise ServiceError(404, "not_found", "No such checkout.")
    return current(payment)


@dataclass(frozen=True)
class CheckoutView:
    """What the payer's page shows: the payment, who is paid, and the ways to pay it."""

    payment: Payment
    merchant: str
    offers: list[Offer]
    brand: Brand | None = None  # the account's colour (its settings), None: the page's own


def checkout_view(provider_payment_id: str, payment: Payment | None = None) -> CheckoutView:
    """The page of a checkout (`payment` when the caller has just read or changed it)."""
    payment = payment or checkout_payment(provider_payment_id)
    if payment.status in (Status.REQUIRES_PAYMENT_METHOD, Status.REQUIRES_ACTION):
        _payee_may_be_paid(payment)  # no form for a payment the merchant may not take now
    merchant = merchant_name(payment)
    found: list[Offer] = []
    if payment.status == Status.REQUIRES_PAYMENT_METHOD:
        bound = _bound(payment) if payment.mode == "live" else frozenset()
        found = offers(payment.value, payment.currency, payment.mode, payment.networks, bound.__contains__)
    return CheckoutView(payment, merchant, found, brand_of(payment))


def brand_of(payment: Payment) -> Brand | None:
    """The colour the payment's account chose for its checkout and receipt pages (its settings)."""
    return brand(deps.account_settings().read(payment.account_id))


def _bound(payment: Payment) -> frozenset[str]:
    """The methods (a wallet: its network) the account has a live provider for."""
    return frozenset(b["method"] for b in deps.bindings().of_account(payment.account_id) if b["mode"] == payment.mode)


def checkout_receipt(provider_payment_id: str) -> tuple[Receipt, Payment]:
    """The payer's receipt of a checkout (409 not_receiptable before money moved), and the payment."""
    payment = checkout_payment(provider_payment_id)
    return Receipt.of(payment_receipt(payment)), payment


# The test toolbar's payers: the documented simulator numbers that give each outcome, per wallet.
TEST_PAYERS = {"succeed": "0000", "fail": "0001"}
TEST_PREFIXES = {"mpesa": "+25884000", "emola": "+25886000", "mkesh": "+25882000"}


def test_action(provider_payment_id: str, outcome: str) -> Payment:
    """The hosted page's test toolbar, on TEST checkouts only (a live one: 403 live_payment).
    Before the payer chose: pay as a payer whose outcome is `outcome` (succeed, fail) with the
    first wallet offered. While a chosen method waits for the payer (a reference, a code, a
    bank's or lender's page, an OTP): `succeed` finishes that step as the payer would."""
    payment = checkout_payment(provider_payment_id)
    if payment.mode != "test":
        raise ServiceError(403, "live_payment", "Test actions are refused on live payments.")
    _payee_may_be_paid(payment)
    if outcome not in TEST_PAYERS:
        raise ServiceError(404, "not_found", f"No such test action: {outcome} (one of {', '.join(TEST_PAYERS)}).")
    if payment.status == Status.REQUIRES_ACTION and outcome == "succeed":
        ensure_transition(payment.status, "complete_action")
        result = connector_of(payment).complete_action(provider_call(payment), payment.next_action or {}, OTP)
        return apply_outcome(payment, result, now_iso())
    network = (payment.networks or ["mpesa"])[0]  # the first wallet the page offers
    return pay_checkout(
        provider_payment_id, PayerChoice("mobile_wallet", network, TEST_PREFIXES[network] + TEST_PAYERS[outcome])
    )


def pay_checkout(provider_payment_id: str, choice: PayerChoice) -> Payment:
    """The payer chose how to pay on the hosted page: the charge goes through the same
    validation, ceilings, risk stage, routing, pilot rules and connector as POST /charges. A
    method the page does not offer is 400 not_supported; a wallet number may be typed the
    national way (84 123 4567)."""
    payment = checkout_payment(provider_payment_id)
    ensure_transition(payment.status, "pay")
    _payee_may_be_paid(payment)
    offered = checkout_view(provider_payment_id, payment).offers
    if choice.key not in {offer.key for offer in offered}:
        names = ", ".join(offer.key for offer in offered)
        raise ServiceError(
            400,
            "not_supported",
            f"This checkout takes {names} only.",
            errors=[FieldError("method", "not_supported", f"one of {names}")],
        )
    request = ChargeRequest(
        payment_id=payment.payment_id,
        money={"amount": payment.amount, "currency": payment.currency},  # type: ignore[arg-type]
        source=_source(choice, payment.mode),
        country=payment.country,
        callback_url=payment.callback_url,
        return_url=payment.return_url,
        metadata=payment.metadata,
    )
    check_charge(request, payment.mode, card_on_page=request.source.type == "card")
    payer = Principal(
        account_id=payment.account_id,
        mode=payment.mode,
        scopes=frozenset(),
        key_id=payment.key_id or "",
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=payment.account_id,
    )
    rejection_id = new_id()
    psp, reservations = admit(payer, request, rejection_id)
    method = binding_method(choice.method, choice.network)
    routed = None  # live: routed by health as a charge is (docs/connectors.md "Routing by health")
    if payment.mode == "test":
        connector = connector_for(payment.account_id, payment.mode, method, psp.psp_id)
    else:
        connector, routed = route_charge(payment.account_id, payment.mode, method, psp.psp_id)
    now = now_iso()
    changes: dict[str, Any] = {
        "status": Status.PENDING,
        "source": stored_source(request),
        "psp_id": psp.psp_id,
        "routing": routed if routed is not None and routed["reason"] != "only_route" else None,
        "reservations": kept(reservations, payment.currency),
        "updated_at": now,
        "expires_at": None,
    }
    changes |= waiting(payment.with_changes(changes), datetime.now(UTC))
    ttl = int(datetime.now(UTC).timestamp()) + COUNTER_TTL
    try:
        started = deps.payments().transition(payment, changes, [], reservations=reservations, ttl=ttl)
    except CeilingReached as reached:
        reject(payer, request, ceiling_refusal(psp, reached.reservation, payment.currency, rejection_id))
    call = provider_call(started)
    if request.source.type == "card" and payment.mode == "live":  # the payer comes back to be verified
        call = replace(call, return_url=return_address(payment))
    result = connector.charge(call)
    moved = apply_outcome(started, result, now_iso())
    if routed is not None:
        observe(routed["route"], method, result)
    return moved


def return_address(payment: Payment) -> str:
    """Where a provider's page sends the payer back: the checkout's return, which verifies."""
    return f"{payment.checkout_url}/return"


def payer_returned(provider_payment_id: str) -> Payment:
    """The payer came back from a provider's page (an aggregator's card page). Nothing the return
    carries is read, as anyone can forge it: a live payment still waiting there is asked of its
    provider, and only the provider's answer that it was paid moves it; otherwise it waits for the
    provider's signed callback (or its deadline). Whichever lands first applies, once."""
    payment = checkout_payment(provider_payment_id)
    if payment.mode != "live" or payment.status != Status.REQUIRES_ACTION:
        return payment
    try:
        connector = connector_of(payment)
    except ServiceError:  # unbound since: nobody can be asked
        return payment
    if not isinstance(connector, Reconciling):
        return payment
    result = connector.status(provider_call(payment))
    if result.status != Status.SUCCEEDED:
        return payment
    try:
        return apply_outcome(payment, result, now_iso())
    except ServiceError as lost:  # the signed callback landed first
        if lost.code != "invalid_state":
            raise
        return deps.payments().get(provider_payment_id) or payment


def _payee_may_be_paid(payment: Payment) -> None:
    """A collection request's checkout takes money only while its business is active (403
    account_suspended otherwise): a link opened before a suspension cannot be paid after it."""
    if payment.collection_request_id:
        require_payee_active(business_of(payment.account_id))


def _source(choice: PayerChoice, mode: str) -> Source:
    """The charge's source from the page's form (a card: its number and expiry, test mode only;
    live, a form without them is a card the bound provider's page takes: docs/connectors.md)."""
    if choice.method == "mobile_wallet":
        phone = national_phone(choice.phone_number)
        if len(phone) > MAX_PHONE:
            _refuse("invalid_phone", "phone_number", "phone_number must be a valid Mozambican mobile number")
        return Source(
            type="mobile_wallet", mobile_wallet=MobileWallet(network=choice.network, phone_number=phone or None)
        )
    if choice.method == "card" and mode == "live" and not (choice.card_number or choice.card_expiry):
        return Source(type="card")
    if choice.method == "card":
        if len(choice.card_number) > MAX_CODE:
            _refuse("invalid_card", "card_number", "a card number has 13 to 19 digits and passes Luhn")
        fault = expiry_problem(choice.card_expiry, datetime.now(UTC).date())
        if fault is not None:
            _refuse(
                "invalid_card",
                "card_expiry",
                "the card's expiry as MM/YY" if fault == "format" else "the card has expired",
            )
        return Source(type="card", card=Card(number=choice.card_number))
    return Source(type=choice.method)  # type: ignore[arg-type]


def _refuse(code: str, field: str, message: str) -> None:
    raise refused_field(code, field, message, message)


__all__ = [
    "CheckoutView",
    "cancel",
    "checkout_payment",
    "checkout_receipt",
    "checkout_view",
    "create_checkout",
    "pay_checkout",
    "payer_returned",
    "test_action",
]
