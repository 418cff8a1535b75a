"""What bill quotes, bill payments and their reconciliation share: the catalogue's biller and
product of a quote, the supplier that answers for a biller in a mode, and the caller's own quotes
and payments (another account's is 404, the other mode's 401 wrong_environment)."""

from __future__ import annotations

from decimal import Decimal

from mzpay import deps
from mzpay.connectors.bill_suppliers import (
    AmountRefused,
    BillSupplier,
    ReferenceNotFound,
    ReferenceRejected,
    SupplierQuote,
    SupplierUnavailable,
    supplier_for,
)
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.bills.billers import Biller, BillProduct
from mzpay.domain.bills.quotes import BillQuote, Invoice, biller_unavailable, out_of_range, supplier_down
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid


def catalogue_of(product_id: str) -> tuple[Biller, BillProduct]:
    product = deps.billers().product(product_id)
    biller = deps.billers().get(product.biller_id) if product is not None else None
    if product is None or biller is None:
        raise ServiceError(404, "not_found", "No such bill product.")
    return biller, product


def supplier_of(biller: Biller, mode: str) -> BillSupplier:
    """The supplier of `biller` in `mode`; 422 biller_unavailable when none is configured."""
    supplier = supplier_for(biller.supplier, mode)
    if supplier is None:
        raise biller_unavailable(f"{biller.name} has no supplier configured for {mode} payments.")
    return supplier


def ask_supplier(
    biller: Biller, product: BillProduct, mode: str, reference: str, amount: Decimal | None
) -> SupplierQuote:
    """The supplier's quote for `reference`, its refusals answered with the spec's codes."""
    supplier = supplier_of(biller, mode)
    try:
        return supplier.quote(product.supplier_product, reference, amount)
    except ReferenceNotFound:
        raise ServiceError(
            422, "reference_not_found", f"{biller.name} knows no customer for reference {reference}."
        ) from None
    except ReferenceRejected as refused:
        raise ServiceError(422, "reference_rejected", str(refused)) from None
    except AmountRefused as refused:
        raise out_of_range(str(refused)) from None
    except SupplierUnavailable:
        raise supplier_down(biller) from None


def invoice_of(biller: Biller, product: BillProduct, mode: str, answer: SupplierQuote, now: str) -> Invoice | None:
    """The invoice the supplier of `mode` showed, as the gateway keeps it in that mode (the one
    kept already, if any)."""
    shown = answer.invoice
    if shown is None:
        return None
    return deps.bill_quotes().first_seen(
        Invoice(
            biller_id=biller.biller_id,
            mode=mode,
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


def owned_quote(principal: Principal, quote_id: str) -> BillQuote:
    return own(principal, deps.bill_quotes().get(quote_id) if is_ulid(quote_id) else None, "bill quote")
