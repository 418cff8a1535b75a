"""Collection API: collection methods, collection requests, the payer's unsecured reads (kulpay)
and the payment link that leads a payer to the hosted checkout."""

import re
from decimal import Decimal
from typing import Annotated, Any
from urllib.parse import unquote

from mzpay.answers.bank_statements import BankLineList, BankLineRead, BankStatementImported
from mzpay.answers.collection_methods import CollectionMethod, CollectionMethodList
from mzpay.answers.collection_payments import CollectionPaymentList, CollectionPaymentRead, RecordedPayment
from mzpay.answers.collection_requests import (
    CollectionRequestCancelled,
    CollectionRequestChanged,
    CollectionRequestList,
    CollectionRequestRead,
    CreatedCollectionRequest,
    DeletedCollectionRequest,
    PayerRequestList,
    PayerRequestRead,
)
from mzpay.answers.messages import NotificationList
from mzpay.domain.collection.access import RouteAccess, active_business, guarded, serves_payee
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import has_prefix
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http import payment_link_page
from mzpay.http.audit import audited
from mzpay.http.bank_statement_schemas import AssignIn, BankStatementIn, DismissIn
from mzpay.http.body import screen as screen_body
from mzpay.http.card_screen import screen as screen_card_data
from mzpay.http.collection_auth import caller
from mzpay.http.collection_request_schemas import (
    CancelIn,
    CollectionMethodIn,
    CollectionRequestChange,
    CollectionRequestIn,
    RecordedPaymentIn,
    StatusIn,
)
from mzpay.http.errors import Surface
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors, filters, pages
from mzpay.http.params import Body, Query, Response
from mzpay.http.public_urls import public_url
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import (
        bank_statements,
        collection_methods,
        collection_requests,
        payment_links,
        payments,
        request_change,
        request_messages,
    )

app, routes = reviewers_audited(collection_app())  # the routes marked @audited go to the audit trail
REQUEST_READ, REQUEST_WRITE = guarded("collection_request:read"), active_business(guarded("collection_request:write"))
METHOD_READ, METHOD_WRITE = guarded("collection_method:read"), active_business(guarded("collection_method:write"))
PAYER = RouteAccess(token=False)  # the payer's app and browser: no token, throttled per address
PAYMENT_LINK = serves_payee(PAYER)  # and the request's business must be active (payment_links.open_link)
PageSize = Annotated[int, Query(ge=1, le=100)]
PageToken = Annotated[str | None, Query(max_length=1024)]


def _scope() -> str:
    """Idempotency-Keys are the business's own (apart from any the gateway's keys use)."""
    return f"collection#{caller().account_id()}"


def _link_base() -> str:
    return public_url(app.current_event, "PUBLIC_COLLECTION_URL")


@routes.post("/v1/collection-methods", METHOD_WRITE)
@errors("invalid_request")
def add_collection_method(body: Annotated[CollectionMethodIn, Body()]) -> CollectionMethod:
    """Add a collection method

    A way an active business is paid (M-Pesa, e-Mola, mKesh, bank transfer, payment reference,
    card, `simo_erv`: a SIMO entity, `interbank`: the business's NIB) in test or live mode,
    answered active. The business needs its gateway account, which an operator creates. With
    `allow_installments`, the requests naming it may be paid in parts, each at least
    `min_installment` (when given) unless it pays all that is due. `details` (Kulpay's):
    `entity_number` (simo_erv), `nib` (interbank), `allow_installments`, `allow_reuses`."""
    details = None if body.details is None else body.details.model_dump(exclude_none=True)
    return collection_methods.add(
        caller().account_id(), body.type, body.name, body.mode, body.allow_installments, body.min_installment, details
    )


@routes.get("/v1/collection-methods", METHOD_READ)
def list_collection_methods() -> CollectionMethodList:
    """List collection methods"""
    return collection_methods.listed(caller().account_id())


@routes.get("/v1/collection-methods/<method_id>", METHOD_READ)
def get_collection_method(method_id: str) -> CollectionMethod:
    """Read a collection method"""
    return collection_methods.read(caller().account_id(), method_id)


@routes.post("/v1/collection-methods/<method_id>/status", METHOD_WRITE)
def set_collection_method_status(method_id: str, body: Annotated[StatusIn, Body()]) -> CollectionMethod:
    """Activate or deactivate a collection method

    `status` active or inactive; the same status again changes nothing."""
    return collection_methods.set_status(caller().account_id(), method_id, body.status)


@routes.post("/v1/collection-requests", REQUEST_WRITE)
@errors("missing_field")
def create_collection_request(body: Annotated[CollectionRequestIn, Body()]) -> CreatedCollectionRequest:
    """Create a collection request

    An active business invoices a payer, payable through its active collection methods (all of one
    mode). Answered `pending` with its invoice number and payment link; the
    `collection_request.created` event is sent to its `callback_url`."""
    body.ensure_payer()
    identity = caller()
    return collection_requests.create(identity.account_id(), identity.signed_in().subject, body.fields(), _link_base())


@routes.get("/v1/collection-requests", REQUEST_READ)
def list_collection_requests(page_size: PageSize = 50, page_token: PageToken = None) -> CollectionRequestList:
    """List collection requests

    The caller's requests as summaries, newest first; cursor pagination."""
    return collection_requests.listed(caller().account_id(), page_size, page_token)


@routes.get("/v1/collection-requests/<request_id>", REQUEST_READ)
def get_collection_request(request_id: str) -> CollectionRequestRead:
    """Read a collection request"""
    return collection_requests.read(caller().account_id(), request_id)


@routes.get("/v1/collection-requests/<request_id>/notifications", REQUEST_READ)
def list_collection_request_notifications(request_id: str) -> NotificationList:
    """List a collection request's messages

    The e-mails and SMS sent to the request's payer (docs/notifications.md), oldest first, each
    with its status: queued, sent (with the provider's message id) or failed."""
    return request_messages.listed(caller().account_id(), request_id)


@routes.put("/v1/collection-requests/<request_id>", REQUEST_WRITE)
@errors("missing_field", "invalid_request")
def change_collection_request(
    request_id: str, body: Annotated[CollectionRequestChange, Body()]
) -> CollectionRequestChanged:
    """Change a collection request

    Only the fields given change, while the request is pending and its payer is not paying (an
    open checkout not yet paid with is canceled first). A new `account_id` moves it to an account
    connected to the caller's, with that account's `collection_method_ids`. The spec's fields are
    taken too: `name` (its description), `type` (the account's active methods of that type, in the
    request's mode) and `details` (the collection methods named); the answer names its `name` and
    `type`. An unknown request, or another business's, is 404 whatever the body."""
    identity = caller()
    account_id = identity.account_id()
    sent = body.model_dump(exclude_none=True)
    return request_change.change(account_id, identity.signed_in().subject, request_id, sent, body.fields())


@routes.delete("/v1/collection-requests/<request_id>", REQUEST_WRITE)
@errors("invalid_request")
def delete_collection_request(request_id: str) -> DeletedCollectionRequest:
    """Delete a collection request

    A pending request leaves every read and list (kept for the audit); an open checkout not yet
    paid with is canceled first. A paid request is never deleted."""
    identity = caller()
    return collection_requests.delete(identity.account_id(), identity.signed_in().subject, request_id)


@routes.post("/v1/collection-requests/<request_id>/cancel", REQUEST_WRITE)
@audited
@errors("invalid_request", "not_found", "invoice_closed")
def cancel_collection_request(request_id: str, body: Annotated[CancelIn, Body()]) -> CollectionRequestCancelled:
    """Cancel a collection request

    An open request (pending, partially_paid or overdue) is cancelled, with an optional `reason`:
    its payment link and `POST /v1/payments` refuse any later payment (409 `invoice_closed`), and
    `collection_request.cancelled` is sent to its `callback_url`. A paid or cancelled request is
    409 `invoice_closed`; while its payer is paying it, 400 `invalid_request` (an open checkout not
    yet paid with is canceled first). What instalments paid stays recorded."""
    identity = caller()
    return collection_requests.cancel(identity.account_id(), identity.signed_in().subject, request_id, body.reason)


@routes.get("/v1/payments", REQUEST_READ)
@filters("collection_payments")
def list_payments() -> CollectionPaymentList:
    """List the payments received

    The business's payments (its collection requests' checkouts), both modes unless `mode` names
    one, newest first, filtered by collection_request_id, status, channel, provider_id,
    amount_min, amount_max, from, to and currency; cursor pagination (docs/collection-payments.md)."""
    return payments.listed(caller().account_id(), app.current_event.query_string_parameters or {})


@routes.post("/v1/payments", REQUEST_WRITE)
@audited
@idempotent(app, scope=_scope, complete_in_store=False)
@errors("missing_field", "invalid_request", "not_found", "invoice_closed", "amount_out_of_range")
def record_payment(body: Annotated[RecordedPaymentIn, Body()]) -> RecordedPayment:
    """Record a payment received

    A payment the business received outside the service (a bank transfer, cash at its counter, a
    payment of the request's SIMO or interbank reference) recorded against one of its collection
    requests, in the request's mode and currency: all that is due, which makes the request `paid`
    (`collection_request.paid` is sent to its `callback_url`), or, when the request allows
    instalments, a part of it. More than is due, or a part of a request that takes one payment,
    is 422 `amount_out_of_range`; a paid request is 409 `invoice_closed`. Once per
    `Idempotency-Key`: a retry answers the same payment (docs/collection-payments.md)."""
    return payments.record(caller().account_id(), body.fields(), derived_id("recorded_payment"))


@routes.get("/v1/payments/<payment_id>", REQUEST_READ)
def get_payment(payment_id: str) -> CollectionPaymentRead:
    """Read a payment received"""
    return payments.read(caller().account_id(), payment_id)


@routes.post("/v1/bank-statements", REQUEST_WRITE)
@audited
@errors("missing_field")
def import_bank_statement(body: Annotated[BankStatementIn, Body()]) -> BankStatementImported:
    """Import a bank statement

    The business's bank statement (`format` csv with a column `mapping`, camt053, simo_erv, or
    `lines` posted as JSON) for one `mode`: each credit line is stored once, matched to the
    request its reference names and applied as a payment (partly, where the request takes
    instalments; money a request cannot take is kept as its overpayment to refund), or left in
    the queue (unmatched, ambiguous). The same statement again, or one that overlaps it, applies
    nothing twice. A bad file is 400 `validation_error` naming the line and field
    (`lines[3].amount`), nothing stored (docs/bank-statements.md)."""
    return bank_statements.import_statement(caller().account_id(), body.fields())


@routes.get("/v1/bank-statement-lines", REQUEST_READ)
def list_bank_statement_lines(
    mode: Annotated[str, Query(max_length=8)],
    status: Annotated[str, Query(max_length=16)] = "unmatched",
    page_size: PageSize = 50,
    page_token: PageToken = None,
) -> BankLineList:
    """List bank statement lines

    The business's statement lines of one `mode` and `status` (unmatched by default; ambiguous,
    matched, assigned, dismissed), newest first; cursor pagination."""
    return bank_statements.listed(caller().account_id(), mode, status, page_size, page_token)


@routes.get("/v1/bank-statement-lines/<line_id>", REQUEST_READ)
def get_bank_statement_line(line_id: str) -> BankLineRead:
    """Read a bank statement line"""
    return bank_statements.read(caller().account_id(), line_id)


@routes.post("/v1/bank-statement-lines/<line_id>/assign", REQUEST_WRITE)
@audited
@errors("invalid_request", "not_found", "invalid_state", "amount_out_of_range")
def assign_bank_statement_line(line_id: str, body: Annotated[AssignIn, Body()]) -> BankLineRead:
    """Assign a bank statement line to a request

    A waiting line (unmatched or ambiguous) is applied by hand to one of the business's requests
    of its mode, by the automatic match's rules: answered `assigned` with its payment. A line
    resolved already is 409 `invalid_state`; a part of a request that takes one payment is 422
    `amount_out_of_range`."""
    identity = caller()
    return bank_statements.assign(
        identity.account_id(), identity.signed_in().subject, line_id, body.collection_request_id
    )


@routes.post("/v1/bank-statement-lines/<line_id>/dismiss", REQUEST_WRITE)
@audited
@errors("not_found", "invalid_state")
def dismiss_bank_statement_line(line_id: str, body: Annotated[DismissIn, Body()]) -> BankLineRead:
    """Dismiss a bank statement line

    A waiting line is not the business's to match (a transfer between its own accounts, a
    refund from a supplier): answered `dismissed`, with the optional `reason`. A line resolved
    already is 409 `invalid_state`."""
    identity = caller()
    return bank_statements.dismiss(identity.account_id(), identity.signed_in().subject, line_id, body.reason)


@routes.get("/v1/kulpay/collection-requests/list-by-phone-number/<phone_number>", PAYER)
@errors("missing_field")
def list_by_phone(
    phone_number: str,
    request_id: Annotated[str | None, Query(max_length=64)] = None,
    page_size: PageSize = 50,
    page_token: PageToken = None,
) -> PayerRequestList:
    """List a payer's collection requests by phone number

    For the payer's app, without a token, and only for whoever holds a request sent to this E.164
    number: `request_id` (required) is the id its payment link ends with. The number's requests
    that their businesses did not mark `listed: false`, newest first, with their id, description,
    amount, status and creation time only. With a request that is not this number's, or a number
    with none, the answer is the same empty list (numbers cannot be probed). A number not in
    E.164 (`+` and digits only, a valid number) is 400 `validation_error` naming `phone_number`."""
    return collection_requests.by_phone(unquote(phone_number), request_id, page_size, page_token)


@routes.get("/v1/kulpay/collection-requests/get-request/<request_id>", PAYER)
def get_request_for_payer(request_id: str) -> PayerRequestRead:
    """Read a collection request as its payer

    For the payer's app, without a token: what the payer sees of the request to pay it; no
    personal data of the payer (names, NUIT, contact, address)."""
    return collection_requests.public_read(request_id)


def _amount(given: str | None) -> Decimal | None:
    """The instalment a payment link names (?amount=): a plain decimal number, or none."""
    if given is None or not re.fullmatch(r"\d{1,8}(\.\d{1,2})?", given):
        return None
    return Decimal(given)


@routes.get("/pay/<request_id>", PAYMENT_LINK)
@pages(200, 303, 403, 404, 409)
@errors("invalid_state")  # its 409 page: the request cannot be paid online
def payment_link(
    request_id: str,
    amount: Annotated[str | None, Query(max_length=20)] = None,
    via: Annotated[str | None, Query(max_length=20)] = None,
) -> Response[str]:
    """Open a collection request's payment link

    For the payer's browser: a 303 redirect to the gateway's hosted checkout of the request
    (opening one when none is open), or a page (Portuguese, or English by `?lang=en` or
    `Accept-Language`) saying that it is paid (200, linking to its receipt when its checkout paid
    it), that its business cannot take payments now
    (403: not active, e.g. suspended), that it cannot be paid online (409: also once cancelled) or
    does not exist (404). For a request that takes instalments, `amount` names the part to pay
    (at least its minimum instalment, at most what is due); otherwise the checkout asks for all
    that is due. A request with a bank reference (simo_erv, interbank methods) that is open
    answers a page (200) with its entity and reference, or NIB and transfer description, and copy
    buttons; with wallet methods too, a button to `?via=wallet`, which opens its checkout."""
    event = app.current_event
    link = f"{_link_base().rstrip('/')}/pay/{request_id}" if has_prefix(request_id, "cr") else ""
    try:
        asked = _amount(amount)
        gateway = public_url(event, "PUBLIC_GATEWAY_URL")
        destination = payment_links.open_link(request_id, gateway, asked, wallet=via == "wallet")
    except ServiceError as refused:
        if refused.code != "not_found":
            raise
        return payment_link_page.page("not_found", event, link)
    if destination.checkout_url:
        return payment_link_page.redirect(destination.checkout_url)
    request = destination.request
    bank = None
    if destination.state == "bank":
        bank = payment_link_page.bank_details(request, destination.wallets, destination.bank_methods)
    return payment_link_page.page(
        destination.state,
        event,
        link,
        request.biller.get("business_name"),
        request.invoice_metadata.get("invoice_number"),
        destination.receipt_url,
        bank,
    )


@routes.get(payment_link_page.SCRIPT_PATH, PAYER)
def payment_link_script() -> Response[str]:
    """The payment link page's script (its copy buttons)

    A static file: the page runs no inline script."""
    return payment_link_page.copy_script()


CHANGE = ("PUT", "/v1/collection-requests/{request_id}")


def _admit(event: dict[str, Any]) -> None:
    """The routes' checks; then a change of an unknown request, or another business's, is 404
    before its body is validated, whatever the body (the spec's error order: the resource
    first), but never before the body's screens: card data is refused first, whatever the id."""
    routes.admit(event)
    if (str(event.get("httpMethod") or "").upper(), event.get("resource")) == CHANGE:
        if refusal := screen_body(event) or screen_card_data(event, Surface.COLLECTION):
            raise refusal
        request_id = unquote(str((event.get("pathParameters") or {}).get("request_id") or ""))
        collection_requests.own(caller().account_id(), request_id)


lambda_handler = handler_for(app, _admit)
