"""Bill quotes (docs/bills.md): a channel asks what paying a product to a reference costs; the
biller's supplier names the customer (and the invoice of an invoice product); the quote holds the
amount, fees and discount until its validity passes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.connectors.bill_suppliers import AmountRefused, ReferenceNotFound, ReferenceRejected, SupplierUnavailable
from mzpay.domain.bills import (
    Invoice,
    QuoteRequest,
    check_payable,
    chosen_amount,
    invoice_amount,
    out_of_range,
    pricing,
    quote_of,
    supplier_down,
)
from mzpay.domain.clock import iso
from mzpay.domain.errors import ServiceError
from mzpay.domain.ids import new_id
from mzpay.domain.principal import Principal
from mzpay.steps.bills import catalogue_of, owned_quote, supplier_of


def quote(principal: Principal, request: QuoteRequest) -> dict[str, Any]:
    """Ask the biller's supplier about `request` and keep its answer as a quote."""
    biller, product = catalogue_of(request.product_id)
    check_payable(biller, product)
    supplier = supplier_of(biller, principal.mode)
    amount = chosen_amount(product, request.value)
    try:
        answer = supplier.quote(product.supplier_product, request.reference, amount)
    except ReferenceNotFound:
        raise ServiceError(
            422, "reference_not_found", f"{biller.name} knows no customer for reference {request.reference}."
        ) from None
    except ReferenceRejected as refused:
        raise ServiceError(422, "reference_rejected", str(refused)) from None
    except AmountRefused as refused:
        raise out_of_range(str(refused)) from None
    except SupplierUnavailable:
        raise supplier_down(biller) from None
    moment = datetime.now(UTC)
    now = iso(moment)
    invoice = None
    if product.kind == "invoice":
        if answer.invoice is None:
            raise ServiceError(422, "reference_not_found", f"{biller.name} has no invoice {request.reference}.")
        shown = answer.invoice
        invoice = deps.bill_quotes().first_seen(
            Invoice(
                biller_id=biller.biller_id,
                number=shown.number,
                customer_name=answer.customer_name,
                currency=product.currency,
                amount_due=f"{shown.amount_due:.2f}",
                due_date=shown.due_date,
                status=shown.status,
                version=1,
                created_at=now,
                updated_at=now,
            )
        )
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
    return made.view(now)


def read_quote(principal: Principal, quote_id: str) -> dict[str, Any]:
    return owned_quote(principal, quote_id).view(iso(datetime.now(UTC)))
