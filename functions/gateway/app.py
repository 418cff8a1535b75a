"""Gateway API (surface A): what merchants call with their API keys."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.cases import access, charges, events, name_lookups, payouts, rate_limits, refunds
from mzpay.cases import checkout as hosted
from mzpay.domain.charges import ChargeRequest, CheckoutRequest
from mzpay.domain.errors import ServiceError
from mzpay.domain.name_lookups import NameLookupRequest
from mzpay.domain.payouts import BankPayoutRequest, PayoutRequest, check_payout
from mzpay.http import checkout_page
from mzpay.http.errors import Surface
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.principal import current_merchant, merchant, requires
from mzpay.http.resolver import create_resolver, created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.http.schemas import Capture, CompleteAction, RollApiKey, SelectCandidate
from mzpay.version import health_report

app = create_resolver(Surface.GATEWAY)


@app.get("/health")
def health() -> dict[str, str]:
    return health_report("gateway")


@app.get("/v1/api-keys/current")
def current_api_key() -> dict[str, Any]:
    return access.current_api_key(merchant())


@app.post("/v1/api-keys/<key_id>/roll")
def roll_api_key(key_id: str, body: Annotated[RollApiKey | None, Body()] = None) -> Response[dict[str, Any]]:
    overlap = (body or RollApiKey()).overlap_seconds
    return created(access.roll_api_key(merchant("api_keys:write"), key_id, overlap))


@app.get("/methods")
def list_methods() -> dict[str, Any]:
    merchant()
    return charges.methods()


@app.post("/charges")
@requires("payments:write")
@idempotent(app)
def create_charge(body: Annotated[ChargeRequest, Body()]) -> dict[str, Any]:
    return charges.create_charge(merchant(), body)


@app.post("/charges/<payment_id>/capture")
@requires("payments:write")
@idempotent(app)
def capture_charge(payment_id: str, body: Annotated[Capture | None, Body()] = None) -> dict[str, Any]:
    money = (body or Capture()).amount
    return charges.capture(merchant(), payment_id, money.amount if money else None, money.currency if money else None)


@app.post("/charges/<payment_id>/void")
@requires("payments:write")
@idempotent(app)
def void_charge(payment_id: str) -> dict[str, Any]:
    return charges.void(merchant(), payment_id)


@app.post("/charges/<payment_id>/complete-action")
@requires("payments:write")
def complete_action(payment_id: str, body: Annotated[CompleteAction | None, Body()] = None) -> dict[str, Any]:
    step = body or CompleteAction()
    return charges.complete_action(merchant(), payment_id, step.otp, step.amount)


@app.get("/payments/<payment_id>")
@app.get("/v1/payments/<payment_id>")
@requires("payments:read")
def read_payment(payment_id: str) -> dict[str, Any]:
    return charges.read_payment(merchant(), payment_id)


@app.post("/v1/payments")
@requires("payments:write")
@idempotent(app)
def create_checkout(body: Annotated[CheckoutRequest, Body()]) -> Response[dict[str, Any]]:
    if body.payment_id is None:  # a retry with the same key after a fault names the same payment
        body = body.model_copy(update={"payment_id": derived_id("payment")})
    return created(hosted.create_checkout(merchant(), body, checkout_page.public_base_url(app.current_event)))


@app.post("/v1/payments/<payment_id>/cancel")
@requires("payments:write")
@idempotent(app)
def cancel_payment(payment_id: str) -> dict[str, Any]:
    return hosted.cancel(merchant(), payment_id)


@app.get("/checkout/<payment_id>")
def checkout(payment_id: str) -> Response[str]:
    return checkout_page.page(hosted.checkout_payment(payment_id))


@app.post("/checkout/<payment_id>/pay")
def checkout_pay(payment_id: str) -> Response[str]:
    fields = checkout_page.form(app.current_event)
    checkout_page.check_csrf(app.current_event, fields)
    try:
        paid = hosted.pay_checkout(payment_id, fields.get("network", ""), fields.get("phone_number", ""))
    except ServiceError as refused:
        if refused.status >= 500 or refused.code in ("not_found", "invalid_state"):
            raise
        return checkout_page.page(hosted.checkout_payment(payment_id), refused.status, refused.message)
    return checkout_page.page(paid)


@app.post("/refunds")
@requires("refunds:write")
@idempotent(app)
def create_refund(body: Annotated[refunds.RefundRequest, Body()]) -> dict[str, Any]:
    refund_id = body.refund_id or derived_id("refund")  # a retry after a fault names the same refund
    return refunds.create_refund(merchant(), body.provider_payment_id, refund_id, body.amount, body.reason)


@app.post("/v1/payments/<payment_id>/refund")
@requires("refunds:write")
@idempotent(app)
def refund_payment(payment_id: str, body: Annotated[refunds.RefundBody | None, Body()] = None) -> dict[str, Any]:
    request = body or refunds.RefundBody()
    refund_id = request.refund_id or derived_id("refund")
    return refunds.create_refund(merchant(), payment_id, refund_id, request.amount, request.reason)


@app.get("/v1/refunds/<refund_id>")
@requires("payments:read")
def read_refund(refund_id: str) -> dict[str, Any]:
    return refunds.read_refund(merchant(), refund_id)


@app.get("/v1/balance")
@requires("balance:read")
def read_balance() -> dict[str, Any]:
    return refunds.balance(merchant())


@app.post("/payouts")
@requires("payouts:write")
@idempotent(app)
def create_payout(body: Annotated[PayoutRequest, Body()]) -> dict[str, Any]:
    return payouts.create_payout(merchant(), body)


@app.post("/v1/payouts")
@requires("payouts:write")
@idempotent(app)
def create_bank_payout(body: Annotated[BankPayoutRequest, Body()]) -> dict[str, Any]:
    check_payout(body)
    return payouts.create_payout(merchant(), body.to_payout_request())


@app.get("/payouts/<payout_id>")
@app.get("/v1/payouts/<payout_id>")
@requires("payouts:read")
def read_payout(payout_id: str) -> dict[str, Any]:
    return payouts.read_payout(merchant(), payout_id)


@app.post("/v1/payouts/<payout_id>/cancel")
@requires("payouts:write")
@idempotent(app)
def cancel_payout(payout_id: str) -> dict[str, Any]:
    return payouts.cancel(merchant(), payout_id)


@app.post("/v1/name-lookups")
@requires("payouts:write")
def create_name_lookup(body: Annotated[NameLookupRequest, Body()]) -> dict[str, Any]:
    return name_lookups.create_lookup(merchant(), body)


@app.post("/v1/name-lookups/<lookup_id>/select")
@requires("payouts:write")
def select_name(lookup_id: str, body: Annotated[SelectCandidate, Body()]) -> dict[str, Any]:
    return name_lookups.select(merchant(), lookup_id, body.candidate_id)


@app.post("/checkout/<payment_id>/test/<outcome>")
def checkout_test_action(payment_id: str, outcome: str) -> Response[str]:
    fields = checkout_page.form(app.current_event)
    checkout_page.check_csrf(app.current_event, fields)
    return checkout_page.page(hosted.test_action(payment_id, outcome))


@app.get("/v1/events")
@requires("events:read")
def list_events() -> dict[str, Any]:
    query = app.current_event.query_string_parameters or {}
    return events.list_events(
        merchant(), query.get("limit"), query.get("starting_after"), query.get("type"), query.get("resource_id")
    )


@app.get("/v1/events/<event_id>")
@requires("events:read")
def read_event(event_id: str) -> dict[str, Any]:
    return events.read_event(merchant(), event_id)


@app.post("/v1/admin/webhooks/verify")
def verify_webhook_signature() -> Response[dict[str, Any]]:
    request = app.current_event
    try:
        answer = events.verify_signature(
            merchant(),
            request.headers.get("Service-Signature") or request.headers.get("service-signature"),
            (request.decoded_body or "").encode(),
        )
    except events.SignatureRefused as refused:
        return Response(401, "application/json", refused.body())
    return Response(200, "application/json", answer)


lambda_handler = handler_for(
    app, admit_more=lambda _event: rate_limits.enforce(current_merchant()), may_act_for=access.ensure_may_act_for
)
