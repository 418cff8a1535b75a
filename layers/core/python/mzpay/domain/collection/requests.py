"""Collection requests (invoices) of the collection surface (docs/collection-requests.md): the
request a business issues to a payer (through its collection methods: mzpay.domain.collection.
methods), the rules its fields pass and the states it moves through. Pure rules: no storage, no HTTP.

A request's life: pending (payment_status pending) -> the payer opens its payment link, which
opens a hosted checkout (payment_status in_process) -> the checkout's payment succeeds (status
paid, payment_status paid, reconciliation matched) or ends otherwise (payment_status failed:
payable again through the same link). A pending request with no checkout open may be changed
and deleted; a paid one never.

Its stored statuses (docs/collection-requests.md, "A request's life"): pending (the invoice is
open) -> partially_paid (a request that takes instalments, paid in part) -> paid; pending or
partially_paid -> cancelled (by the business); deleted. `overdue` is never stored: a pending or
partially_paid request whose due date is before today in Maputo reads as overdue (computed in
every read and list, so it is right from Maputo's midnight whatever the sweep did); the daily
sweep sends its collection_request.overdue event once (`overdue_notified`)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ulid import ULID

from mzpay.domain.collection.methods import (
    AMOUNT_EXPONENT as AMOUNT_EXPONENT,
)
from mzpay.domain.collection.methods import (
    CENTS as CENTS,
)
from mzpay.domain.collection.methods import (
    CHECKOUT_NETWORKS as CHECKOUT_NETWORKS,
)
from mzpay.domain.collection.methods import (
    MAX_AMOUNT as MAX_AMOUNT,
)
from mzpay.domain.collection.methods import (
    MAX_METHODS_PER_ACCOUNT as MAX_METHODS_PER_ACCOUNT,
)
from mzpay.domain.collection.methods import (
    MAX_METHODS_PER_REQUEST as MAX_METHODS_PER_REQUEST,
)
from mzpay.domain.collection.methods import (  # re-exported: the requests' rules name them
    METHOD_TYPES as METHOD_TYPES,
)
from mzpay.domain.collection.methods import (
    MODES as MODES,
)
from mzpay.domain.collection.methods import (
    CollectionMethod as CollectionMethod,
)
from mzpay.domain.collection.methods import (
    MethodStatus as MethodStatus,
)
from mzpay.domain.collection.methods import (
    check_amount as check_amount,
)
from mzpay.domain.collection.methods import (
    check_installments as check_installments,
)
from mzpay.domain.collection.methods import (
    check_method_status as check_method_status,
)
from mzpay.domain.collection.methods import (
    check_method_type as check_method_type,
)
from mzpay.domain.collection.methods import (
    check_mode as check_mode,
)
from mzpay.domain.collection.methods import (
    installments_of as installments_of,
)
from mzpay.domain.collection.methods import (
    usable_methods as usable_methods,
)
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.errors import field_refusal as invalid  # noqa: F401 (the use cases name it rules.invalid)
from mzpay.domain.messages.format import today_in_maputo
from mzpay.domain.webhooks.events import Event, entity_event


# ---------------------------------------------------------------- requests
class RequestStatus:
    PENDING = "pending"  # open: nothing paid yet
    PARTIALLY_PAID = "partially_paid"  # instalments: a part paid, the rest due
    PAID = "paid"
    CANCELLED = "cancelled"  # by the business: no payment is taken any more
    OVERDUE = "overdue"  # read only: an open or partially_paid request past its due date
    DELETED = "deleted"  # gone from every read and list; kept for the audit


OPEN_STATUSES = (RequestStatus.PENDING, RequestStatus.PARTIALLY_PAID)  # stored: payable, cancellable


class PaymentStatus:
    PENDING = "pending"
    IN_PROCESS = "in_process"
    PAID = "paid"
    FAILED = "failed"


INVOICE_TYPES = ("standard", "proforma", "credit_note")
SOURCE_CHANNELS = ("api", "portal", "erp")

EVENT_CREATED = "collection_request.created"
EVENT_PAID = "collection_request.paid"
EVENT_PAYMENT_FAILED = "collection_request.payment_failed"
EVENT_PARTIALLY_PAID = "collection_request.partially_paid"
EVENT_CANCELLED = "collection_request.cancelled"
EVENT_OVERDUE = "collection_request.overdue"
EVENT_REFUND_DUE = "collection_request.refund_due"
EVENTS = (
    EVENT_CREATED,
    EVENT_PAID,
    EVENT_PAYMENT_FAILED,
    EVENT_PARTIALLY_PAID,
    EVENT_CANCELLED,
    EVENT_OVERDUE,
    EVENT_REFUND_DUE,
)


def maputo_today() -> str:
    """Today's date in Maputo (YYYY-MM-DD): what a due date is compared with."""
    return today_in_maputo(datetime.now(UTC)).isoformat()


class CollectionRequest(Entity):
    """An invoice a business issues to a payer (cr_...), paid through the gateway."""

    request_id: str
    account_id: str
    mode: str
    description: str | None = None
    collection_method_ids: list[str]
    collection_method_details: list[dict[str, str]]
    amount: dict[str, Any]  # {currency, value (Decimal)}
    payer: dict[str, Any]
    third_party_reference: str | None = None
    metadata: dict[str, str] = {}
    bill_info: dict[str, Any]
    invoice_metadata: dict[str, Any]
    financial_details: dict[str, Any]
    payment_reconciliation: dict[str, Any]
    integration_routing: dict[str, Any]
    compliance_audit: dict[str, Any]
    biller: dict[str, Any]
    listed: bool = True  # false: left out of the payer's list by phone (the business's choice)
    checkout_payment_id: str | None = None  # the gateway payment of the open (or last) attempt
    attempt: int = 0  # how many checkouts the payment link opened
    allow_installments: bool = False  # the business takes it in several payments (recorded ones)
    amount_paid: Decimal = Decimal(0)  # what the payments recorded against it paid so far
    customer_id: str | None = None  # the directory's customer it was issued to (docs/customers.md)
    min_installment: Decimal | None = None  # the least one instalment may be (from its methods)
    overpayment: Decimal = Decimal(0)  # money that moved beyond what was due, or after cancel: to refund
    cancellation: dict[str, Any] | None = None  # {cancelled_at, cancelled_by, reason}
    overdue_notified: bool = False  # the sweep sent collection_request.overdue
    reference_number: str | None = None  # its bank reference (simo_erv, interbank methods): bank_references
    reference_entity: str | None = None  # the SIMO entity of its check digits (None: interbank only)
    reference_amount: Decimal | None = None  # the amount its check digits bind (None: any, instalments)
    created_at: str
    updated_at: str

    @property
    def payer_phone(self) -> str | None:
        return (self.payer.get("contact") or {}).get("phone_number")

    @property
    def value(self) -> Decimal:
        return Decimal(str(self.amount["value"]))

    @property
    def outstanding(self) -> Decimal:
        """What is still due: the amount less what recorded payments paid."""
        return self.value - self.amount_paid

    @property
    def in_installments(self) -> bool:
        """Whether its views show what is paid and due (it takes instalments, or a payment was
        recorded against it): other requests answer as they always did."""
        return self.allow_installments or self.amount_paid > 0

    def shown_status(self, today: str | None = None) -> str:
        """The status reads and lists answer: overdue for an open or partially_paid request whose
        due date is before `today` (Maputo's, by default), the stored status otherwise."""
        due = self.invoice_metadata.get("due_date")
        if self.status in OPEN_STATUSES and due and str(due)[:10] < (today or maputo_today()):
            return RequestStatus.OVERDUE
        return self.status

    @property
    def money(self) -> dict[str, Any]:
        """{currency, value} with the value's two decimals (storage keeps a number's digits only)."""
        return {"currency": self.amount["currency"], "value": self.value.quantize(CENTS)}

    def view(self) -> dict[str, Any]:
        """The full CollectionRequest."""
        return {
            "id": self.request_id,
            "account_id": self.account_id,
            "mode": self.mode,
            "description": self.description,
            "collection_method_ids": self.collection_method_ids,
            "amount": self.money,
            "payer": {"legal_name": None, "vat_number": None, **self.payer},  # an individual may give neither
            "third_party_reference": self.third_party_reference,
            "metadata": self.metadata,
            "bill_info": self.bill_info,
            "collection_method_details": self.collection_method_details,
            "invoice_metadata": self.invoice_metadata,
            "financial_details": {**self.financial_details, "total_amount": self.money},
            "payment_reconciliation": self.payment_reconciliation,
            "integration_routing": self.integration_routing,
            "compliance_audit": self.compliance_audit,
            "biller": self.biller,
            "status": self.shown_status(),
            "listed": self.listed,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            **self._installments(),
            **self._customer(),
        }

    def _customer(self) -> dict[str, Any]:
        return {"customer_id": self.customer_id} if self.customer_id else {}

    def _installments(self) -> dict[str, Any]:
        currency = self.amount["currency"]
        shown: dict[str, Any] = {}
        if self.in_installments:
            shown |= {
                "allow_installments": self.allow_installments,
                "amount_paid": {"currency": currency, "value": self.amount_paid.quantize(CENTS)},
                "amount_due": {"currency": currency, "value": self.outstanding.quantize(CENTS)},
            }
            if self.min_installment is not None:
                shown["min_installment"] = {"currency": currency, "value": self.min_installment.quantize(CENTS)}
        if self.overpayment > 0:
            shown["overpayment"] = {"currency": currency, "value": self.overpayment.quantize(CENTS)}
        if self.cancellation is not None:
            shown["cancellation"] = self.cancellation
        return shown

    def created_view(self) -> dict[str, Any]:
        """The answer of POST /v1/collection-requests (spec: the create response's fields, with
        invoice_metadata, which carries the invoice number and the payment link)."""
        full = self.view()
        fields = (
            "id",
            "collection_method_ids",
            "description",
            "bill_info",
            "amount",
            "collection_method_details",
            "payer",
            "third_party_reference",
            "status",
            "metadata",
            "invoice_metadata",
            "mode",
            "listed",
            "created_at",
        )
        taken = {"allow_installments": True} if self.allow_installments else {}
        created = {"object": "collection_request", **{name: full[name] for name in fields}, **taken, **self._customer()}
        return created | {"status": self.status}  # just issued: pending, whatever its due date

    def summary(self) -> dict[str, Any]:
        """A list item of GET /v1/collection-requests."""
        payer = {name: self.payer.get(name) for name in ("first_name", "last_name", "legal_name", "type")}
        payer["delivery_method"] = self.payer.get("delivery_method")
        return {
            "id": self.request_id,
            "account_id": self.account_id,
            "description": self.description,
            "amount": self.money,
            "payer": payer,
            "status": self.shown_status(),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def public_item(self) -> dict[str, Any]:
        """A list item of the unsecured list by phone: id, description, amount, status, created_at."""
        return {
            "id": self.request_id,
            "description": self.description,
            "amount": self.money,
            "status": self.shown_status(),
            "created_at": self.created_at,
        }

    def public_view(self) -> dict[str, Any]:
        """The unsecured read: the request as its payer knows it. No personal data of the payer
        (names, NUIT, contact, address: only whether an individual or a business is billed), nor
        the business's internal metadata, routing and audit trail: a request id is all this
        endpoint asks for, and whoever holds one must learn nothing about the person billed."""
        full = self.view()
        payer = {"type": self.payer.get("type")}
        kept = (
            "id",
            "description",
            "amount",
            "collection_method_details",
            "invoice_metadata",
            "bill_info",
            "biller",
            "status",
            "created_at",
            "updated_at",
        )
        view = {name: full[name] for name in kept}
        view["payer"] = payer
        view["payment_reconciliation"] = {
            name: self.payment_reconciliation.get(name) for name in ("payment_status", "date_payment")
        }
        view["biller"] = {name: self.biller.get(name) for name in ("business_name", "logo", "contact")}
        return {"object": "collection_request", "collection_request": view}


def may_list_by_phone(phone_number: str, proof: CollectionRequest | None) -> bool:
    """The payer's list by phone is shown only to whoever holds a request sent to that number
    (`proof`: the request its payment link names, not deleted, whose payer has this number);
    anyone else gets the answer of a number with no requests, so numbers cannot be probed."""
    return proof is not None and proof.status != RequestStatus.DELETED and proof.payer_phone == phone_number


def request_event(kind: str, request: CollectionRequest, now: str) -> Event:
    """The event a request's change records: posted to its integration_routing.callback_url."""
    return entity_event(
        kind,
        request,
        "collection_request",
        request.request_id,
        request.view(),
        now,
        request.integration_routing.get("callback_url"),
    )


def checkout_payment_id(request_id: str, attempt: int) -> str:
    """The gateway payment_id of the checkout that attempt `attempt` of a request opens: the same
    for every opening of the link that races to open it (so one payment results), a ULID."""
    digest = hashlib.sha256(f"{request_id}#{attempt}".encode()).digest()
    return str(ULID.from_bytes(ULID.from_str(request_id.removeprefix("cr_")).bytes[:6] + digest[:10]))


def invoice_number(request_id: str, created_at: str) -> str:
    """INV-<year>-<10 characters of the request's ULID randomness>: unique, and not guessable
    from a neighbour's (the ULID's time part is left out)."""
    return f"INV-{created_at[:4]}-{request_id.removeprefix('cr_')[-10:]}"


def ensure_changeable(request: CollectionRequest, action: str) -> None:
    """Change and delete: only a pending request (a paid request is never changed or deleted);
    400 invalid_request naming the status otherwise. An open checkout is closed first (see
    mzpay.collection.collection_requests). Nor a request some payment was recorded against:
    what the payer owes is settled in part (docs/collection-payments.md)."""
    if request.status != RequestStatus.PENDING:
        raise ServiceError(
            400,
            "invalid_request",
            f"Cannot {action} a collection request that is {request.status}.",
            request_status=request.status,
        )
    if request.amount_paid > 0:
        raise ServiceError(
            400,
            "invalid_request",
            f"Cannot {action} a collection request that is partly paid.",
            request_status=request.status,
            amount_paid=request.amount_paid.quantize(CENTS),
        )


def payment_under_way(action: str) -> ServiceError:
    return ServiceError(
        400,
        "invalid_request",
        f"Cannot {action} a collection request while its payer is paying it.",
        request_status=RequestStatus.PENDING,
        payment_status=PaymentStatus.IN_PROCESS,
    )
