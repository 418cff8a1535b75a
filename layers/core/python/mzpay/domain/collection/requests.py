"""Collection requests (invoices) of the collection surface (docs/collection-requests.md): what a
business can be paid through (its collection methods), the request it issues to a payer, the
rules its fields pass and the states it moves through. Pure rules: no storage, no HTTP.

A request's life: pending (payment_status pending) -> the payer opens its payment link, which
opens a hosted checkout (payment_status in_process) -> the checkout's payment succeeds (status
paid, payment_status paid, reconciliation matched) or ends otherwise (payment_status failed:
payable again through the same link). A pending request with no checkout open may be changed
and deleted; a paid one never.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Any

from ulid import ULID

from mzpay.domain.collection.business import INVALID_FORMAT, NOT_FOUND, REQUIRED
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid
from mzpay.domain.payments.methods import METHODS, NETWORK_NAMES
from mzpay.domain.webhooks.events import Event, entity_event

# ---------------------------------------------------------------- collection methods
# type -> the name a method of that type gets when the business gives none
METHOD_TYPES = {
    "mpesa": "M-Pesa",
    "emola": "e-Mola",
    "mkesh": "mKesh",
    "bank_transfer": "Bank transfer",
    "payment_reference": "Payment reference",
    "card": "Card",
}
CHECKOUT_NETWORKS = tuple(NETWORK_NAMES)  # the methods a payer pays with on the hosted checkout
MODES = ("test", "live")
MAX_METHODS_PER_REQUEST = 10
MAX_METHODS_PER_ACCOUNT = 50


class MethodStatus:
    ACTIVE = "active"
    INACTIVE = "inactive"


class CollectionMethod(Entity):
    """What a business can be paid through (cm_...): a type, a display name, the mode its
    payments run in (test: the simulator, no money moves) and a status (active, inactive)."""

    method_id: str
    account_id: str
    type: str
    name: str
    mode: str
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        return {
            "object": "collection_method",
            "id": self.method_id,
            "account_id": self.account_id,
            "name": self.name,
            "type": self.type,
            "mode": self.mode,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def detail(self) -> dict[str, str]:
        """A request's collection_method_details item."""
        return {"collection_method_id": self.method_id, "name": self.name, "type": self.type, "status": self.status}


def check_method_type(method_type: str) -> None:
    if method_type not in METHOD_TYPES:
        raise invalid([FieldError("type", INVALID_FORMAT, f"one of {', '.join(METHOD_TYPES)}")])


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise invalid([FieldError("mode", INVALID_FORMAT, "test or live")])


def check_method_status(status: str) -> None:
    if status not in (MethodStatus.ACTIVE, MethodStatus.INACTIVE):
        raise invalid([FieldError("status", INVALID_FORMAT, "active or inactive")])


def usable_methods(ids: list[str], found: dict[str, CollectionMethod], field: str = "collection_method_ids") -> str:
    """The mode of the request whose methods are `ids` (each one of `found`, the caller's own,
    read): every id names an active method of the caller's account, at most ten, no repeats, all
    of one mode. 400 validation_error naming each offending item otherwise."""
    problems = []
    if not ids:
        problems.append(FieldError(field, REQUIRED, "at least one collection method"))
    if len(ids) > MAX_METHODS_PER_REQUEST:
        problems.append(FieldError(field, INVALID_FORMAT, f"at most {MAX_METHODS_PER_REQUEST} methods"))
    if len(set(ids)) != len(ids):
        problems.append(FieldError(field, INVALID_FORMAT, "each method once"))
    for index, method_id in enumerate(ids):
        method = found.get(method_id)
        if method is None:
            problems.append(FieldError(f"{field}.{index}", NOT_FOUND, "not a collection method of this account"))
        elif method.status != MethodStatus.ACTIVE:
            problems.append(FieldError(f"{field}.{index}", INVALID_FORMAT, "the method is inactive"))
    modes = {method.mode for method in found.values() if method.method_id in ids}
    if len(modes) > 1:
        problems.append(FieldError(field, INVALID_FORMAT, "test and live methods cannot be mixed in one request"))
    if problems:
        raise invalid(problems)
    return modes.pop()


# ---------------------------------------------------------------- requests
class RequestStatus:
    PENDING = "pending"
    PAID = "paid"
    DELETED = "deleted"  # gone from every read and list; kept for the audit


class PaymentStatus:
    PENDING = "pending"
    IN_PROCESS = "in_process"
    PAID = "paid"
    FAILED = "failed"


INVOICE_TYPES = ("standard", "proforma", "credit_note")
SOURCE_CHANNELS = ("api", "portal", "erp")
MAX_AMOUNT = Decimal("10000000.00")
AMOUNT_EXPONENT = 2
CENTS = Decimal("0.01")

EVENT_CREATED = "collection_request.created"
EVENT_PAID = "collection_request.paid"
EVENT_PAYMENT_FAILED = "collection_request.payment_failed"
EVENTS = (EVENT_CREATED, EVENT_PAID, EVENT_PAYMENT_FAILED)


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
            "status": self.status,
            "listed": self.listed,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            **self._installments(),
            **self._customer(),
        }

    def _customer(self) -> dict[str, Any]:
        return {"customer_id": self.customer_id} if self.customer_id else {}

    def _installments(self) -> dict[str, Any]:
        if not self.in_installments:
            return {}
        currency = self.amount["currency"]
        return {
            "allow_installments": self.allow_installments,
            "amount_paid": {"currency": currency, "value": self.amount_paid.quantize(CENTS)},
            "amount_due": {"currency": currency, "value": self.outstanding.quantize(CENTS)},
        }

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
        return {"object": "collection_request", **{name: full[name] for name in fields}, **taken, **self._customer()}

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
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def public_item(self) -> dict[str, Any]:
        """A list item of the unsecured list by phone: id, description, amount, status, created_at."""
        return {
            "id": self.request_id,
            "description": self.description,
            "amount": self.money,
            "status": self.status,
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


def check_amount(currency: str, value: Decimal, field: str = "amount") -> dict[str, Any]:
    """{currency, value}: a currency the hosted checkout takes, a value over zero with at most
    two decimals and at most 10,000,000.00."""
    problems = []
    currencies = sorted(METHODS["mobile_wallet"].limits)
    if currency not in currencies:
        problems.append(FieldError(f"{field}.currency", INVALID_FORMAT, f"one of {', '.join(currencies)}"))
    if not value.is_finite() or value <= 0:
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, "a number more than zero"))
    elif value.as_tuple().exponent < -AMOUNT_EXPONENT:  # type: ignore[operator]
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, "at most two decimal places"))
    elif value > MAX_AMOUNT:
        problems.append(FieldError(f"{field}.value", INVALID_FORMAT, f"at most {MAX_AMOUNT}"))
    if problems:
        raise invalid(problems)
    return {"currency": currency, "value": value.quantize(CENTS)}


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
