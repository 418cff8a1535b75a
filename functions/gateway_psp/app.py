"""Gateway API: PSP transactions and cash deposits at partner agents."""

from typing import Annotated

from mzpay.answers.partners import (
    CashDeposit,
    CashDepositIntent,
    CashDepositList,
    PspTransaction,
    PspTransactionList,
)
from mzpay.domain.payouts.cash_deposits import DepositRequest, IntentRequest
from mzpay.domain.psp.transactions import PspTransactionRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.idempotency import idempotent
from mzpay.http.marks import errors, filters
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import created, to_response
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import cash_deposits, listings, psp_transactions

app = gateway_app()


@app.post("/v1/psp/transactions")
@requires("payments:write")
@idempotent(app)
@errors(
    "duplicate_originator_reference",
    "not_refundable",
    "not_found",
    "invalid_amount",
    "invalid_currency",
    "invalid_method",
    "invalid_account",
    "invalid_phone",
    "missing_phone",
    "beneficiary_name_required",
    "invalid_callback_url",
    "limit_exceeded",
)
def record_psp_transaction(body: Annotated[PspTransactionRequest, Body()]) -> Response[PspTransaction]:
    """Record a PSP transaction

    A payment, payout or refund the PSP moved on its own rails, under its `originator_reference`
    (unique per account and mode). A refund names its original payment's reference and stays
    within what is left of it. Answered 201 `recorded`; `psp_transaction.recorded` follows."""
    return created(psp_transactions.record(merchant(), body))


@app.get("/v1/psp/transactions")
@requires("payments:read")
@errors("invalid_request")
@filters("psp_transactions")
def list_psp_transactions() -> PspTransactionList:
    """List PSP transactions

    Newest first, in the key's mode, by the filters below (docs/lists.md); `originator_reference`
    finds the one that carries it (an empty list when none does)."""
    return listings.psp_transactions(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/psp/transactions/<transaction_id>")
@requires("payments:read")
def read_psp_transaction(transaction_id: str) -> PspTransaction:
    """Read a PSP transaction

    A payment also shows how much of it was refunded."""
    return psp_transactions.read(merchant(), transaction_id)


@app.post("/v1/cash-deposits/intents")
@requires("payouts:write")
@errors(
    "not_a_partner",
    "lookup_used",
    "deposit_refused",
    "invalid_state",
    "invalid_amount",
    "invalid_currency",
    "pilot_limit",
)
def open_cash_deposit_intent(body: Annotated[IntentRequest, Body()]) -> Response[CashDepositIntent]:
    """Open a cash-deposit intent

    A partner's agent is about to take cash for the wallet a name lookup found (selected, when
    it was ambiguous). 201 with the new intent; the same lookup, amount and currency again
    answers 200 with that intent; another amount or currency is 409 `lookup_used`."""
    intent, made = cash_deposits.open_intent(merchant(), body)
    return created(intent) if made else to_response(intent)


@app.get("/v1/cash-deposits/intents/<intent_id>")
@requires("payouts:read")
@errors("not_a_partner")
def read_cash_deposit_intent(intent_id: str) -> CashDepositIntent:
    """Read a cash-deposit intent"""
    return cash_deposits.read_intent(merchant(), intent_id)


@app.post("/v1/cash-deposits")
@requires("payouts:write")
@idempotent(app)
@errors(
    "not_a_partner",
    "deposit_refused",
    "invalid_state",
    "insufficient_balance",
    "limit_exceeded",
    "invalid_callback_url",
    "no_connector_binding",
)
def confirm_cash_deposit(body: Annotated[DepositRequest, Body()]) -> Response[CashDeposit]:
    """Confirm a cash deposit

    The agent counted the intent's cash: the partner pays it into the payer's wallet from its
    available balance. Answered 201 `pending`; `cash_deposit.succeeded` or `cash_deposit.failed`
    follows when the provider answers."""
    return created(cash_deposits.confirm(merchant(), body))


@app.get("/v1/cash-deposits")
@requires("payouts:read")
@errors("not_a_partner", "invalid_request")
@filters("cash_deposits")
def list_cash_deposits() -> CashDepositList:
    """List cash deposits

    The partner's cash deposits in the key's mode, newest first, by the filters below
    (docs/lists.md); `intent_id` finds the deposit of one intent."""
    return listings.cash_deposits(merchant(), app.current_event.query_string_parameters or {})


@app.get("/v1/cash-deposits/<deposit_id>")
@requires("payouts:read")
@errors("not_a_partner")
def read_cash_deposit(deposit_id: str) -> CashDeposit:
    """Read a cash deposit"""
    return cash_deposits.read_deposit(merchant(), deposit_id)


lambda_handler = gateway_handler(app)
