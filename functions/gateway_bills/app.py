"""Gateway API: bill payments through channels (docs/bills.md): quotes, payments, resends."""

from typing import TYPE_CHECKING, Annotated, Any

from mzpay.domain.bills import QuoteRequest
from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.marks import errors
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver, created
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import bill_quotes
else:  # each route's use case is loaded when a request first needs it
    bill_quotes = deferred("mzpay.cases.bill_quotes")

app = create_resolver(Surface.GATEWAY)


@app.post("/v1/bill-payments/quotes")
@requires("payments:write")
@errors(
    "not_found",
    "invalid_amount",
    "reference_not_found",
    "reference_rejected",
    "amount_out_of_range",
    "biller_unavailable",
    "invoice_closed",
)
def create_bill_quote(body: Annotated[QuoteRequest, Body()]) -> Response[dict[str, Any]]:
    """Quote a bill payment

    Asks the biller's supplier about the reference: the customer's name, the amount due (all
    an invoice still owes unless `amount` says less or more, where its product allows), the fee
    and discount, and how long the quote holds (`expires_at`). 201 `quoted`."""
    return created(bill_quotes.quote(merchant(), body))


@app.get("/v1/bill-payments/quotes/<quote_id>")
@requires("payments:read")
def read_bill_quote(quote_id: str) -> dict[str, Any]:
    """Read a bill quote

    `expired` once its validity passed; `used` once a payment took it."""
    return bill_quotes.read_quote(merchant(), quote_id)


lambda_handler = gateway_handler(app)
