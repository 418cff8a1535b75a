"""Collection API: customers and their KYC verifications, logs and reviews."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.collection_access import guarded
from mzpay.entry import collection_app
from mzpay.http.body import content_type, raw_body
from mzpay.http.collection_auth import caller
from mzpay.http.kyc_schemas import CustomerIn, KycComment, KycReview, KycSaveDate
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.collection import kyc
else:  # each route's use case is loaded when a request first needs it
    kyc = deferred("mzpay.collection.kyc")

app, routes = collection_app()
KYC_READ, KYC_WRITE = guarded("kyc:read"), guarded("kyc:write")
CUSTOMER_WRITE = guarded("customer:write")


@routes.post("/v1/customers", CUSTOMER_WRITE)
def register_customer(body: Annotated[CustomerIn, Body()]) -> dict[str, Any]:
    return kyc.register(caller().account_id(), body.name, body.document_type)


@routes.get("/v1/customers/<customer_id>/kyc/logs", KYC_READ)
def customer_kyc_logs(customer_id: str) -> dict[str, Any]:
    return kyc.customer_log(caller().account_id(), customer_id)


@routes.get("/v1/customers/<customer_id>/kyc/<kyc_id>", KYC_READ)
def get_kyc(customer_id: str, kyc_id: str) -> dict[str, Any]:
    return kyc.read(caller().account_id(), customer_id, kyc_id)


@routes.put("/v1/customers/<customer_id>/kyc/<kyc_id>/reviews", KYC_WRITE)
def review_kyc(customer_id: str, kyc_id: str, body: Annotated[KycReview, Body()]) -> dict[str, Any]:
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
def kyc_ready(customer_id: str, kyc_id: str) -> dict[str, Any]:
    return kyc.ready(caller().account_id(), customer_id, kyc_id)


@routes.get("/v1/kyc/<kyc_id>/logs", KYC_READ)
def get_kyc_logs(kyc_id: str) -> dict[str, Any]:
    return kyc.log(caller().account_id(), kyc_id)


@routes.post("/v1/kyc/<kyc_id>/logs", KYC_WRITE)
def comment_kyc(kyc_id: str, body: Annotated[KycComment, Body()]) -> dict[str, Any]:
    return kyc.comment(caller().account_id(), kyc_id, body.comment, body.reviewer_id)


@routes.post(
    "/v1/kyc/<kyc_id>/logs/save",
    KYC_WRITE,
    responses={200: {"description": "{object: bool, status: true}", "content": {"application/json": {}}}},
)
def save_kyc_document(kyc_id: str) -> dict[str, Any]:
    event = app.current_event.raw_event
    return kyc.save_document(caller().account_id(), kyc_id, raw_body(event), content_type(event))


@routes.post("/v1/kyc/<kyc_id>/logs/save-date", KYC_WRITE)
def save_kyc_date(kyc_id: str, body: Annotated[KycSaveDate, Body()]) -> dict[str, Any]:
    return kyc.save_date(caller().account_id(), kyc_id, body.expiry_date, body.reference)


lambda_handler = handler_for(app, routes.admit)
