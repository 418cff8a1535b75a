"""Bill quotes and invoices in the payments table: BQ#<quote_id>/QUOTE and
INVOICE#<biller_id>#<mode>#<number>/INVOICE (an invoice is written the first time its supplier
shows it in that mode, then changed only by versioned updates: payments, the biller's own
changes). Modes never meet: a test payment or change reaches the test invoice only."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote_plus

from mzpay.domain.bills.quotes import BillQuote, Invoice
from mzpay.store.aws import client, env, is_conditional_failure
from mzpay.store.base import InPaymentsTable
from mzpay.store.transitions import applied, versioned_update


def quote_key(quote_id: str) -> dict[str, str]:
    return {"pk": f"BQ#{quote_id}", "sk": "QUOTE"}


def invoice_key(biller_id: str, mode: str, number: str) -> dict[str, str]:
    return {"pk": f"INVOICE#{biller_id}#{mode}#{number}", "sk": "INVOICE"}


class BillQuotes(InPaymentsTable):
    def create(self, quote: BillQuote) -> None:
        self.put_new_item({**quote_key(quote.quote_id), **quote.item()})

    def get(self, quote_id: str) -> BillQuote | None:
        return self.read_item(BillQuote, quote_key(quote_id))

    def transition(self, quote: BillQuote, changes: dict[str, Any]) -> BillQuote | None:
        """Apply `changes` if the quote is as read; None when another change came first."""
        try:
            self.client.update_item(**versioned_update(self.name, quote_key(quote.quote_id), quote, changes)["Update"])
        except Exception as exc:
            if is_conditional_failure(exc):
                return None
            raise
        return applied(quote, changes)

    # ------------------------------------------------------------ invoices
    def invoice(self, biller_id: str, mode: str, number: str) -> Invoice | None:
        """The invoice `number` of `biller_id` as kept in `mode` (None before its supplier showed it there)."""
        return self.read_item(Invoice, invoice_key(biller_id, mode, number))

    def first_seen(self, invoice: Invoice) -> Invoice:
        """Keep `invoice` as its supplier first showed it; the one kept already if any."""
        try:
            self.put_new_item({**invoice_key(invoice.biller_id, invoice.mode, invoice.number), **invoice.item()})
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            kept = self.invoice(invoice.biller_id, invoice.mode, invoice.number)
            assert kept is not None
            return kept
        return invoice

    def change_invoice(self, invoice: Invoice, changes: dict[str, Any]) -> Invoice:
        """Apply `changes` if the invoice is as read, else InvoiceChanged."""
        key = invoice_key(invoice.biller_id, invoice.mode, invoice.number)
        return self.change_versioned(key, invoice, changes, InvoiceChanged)


class InvoiceChanged(Exception):
    """The invoice changed since it was read (a payment, another change of the biller's)."""


def save_document(biller_id: str, mode: str, number: str, content: bytes, sha256: str) -> dict[str, Any]:
    """An invoice's PDF in the uploads bucket (invoices/<biller_id>/<mode>/<number>/<sha256>.pdf),
    with S3's own SHA-256 check of what arrives; where it is."""
    bucket = env("UPLOADS_BUCKET")
    key = f"invoices/{biller_id}/{mode}/{quote_plus(number)}/{sha256}.pdf"
    client("s3").put_object(
        Bucket=bucket,
        Key=key,
        Body=content,
        ContentType="application/pdf",
        ChecksumSHA256=base64.b64encode(bytes.fromhex(sha256)).decode(),
        Metadata={"sha256": sha256},
    )
    return {"bucket": bucket, "key": key}
