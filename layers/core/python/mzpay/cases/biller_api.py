"""The billers' own API (mzpay.domain.bills.biller_api, docs/bills.md): a biller's key changes its
open, unpaid invoices and attaches their PDF. An invoice the gateway has not seen yet is asked of
the biller's supplier first (its system is the invoices' origin)."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.bills import BillerInvoice
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.biller_api import (
    InvoicePatch,
    check_attachable,
    check_editable,
    document_of,
    not_a_biller,
)
from mzpay.domain.bills.billers import ACTIVE, Biller
from mzpay.domain.bills.quotes import Invoice
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.steps.bills import ask_supplier, invoice_of
from mzpay.steps.uploads import admit_upload
from mzpay.store.bills import InvoiceChanged, save_document
from mzpay.store.transitions import rejudged


def _biller(principal: Principal) -> Biller:
    """The biller the key's account is registered as (403 not_a_biller otherwise)."""
    for biller in deps.billers().listing():
        if biller.account_id == principal.acting_account_id and biller.status != "retired":
            return biller
    raise not_a_biller()


def _invoice(principal: Principal, biller: Biller, number: str) -> Invoice:
    kept = deps.bill_quotes().invoice(biller.biller_id, principal.mode, number)
    if kept is not None:
        return kept
    products = [p for p in deps.billers().products(biller.biller_id) if p.kind == "invoice" and p.status == ACTIVE]
    for product in products:
        try:
            answer = ask_supplier(biller, product, principal.mode, number, None)
        except ServiceError as refused:
            if refused.code in ("reference_not_found", "reference_rejected"):
                continue
            raise
        invoice = invoice_of(biller, product, principal.mode, answer, iso(datetime.now(UTC)))
        if invoice is not None:
            return invoice
    raise ServiceError(404, "not_found", "No such invoice.")


def change_invoice(principal: Principal, number: str, patch: InvoicePatch) -> BillerInvoice:
    """Change an open, unpaid invoice (409 invoice_locked otherwise); of racing changes and
    payments, each is judged on the invoice as the last one left it."""
    biller = _biller(principal)
    changes = patch.changes()

    def write(invoice: Invoice) -> Invoice:
        check_editable(invoice)
        if not changes:
            return invoice
        return deps.bill_quotes().change_invoice(invoice, {**changes, "updated_at": iso(datetime.now(UTC))})

    return BillerInvoice.of(
        rejudged(lambda: _invoice(principal, biller, number), write, InvoiceChanged, "invoice").view()
    )


def attach_document(principal: Principal, number: str, media_type: str, content: bytes) -> BillerInvoice:
    """Keep the invoice's PDF (with its SHA-256) and name it on the invoice; 409 invoice_closed
    for a cancelled or expired invoice."""
    biller = _biller(principal)
    document = document_of(media_type, content)
    check_attachable(_invoice(principal, biller, number))
    admit_upload(principal.account_id, document.size, principal.mode)  # 429 rate_limited over the upload limits
    where = save_document(biller.biller_id, principal.mode, number, document.content, document.sha256)

    def write(invoice: Invoice) -> Invoice:
        check_attachable(invoice)
        now = iso(datetime.now(UTC))
        kept = {
            **where,
            "sha256": document.sha256,
            "size": document.size,
            "content_type": media_type,
            "uploaded_at": now,
        }
        return deps.bill_quotes().change_invoice(invoice, {"document": kept, "updated_at": now})

    return BillerInvoice.of(
        rejudged(lambda: _invoice(principal, biller, number), write, InvoiceChanged, "invoice").view()
    )
