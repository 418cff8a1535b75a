"""Gateway API: payouts, payout batches and name lookups."""

from typing import Annotated

from mzpay.answers.name_lookups import NameLookup
from mzpay.answers.payouts import Payout, PayoutBatch, PayoutList
from mzpay.domain.payouts.batches import PayoutBatchRequest
from mzpay.domain.payouts.name_lookups import NameLookupRequest
from mzpay.domain.payouts.rules import BankPayoutRequest, PayoutRequest, check_payout
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.batch_lines import parse_lines
from mzpay.http.gateway_schemas import SelectCandidate
from mzpay.http.idempotency import idempotent
from mzpay.http.marks import errors, filters
from mzpay.http.params import Body
from mzpay.http.principal import merchant, requires
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import listings, name_lookups, payout_batches, payouts

app = gateway_app()
REFUSALS = (  # of any payout (a wallet payout may also break the network's phone and amount rules)
    "invalid_amount",
    "invalid_currency",
    "invalid_method",
    "invalid_account",
    "beneficiary_name_required",
    "invalid_callback_url",
    "payout_id_reused",
    "insufficient_balance",
    "limit_exceeded",
    "not_supported",
    "no_connector_binding",
)


@app.post("/payouts")
@requires("payouts:write")
@idempotent(app)
@errors(*REFUSALS, "invalid_phone", "missing_phone", "amount_too_low", "amount_too_high", "unsupported_currency")
def create_payout(body: Annotated[PayoutRequest, Body()]) -> Payout:
    """Send a payout

    Money from the account's balance to a mobile wallet or a bank account. Answered `pending`
    at once (or `awaiting_approval` above the account's approval threshold); a webhook follows
    when it settles."""
    return payouts.create_payout(merchant(), body)


@app.post("/v1/payouts")
@requires("payouts:write")
@idempotent(app)
@errors(*REFUSALS)
def create_bank_payout(body: Annotated[BankPayoutRequest, Body()]) -> Payout:
    """Send a bank payout

    A payout to a beneficiary's bank account (NIB), as POST /payouts answers it."""
    check_payout(body)
    return payouts.create_payout(merchant(), body.to_payout_request())


@app.get("/v1/payouts")
@requires("payouts:read")
@errors("invalid_request")
@filters("payouts")
def list_payouts() -> PayoutList:
    """List payouts

    The account's payouts in the key's mode, newest first, by the filters below (docs/lists.md);
    `batch_id` lists a payout batch's payouts."""
    return listings.payouts(merchant(), app.current_event.query_string_parameters or {})


@app.get("/payouts/<payout_id>")
@app.get("/v1/payouts/<payout_id>")
@requires("payouts:read")
def read_payout(payout_id: str) -> Payout:
    """Read a payout"""
    return payouts.read_payout(merchant(), payout_id)


@app.post("/v1/payouts/<payout_id>/cancel")
@requires("payouts:write")
@idempotent(app)
@errors("invalid_state")
def cancel_payout(payout_id: str) -> Payout:
    """Cancel a payout

    While it is pending or awaiting approval; the held money returns to the balance."""
    return payouts.cancel(merchant(), payout_id)


@app.post("/v1/payout-batches")
@requires("payouts:write")
@idempotent(app)
@errors("invalid_currency", "invalid_callback_url")
def create_payout_batch(body: Annotated[PayoutBatchRequest, Body()]) -> PayoutBatch:
    """Upload a payout batch

    Up to 1000 payouts (each line what POST /payouts takes) in one currency. Every line is
    judged as POST /payouts would judge it, and nothing is paid or held: the batch is `open`
    with its report of refused lines and their codes. Close it, then release it."""
    return payout_batches.create_batch(merchant(), body, parse_lines(body.lines))


@app.get("/v1/payout-batches/<batch_id>")
@requires("payouts:read")
def read_payout_batch(batch_id: str) -> PayoutBatch:
    """Read a payout batch

    Its status, totals, the report of refused lines and, once sent, the payout made for each
    accepted line."""
    return payout_batches.read_batch(merchant(), batch_id)


@app.post("/v1/payout-batches/<batch_id>/close")
@requires("payouts:write")
@idempotent(app)
@errors("invalid_state")
def close_payout_batch(batch_id: str) -> PayoutBatch:
    """Close a payout batch

    An open batch is frozen as its report shows it (only its accepted lines will be paid), ready
    to release."""
    return payout_batches.close(merchant(), batch_id)


@app.post("/v1/payout-batches/<batch_id>/release")
@requires("payouts:write")
@idempotent(app)
@errors("invalid_state", "insufficient_balance", "limit_exceeded")
def release_payout_batch(batch_id: str) -> PayoutBatch:
    """Release a payout batch

    A closed batch is `released` and sent at once through the settlement queue (each accepted
    line a payout), or `awaiting_approval` when its total is above the account's approval
    threshold. The debit account's daily batch ceiling applies (rule `debit_daily`)."""
    return payout_batches.release(merchant(), batch_id)


@app.post("/v1/name-lookups")
@requires("payouts:write")
@errors("invalid_phone", "invalid_account", "not_supported", "no_connector_binding", "upstream_error")
def create_name_lookup(body: Annotated[NameLookupRequest, Body()]) -> NameLookup:
    """Look up an account holder's name

    Before a payout: the masked name the provider knows for a wallet number or NIB, or
    candidates to choose from when the reference is ambiguous."""
    return name_lookups.create_lookup(merchant(), body)


@app.post("/v1/name-lookups/<lookup_id>/select")
@requires("payouts:write")
@errors("invalid_state")
def select_name(lookup_id: str, body: Annotated[SelectCandidate, Body()]) -> NameLookup:
    """Choose the holder of an ambiguous lookup (once)"""
    return name_lookups.select(merchant(), lookup_id, body.candidate_id)


lambda_handler = gateway_handler(app)
