"""Gateway API: PSP transactions and cash deposits at partner agents."""

from typing import TYPE_CHECKING, Annotated, Any

from mzpay.domain.psp_transactions import PspTransactionRequest
from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.idempotency import idempotent
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver, created
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import psp_transactions
else:  # each route's use case is loaded when a request first needs it
    psp_transactions = deferred("mzpay.cases.psp_transactions")

app = create_resolver(Surface.GATEWAY)


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
def record_psp_transaction(body: Annotated[PspTransactionRequest, Body()]) -> Response[dict[str, Any]]:
    """Record a PSP transaction

    A payment, payout or refund the PSP moved on its own rails, under its `originator_reference`
    (unique per account and mode). A refund names its original payment's reference and stays
    within what is left of it. Answered 201 `recorded`; `psp_transaction.recorded` follows."""
    return created(psp_transactions.record(merchant(), body))


@app.get("/v1/psp/transactions")
@requires("payments:read")
def list_psp_transactions(
    originator_reference: Annotated[
        str | None, Query(description="Only the transaction with this originator_reference (at most 64 characters).")
    ] = None,
    limit: Annotated[str | None, Query(description="Transactions per page, 1 to 100 (20 by default).")] = None,
    page_token: Annotated[str | None, Query(description="The next_page_token of the previous page.")] = None,
) -> dict[str, Any]:
    """List PSP transactions

    Newest first, in the key's mode; `originator_reference` finds the one that carries it (an
    empty list when none does)."""
    return psp_transactions.listing(merchant(), originator_reference, limit, page_token)


@app.get("/v1/psp/transactions/<transaction_id>")
@requires("payments:read")
def read_psp_transaction(transaction_id: str) -> dict[str, Any]:
    """Read a PSP transaction

    A payment also shows how much of it was refunded."""
    return psp_transactions.read(merchant(), transaction_id)


lambda_handler = gateway_handler(app)
