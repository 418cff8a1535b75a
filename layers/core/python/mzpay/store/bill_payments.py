"""Bill payments in the payments table: BILLPAY#<payment_id>/BILLPAY (in the sweep's `expiry`
index while pending). Paying a quote is ONE transaction: the payment, its quote marked used (on
condition that it is still quoted and unchanged: of two payments of one quote, one lands), the
channel's float held in the ledger (on condition that available covers it), the product's daily
totals, the invoice's paid amount (versioned) and the event."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.bills.quotes import BillQuote, Invoice
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.ledger import Entry
from mzpay.domain.webhooks.events import Event
from mzpay.store.base import PaymentsTableStore, keyed
from mzpay.store.bills import invoice_key, quote_key
from mzpay.store.events import event_puts
from mzpay.store.ledger import BalanceTooLow, entry_items
from mzpay.store.list_keys import list_attributes
from mzpay.store.payments import CeilingReached, Reservation, counter_raises, counter_releases
from mzpay.store.transitions import versioned_update, write_token


class QuoteTaken(Exception):
    """The quote moved since it was read (another payment used it, or it expired)."""


class InvoiceMoved(Exception):
    """The invoice changed since it was read (another payment, the biller)."""


_key = keyed("BILLPAY", "BILLPAY")


def invoice_update(name: str, invoice: Invoice | None, changes: dict[str, Any] | None) -> list[dict[str, Any]]:
    if invoice is None or changes is None:
        return []
    return [versioned_update(name, invoice_key(invoice.biller_id, invoice.mode, invoice.number), invoice, changes)]


class BillPayments(PaymentsTableStore):
    def create(
        self,
        payment: BillPayment,
        quote: BillQuote,
        held: Entry,
        reservations: tuple[Reservation, ...],
        invoice: tuple[Invoice, dict[str, Any]] | None,
        events: list[Event],
        ttl: int,
    ) -> None:
        """QuoteTaken, BalanceTooLow, CeilingReached or InvoiceMoved when a condition stops it
        (a payment_id written already is QuoteTaken too: its own quote is used)."""
        used = {"status": "used", "payment_id": payment.payment_id, "updated_at": payment.created_at}
        item = {**_key(payment.payment_id), **payment.item(), **list_attributes(payment)}
        put = {"TableName": self.name, "Item": item}
        items = [
            {"Put": {**put, "ConditionExpression": "attribute_not_exists(pk)"}},
            versioned_update(self.name, quote_key(quote.quote_id), quote, used),
            *entry_items(self.name, held),  # [2] the balance (conditional), [3] the entry
            *counter_raises(self.name, reservations, ttl),
            *invoice_update(self.name, *(invoice or (None, None))),
            *event_puts(self.events_name, events),
        ]

        def refused(item: int) -> Exception:
            if item == 2:
                return BalanceTooLow()
            if invoice is not None and item == 4 + len(reservations):
                return InvoiceMoved()
            return CeilingReached.of(reservations, 4, item) or QuoteTaken()

        self.transact_new(items, refused)

    def get(self, payment_id: str) -> BillPayment | None:
        return self.read_item(BillPayment, _key(payment_id))

    def transition(
        self,
        payment: BillPayment,
        changes: dict[str, Any],
        events: list[Event],
        entry: Entry | None = None,
        release: bool = False,
        invoice: tuple[Invoice, dict[str, Any]] | None = None,
    ) -> BillPayment:
        """Apply `changes` if the payment is as it was read (else 409 invalid_state), with its
        events, ledger entry, the daily totals given back (`release`) and the invoice's change
        (InvoiceMoved when the invoice changed since read)."""
        releases = counter_releases(self.name, payment.reservations, Decimal(0)) if release else []
        token = write_token()
        items = [
            versioned_update(self.name, _key(payment.payment_id), payment, changes, token),
            *event_puts(self.events_name, events),
            *entry_items(self.name, entry),
            *releases,
            *invoice_update(self.name, *(invoice or (None, None))),
        ]

        def refused(fresh: BillPayment | None, _exc: BaseException) -> Exception:
            if invoice is not None and fresh is not None and fresh.version == payment.version:
                return InvoiceMoved()
            return ServiceError(409, "invalid_state", "The bill payment changed meanwhile.")

        return self.transact_versioned(items, payment, changes, token, lambda: self.get(payment.payment_id), refused)
