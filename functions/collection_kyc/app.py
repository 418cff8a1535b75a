"""Collection API: customers and their KYC verifications, logs and reviews."""

from typing import Annotated

from mzpay.answers.collection_kyc import Customer, DocumentDateSaved, KycLog, KycRead, KycReady, LoggedOk
from mzpay.domain.collection.access import active_business, guarded
from mzpay.entry import collection_app, reviewers_audited
from mzpay.http.audit import audited
from mzpay.http.body import content_type, raw_body
from mzpay.http.collection_auth import caller
from mzpay.http.kyc_schemas import CustomerIn, KycComment, KycReview, KycSaveDate
from mzpay.http.marks import errors
from mzpay.http.params import Body
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import kyc

app, routes = reviewers_audited(collection_app())
KYC_READ, KYC_WRITE = guarded("kyc:read"), active_business(guarded("kyc:write"))
CUSTOMER_WRITE = active_business(guarded("customer:write"))


@routes.post("/v1/customers", CUSTOMER_WRITE)
def register_customer(body: Annotated[CustomerIn, Body()]) -> Customer:
    """Register a customer

    Creates a customer of the caller's business with its first KYC verification (`initiated`, for
    a passport, DIRE or BI as `document_type`), whose log starts with one message. Its optional
    `email` or `phone_number` is where its messages go (its KYC outcome; a transaction with
    `notify_customer`), in its `language` when given."""
    contact = {"email": body.email, "phone_number": body.phone_number, "language": body.language}
    return kyc.register(caller().account_id(), body.name, body.document_type, contact)


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
