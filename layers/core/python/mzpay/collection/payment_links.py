"""A collection request's payment link (docs/collection-requests.md, "Paying"): the payer opens
it and lands on the gateway's hosted checkout for the request (its amount, biller, invoice number
and the request's wallets). One checkout per attempt: while one is open every opening of the link
leads to it; when it ends unpaid (failed, expired, canceled) the next opening starts attempt n+1.
The attempt's payment_id is derived from (request, n), so openings that race start one payment,
and the request records it with one conditional write. A paid request opens no checkout, nor does
a request of a business that is not active (suspended): its payer gets a page saying so, and the
checkout a link opened before refuses to take the payment (mzpay.cases.checkout). A cancelled
request opens none either (its page says it cannot be paid online, 409): refused before money
moves. A request with a bank reference (simo_erv, interbank methods) shows the payer its bank
details (200) with a button to its wallet checkout when it has wallet methods: opening a checkout
is an attempt the request records, so it is the payer's choice, never the link's default. A
partially_paid request's checkout asks for what is still due, never more; a request that takes
instalments may be paid in part through its link (`?amount=`: see instalment)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from mzpay import deps
from mzpay.domain.access.principal import Principal
from mzpay.domain.collection.business import AccountStatus
from mzpay.domain.collection.requests import (
    CENTS,
    CHECKOUT_NETWORKS,
    CollectionRequest,
    PaymentStatus,
    RequestStatus,
    checkout_payment_id,
)
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import has_prefix
from mzpay.domain.payments.charges import CheckoutRequest
from mzpay.domain.payments.rules import Status
from mzpay.steps.business import gateway_account_of, status_of
from mzpay.steps.checkouts import create_checkout
from mzpay.steps.payments import current
from mzpay.store.collection_requests import Changed

OPEN = frozenset({Status.REQUIRES_PAYMENT_METHOD, Status.PENDING, Status.REQUIRES_ACTION, Status.AUTHORIZED})
MAX_ATTEMPTS = 3  # openings that keep losing the race to record an attempt


@dataclass(frozen=True)
class Destination:
    """Where the link leads: the checkout's URL, or (no checkout) why not: paid, suspended (the
    business may not take payments now), not_payable; a request paid through its checkout links
    to that payment's receipt."""

    checkout_url: str | None
    state: str
    request: CollectionRequest
    receipt_url: str | None = None  # paid through its checkout: that payment's receipt page
    wallets: bool = False  # bank: the request may also be paid by wallet (its checkout: ?via=wallet)


def _request(request_id: str) -> CollectionRequest:
    found = deps.collection_requests().get(request_id) if has_prefix(request_id, "cr") else None
    if found is None or found.status == RequestStatus.DELETED:
        raise ServiceError(404, "not_found", "No such collection request.")
    return found


def _networks(request: CollectionRequest) -> list[str]:
    """The wallets a new checkout offers: the request's wallet methods that are active now (a
    method the business switched off since it issued the request is not offered)."""
    methods = deps.collection_requests().methods(request.collection_method_ids)
    return [
        method.type
        for method_id in request.collection_method_ids
        if (method := methods.get(method_id)) is not None
        and method.account_id == request.account_id
        and method.type in CHECKOUT_NETWORKS
        and method.status == "active"
    ]


def instalment(request: CollectionRequest, asked: Decimal | None) -> Decimal:
    """What a new checkout asks for: what is due (the whole amount, less what was paid), or, for
    a request that takes instalments, the part the link names (`?amount=`) brought within its
    bounds: at least its min_installment (or a cent), at most what is due."""
    due = request.outstanding
    if asked is None or not request.allow_installments or not asked.is_finite():
        return due
    least = request.min_installment or CENTS
    return min(due, max(asked.quantize(CENTS), least))


def _checkout(
    request: CollectionRequest, attempt: int, networks: list[str], gateway_url: str, amount: Decimal
) -> tuple[str, str]:
    """Open (or find, when a racing opening did) the checkout of `attempt`: its payment's id and URL."""
    payer = Principal.of_account(gateway_account_of(request.account_id), request.mode)
    checkout = CheckoutRequest(
        amount=format(amount, "f"),  # what is due, or the instalment asked
        currency=request.amount["currency"],
        payment_id=checkout_payment_id(request.request_id, attempt),
        metadata={
            "collection_request_id": request.request_id,
            "invoice_number": request.invoice_metadata["invoice_number"],
        },
    )
    statement = {
        "biller": request.biller.get("business_name") or "",
        "invoice_number": request.invoice_metadata["invoice_number"],
        "description": request.description or "",
    }
    opened = create_checkout(payer, checkout, gateway_url, statement, networks, request.request_id)
    return str(opened["provider_payment_id"]), str(opened["checkout_url"])


def _receipt_url(request: CollectionRequest) -> str | None:
    """The receipt page of the checkout payment that paid `request` (None when it was paid
    otherwise, e.g. by recorded payments)."""
    payment = deps.payments().get(request.checkout_payment_id) if request.checkout_payment_id else None
    if payment is None or payment.status != Status.SUCCEEDED or not payment.checkout_url:
        return None
    return f"{payment.checkout_url}/receipt"


def open_link(request_id: str, gateway_url: str, asked: Decimal | None = None, wallet: bool = False) -> Destination:
    """GET /pay/{id}: where the payer goes (see the module's note); `asked`, the instalment the
    link names (see instalment). A request with a bank reference shows its bank details (state
    bank, with `wallets` when it may also be paid by wallet) unless `wallet` asks for its checkout."""
    for _attempt in range(MAX_ATTEMPTS):
        request = _request(request_id)
        if request.status == RequestStatus.PAID:
            return Destination(None, "paid", request, _receipt_url(request))
        if request.status == RequestStatus.CANCELLED:  # refused before any money moves
            return Destination(None, "not_payable", request)
        if status_of(request.account_id) != AccountStatus.ACTIVE:  # the gate (RouteAccess PAYEE_ACTIVE)
            return Destination(None, "suspended", request)
        wallets = _networks(request) if request.reference_number else []
        if request.reference_number and not (wallet and wallets):
            return Destination(None, "bank", request, wallets=bool(wallets))
        if request.checkout_payment_id:
            payment = deps.payments().get(request.checkout_payment_id)
            if payment is not None:
                payment = current(payment)
                settled = request.payment_reconciliation.get("gateway_transaction_id") == payment.provider_payment_id
                if payment.status in OPEN or (payment.status == Status.SUCCEEDED and not settled):
                    return Destination(payment.checkout_url, "checkout", request)
        networks = _networks(request)
        if not networks:
            return Destination(None, "not_payable", request)
        attempt = request.attempt + 1
        payment_id, url = _checkout(request, attempt, networks, gateway_url, instalment(request, asked))
        now = now_iso()
        reconciliation = {**request.payment_reconciliation, "payment_status": PaymentStatus.IN_PROCESS}
        changes = {
            "checkout_payment_id": payment_id,
            "attempt": attempt,
            "payment_reconciliation": reconciliation,
            "compliance_audit": {
                **request.compliance_audit,
                "viewed_at": request.compliance_audit.get("viewed_at") or now,
            },
            "updated_at": now,
        }
        try:
            deps.collection_requests().transition(request, changes, [])
        except Changed:
            continue  # another opening recorded the attempt (the same payment) or the request moved: look again
        return Destination(url, "checkout", request)
    raise ServiceError(
        503, "processing_error", "The collection request keeps changing; retry.", headers={"Retry-After": "1"}
    )
