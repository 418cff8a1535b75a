"""Bill quotes (docs/bills.md): a channel asks what paying a product to a reference costs; the
biller's supplier names the customer (and the invoice of an invoice product); the quote holds the
amount, fees and discount until its validity passes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from mzpay import deps
from mzpay.answers.bills import BillQuote as BillQuoteAnswer
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.quotes import (
    QuoteRequest,
    check_payable,
    chosen_amount,
    invoice_amount,
    pricing,
    quote_of,
)
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_id
from mzpay.steps.bills import ask_supplier, catalogue_of, invoice_of, owned_quote


def quote(principal: Principal, request: QuoteRequest) -> BillQuoteAnswer:
    """Ask the biller's supplier about `request` and keep its answer as a quote."""
    biller, product = catalogue_of(request.product_id)
    check_payable(biller, product)
    amount = chosen_amount(product, request.value)
    answer = ask_supplier(biller, product, principal.mode, request.reference, amount)
    moment = datetime.now(UTC)
    now = iso(moment)
    invoice = None
    if product.kind == "invoice":
        invoice = invoice_of(biller, product, principal.mode, answer, now)
        if invoice is None:
            raise ServiceError(422, "reference_not_found", f"{biller.name} has no invoice {request.reference}.")
        amount = invoice_amount(product, invoice, amount)
    assert amount is not None
    made = quote_of(
        (new_id(), principal.acting_account_id, principal.mode),
        biller,
        product,
        request.reference,
        answer.customer_name,
        pricing(product, Decimal(amount)),
        invoice,
        (now, iso(moment + timedelta(seconds=answer.valid_for))),
    )
    deps.bill_quotes().create(made)
    return BillQuoteAnswer.of(made.view(now))


def read_quote(principal: Principal, quote_id: str) -> BillQuoteAnswer:
    return BillQuoteAnswer.of(owned_quote(principal, quote_id).view(iso(datetime.now(UTC))))
