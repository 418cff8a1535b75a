"""Gateway API: refunds, disputes and the balance."""

from typing import Annotated

from mzpay.answers.balance import Balance, BalanceTransaction, BalanceTransactionList
from mzpay.answers.disputes import Dispute, DisputeList
from mzpay.answers.refunds import RefundList, RefundResult
from mzpay.domain.common.evidence import EvidenceRequest
from mzpay.domain.payments.refunds import RefundBody, RefundRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors, filters
from mzpay.http.params import Body, Query
from mzpay.http.principal import merchant, requires
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import balance_transactions, disputes, listings, refunds

app = gateway_app()
REFUSALS = (  # of a refund, by either route
    "not_found",
    "invalid_amount",
    "invalid_currency",
    "amount_exceeds_remaining",
    "refund_id_reused",
    "invalid_state",
    "insufficient_balance",
    "not_supported",
    "no_connector_binding",
)


@app.post("/refunds")
@requires("refunds:write")
@idempotent(app)
@errors(*REFUSALS)
def create_refund(body: Annotated[RefundRequest, Body()]) -> RefundResult:
    """Refund a payment

    All of a succeeded payment, or `amount` of what is left to refund. The refund is answered
    pending or succeeded; its webhook follows when it settles."""
    refund_id = body.refund_id or derived_id("refund")  # a retry after a fault names the same refund
    return refunds.create_refund(merchant(), body.provider_payment_id, refund_id, body.amount, body.reason)


@app.post("/v1/payments/<payment_id>/refund")
@requires("refunds:write")
@idempotent(app)
@errors(*REFUSALS)
def refund_payment(payment_id: str, body: Annotated[RefundBody | None, Body()] = None) -> RefundResult:
    """Refund a payment (by its path)

    As POST /refunds, with the payment in the path and the body optional (all of it)."""
    request = body or RefundBody()
    refund_id = request.refund_id or derived_id("refund")
    return refunds.create_refund(merchant(), payment_id, refund_id, request.amount, request.reason)


@app.get("/v1/refunds")
@requires("payments:read")
@errors("invalid_request")
@filters("refunds")
def list_refunds() -> RefundList:
    """List refunds

    The account's refunds in the key's mode, newest first, by the filters below (docs/lists.md)."""
    return listings.refunds(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/payments/<payment_id>/refunds")
@requires("payments:read")
@errors("invalid_request")
@filters("refunds")
def list_payment_refunds(payment_id: str) -> RefundList:
    """List a payment's refunds

    The refunds of one of the account's payments, newest first."""
    return listings.payment_refunds(merchant(), payment_id, app.current_event.query_string_parameters or {})


@app.get("/v1/refunds/<refund_id>")
@requires("payments:read")
def read_refund(refund_id: str) -> RefundResult:
    """Read a refund"""
    return refunds.read_refund(merchant(), refund_id)


@app.get("/v1/balance")
@requires("balance:read")
def read_balance() -> Balance:
    """Read the balance

    Per currency: what is available to pay out or refund, and what is held."""
    return refunds.balance(merchant())


@app.get("/v1/balance/transactions")
@requires("balance:read")
@errors("invalid_request")
def list_balance_transactions(
    page_size: Annotated[str | None, Query(description="Transactions per page, 1 to 100 (50 by default).")] = None,
    page_token: Annotated[str | None, Query(description="The next_page_token of the previous page.")] = None,
    currency: Annotated[str | None, Query(description="Only this currency's (e.g. MZN).")] = None,
    type: Annotated[str | None, Query(description="Only this type (charge, refund, payout, ...).")] = None,
    created_gte: Annotated[str | None, Query(description="Made at or after this ISO 8601 time.")] = None,
    created_lt: Annotated[str | None, Query(description="Made before this ISO 8601 time.")] = None,
    source: Annotated[str | None, Query(description="Only those of this payment, refund, payout, ...")] = None,
) -> BalanceTransactionList:
    """List balance transactions

    Every movement of the balance in the key's mode, newest first, each with the balance right
    after it; their nets add up to GET /v1/balance. An unknown parameter is 400 naming it."""
    return balance_transactions.listing(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/balance/transactions/<transaction_id>")
@requires("balance:read")
def read_balance_transaction(transaction_id: str) -> BalanceTransaction:
    """Read a balance transaction

    One movement of the balance (btx_...), with the balance right after it."""
    return balance_transactions.read(merchant(), transaction_id)


@app.get("/v1/disputes")
@requires("payments:read")
@errors("invalid_request")
@filters("disputes")
def list_disputes() -> DisputeList:
    """List disputes

    The account's disputes in the key's mode, newest first, by the filters below (docs/lists.md);
    `payment` lists one payment's disputes."""
    return listings.disputes(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/disputes/<dispute_id>")
@requires("payments:read")
def read_dispute(dispute_id: str) -> Dispute:
    """Read a dispute

    Its status, the money it holds, the evidence given and the decision."""
    return disputes.read(merchant(), dispute_id)


@app.post("/v1/disputes/<dispute_id>/evidence")
@requires("refunds:write")
@errors("invalid_state", "invalid_request")
def submit_dispute_evidence(dispute_id: str, body: Annotated[EvidenceRequest, Body()]) -> Dispute:
    """Submit a dispute's evidence

    Text and up to 3 files (PDF, PNG, JPEG; base64, 2 MiB each), given once while the dispute
    needs a response; it is then under review and the evidence cannot change (409 invalid_state)."""
    return disputes.submit_evidence(merchant(), dispute_id, body)


@app.post("/v1/disputes/<dispute_id>/accept")
@requires("refunds:write")
@errors("invalid_state")
def accept_dispute(dispute_id: str) -> Dispute:
    """Accept a dispute

    The merchant concedes while the dispute needs a response: it is lost and the held money goes
    to the payer."""
    return disputes.accept(merchant(), dispute_id)


lambda_handler = gateway_handler(app)
