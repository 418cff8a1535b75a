"""Collection API: customers (the payer directory) and their KYC verifications, logs and reviews."""

from typing import Annotated

from mzpay.answers.collection_kyc import Customer, DocumentDateSaved, KycLog, KycRead, KycReady, LoggedOk
from mzpay.answers.customers import CustomerKycList, CustomerList, CustomerRead, CustomerRequests
from mzpay.domain.collection.access import active_business, guarded
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http.audit import audited
from mzpay.http.body import content_type, raw_body
from mzpay.http.collection_auth import caller
from mzpay.http.kyc_schemas import CustomerChange, CustomerIn, KycComment, KycReview, KycSaveDate
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import customers, kyc

app, routes = reviewers_audited(collection_app())
KYC_READ, KYC_WRITE = guarded("kyc:read"), active_business(guarded("kyc:write"))
CUSTOMER_READ, CUSTOMER_WRITE = guarded("customer:read"), active_business(guarded("customer:write"))
PageSize = Annotated[int, Query(ge=1, le=100)]
PageToken = Annotated[str | None, Query(max_length=1024)]
Search = Annotated[str | None, Query(max_length=200)]


@routes.post("/v1/customers", CUSTOMER_WRITE)
def register_customer(body: Annotated[CustomerIn, Body()]) -> Customer:
    """Register a customer

    Creates a customer of the caller's business with its first KYC verification (`initiated`, for
    a passport, DIRE or BI as `document_type`), whose log starts with one message. Its optional
    `email` or `phone_number` is where its messages go (its KYC outcome; a transaction with
    `notify_customer`), in its `language` when given."""
    contact = {"email": body.email, "phone_number": body.phone_number, "language": body.language}
    if body.nuit is not None:
        contact["nuit"] = body.nuit
    if body.address is not None:
        contact["address"] = body.address.model_dump(exclude_none=True)
    return kyc.register(caller().account_id(), body.name, body.document_type, contact)


@routes.get("/v1/customers", CUSTOMER_READ)
@errors("validation_error")
def list_customers(
    phone_number: Search = None,
    nuit: Search = None,
    name: Search = None,
    page_size: PageSize = 50,
    page_token: PageToken = None,
) -> CustomerList:
    """List or search the business's customers

    The payer directory, by name (accents and case ignored); or the customers with this
    `phone_number` (E.164) or `nuit` (exact), or whose name starts with `name` (accents and case
    ignored): one search at a time. Removed customers are left out. Cursor pagination."""
    return customers.listed(caller().account_id(), phone_number, nuit, name, page_size, page_token)


@routes.get("/v1/customers/<customer_id>", CUSTOMER_READ)
@errors("customer_not_found")
def get_customer(customer_id: str) -> CustomerRead:
    """Read a customer

    The customer with its KYC verification; a removed customer answers its id, `status: removed`
    and its dates only."""
    return customers.read(caller().account_id(), customer_id)


@routes.put("/v1/customers/<customer_id>", CUSTOMER_WRITE)
@audited
@errors("customer_not_found", "validation_error", "missing_field")
def update_customer(customer_id: str, body: Annotated[CustomerChange, Body()]) -> CustomerRead:
    """Change a customer

    Its contact (`email`, `phone_number`), `address`, `nuit`, `name` or `language` for its
    messages: the fields sent change, a field sent as null is removed (not the name). A removed
    customer is 404 customer_not_found."""
    return customers.update(caller().account_id(), customer_id, body.changes())


@routes.delete("/v1/customers/<customer_id>", CUSTOMER_WRITE)
@audited
@errors("customer_not_found")
def remove_customer(customer_id: str) -> CustomerRead:
    """Remove a customer

    Erases its personal data (name, contact, address, NUIT, its KYC documents' references and
    names); its collection requests keep their amounts and show the payer as removed
    (`payer.removed: true`). Idempotent: removing it again answers the same."""
    return customers.remove(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/collection-requests", CUSTOMER_READ)
@errors("customer_not_found", "validation_error")
def customer_collection_requests(
    customer_id: str, page_size: PageSize = 50, page_token: PageToken = None
) -> CustomerRequests:
    """List a customer's collection requests

    The requests issued naming this customer (`customer_id`), newest first, as
    GET /v1/collection-requests lists them; a removed customer's too."""
    return customers.requests_of(caller().account_id(), customer_id, page_size, page_token)


@routes.get("/v1/customers/<customer_id>/kyc", KYC_READ)
@errors("customer_not_found")
def customer_kyc(customer_id: str) -> CustomerKycList:
    """List a customer's KYC verifications"""
    return customers.kyc_of(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/kyc/logs", KYC_READ)
@errors("customer_not_found")
def customer_kyc_logs(customer_id: str) -> KycLog:
    """Read a customer's KYC log

    The log of the customer's verification: every step as a versioned message, and the documents saved."""
    return kyc.customer_log(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/kyc/<kyc_id>", KYC_READ)
@errors("customer_not_found")
def get_kyc(customer_id: str, kyc_id: str) -> KycRead:
    """Read a customer's KYC verification"""
    return kyc.read(caller().account_id(), customer_id, kyc_id)


@routes.put("/v1/customers/<customer_id>/kyc/<kyc_id>/reviews", KYC_WRITE)
@audited
@errors("customer_not_found", "missing_field", "invalid_request")
def review_kyc(customer_id: str, kyc_id: str, body: Annotated[KycReview, Body()]) -> KycRead:
    """Review a KYC verification

    A reviewer's decision: `verified`, `rejected` (with `rejection_reason`) or `pending` (with an
    `additional_request` naming checklist items the customer must add), logged as a message. Only
    an initiated or pending verification can be reviewed. As the spec has it, every review carries
    `additional_request` {comment, checklist_items[]} (400 missing_field without it), whose
    items may be empty unless the status is `pending` (`{"comment": "", "checklist_items": []}`:
    nothing more asked; read back as null)."""
    return kyc.review(
        caller().account_id(),
        customer_id,
        kyc_id,
        body.status,
        body.reviewer_id,
        body.rejection_reason,
        body.additional(),
    )


@routes.post("/v1/customers/<customer_id>/kyc/<kyc_id>/reviews/ready", CUSTOMER_WRITE)
@errors("customer_not_found", "missing_field", "invalid_request")
def kyc_ready(customer_id: str, kyc_id: str) -> KycReady:
    """Submit a customer's KYC documents for review

    Says the customer's uploads are complete, so the verification waits for its review; a
    two-sided document needs both sides. Refused once the verification is verified or rejected."""
    return kyc.ready(caller().account_id(), customer_id, kyc_id)


@routes.get("/v1/kyc/<kyc_id>/logs", KYC_READ)
def get_kyc_logs(kyc_id: str) -> KycLog:
    """Read a KYC verification's log

    Every step as a versioned message, and the documents saved."""
    return kyc.log(caller().account_id(), kyc_id)


@routes.post("/v1/kyc/<kyc_id>/logs", KYC_WRITE)
@errors("missing_field")
def comment_kyc(kyc_id: str, body: Annotated[KycComment, Body()]) -> LoggedOk:
    """Comment on a KYC verification

    Adds a message to the verification's log: a reviewer's (with `reviewer_id`) or the system's."""
    return kyc.comment(caller().account_id(), kyc_id, body.comment, body.reviewer_id)


@routes.post(
    "/v1/kyc/<kyc_id>/logs/save",
    KYC_WRITE,
    responses={200: {"description": "{object: bool, status: true}", "content": {"application/json": {}}}},
)
@errors("invalid_request", "missing_field", "rate_limited")
def save_kyc_document(kyc_id: str) -> LoggedOk:
    """Upload a KYC document

    A multipart/form-data body: `reference`, `document_name`, `type` (a supported document or a
    checklist item id), the `attachment` (png, jpg, jpeg or pdf, at most 4 MiB) and optionally its
    `side` (front or back) and `file_type`. The file is stored and recorded on the verification
    with a log message; refused once the verification is verified or rejected."""
    event = app.current_event.raw_event
    return kyc.save_document(caller().account_id(), kyc_id, raw_body(event), content_type(event))


@routes.post("/v1/kyc/<kyc_id>/logs/save-date", KYC_WRITE)
def save_kyc_date(kyc_id: str, body: Annotated[KycSaveDate, Body()]) -> DocumentDateSaved:
    """Record a KYC document's expiry date

    The expiry date (YYYY-MM-DD) of the document with `reference`, replacing one recorded before."""
    return kyc.save_date(caller().account_id(), kyc_id, body.expiry_date, body.reference)


lambda_handler = handler_for(app, routes.admit)
