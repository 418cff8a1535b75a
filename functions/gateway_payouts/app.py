"""Gateway API: payouts and name lookups."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.name_lookups import NameLookupRequest
from mzpay.domain.payouts import BankPayoutRequest, PayoutRequest, check_payout
from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.gateway_schemas import SelectCandidate
from mzpay.http.idempotency import idempotent
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import create_resolver
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import name_lookups, payouts
else:  # each route's use case is loaded when a request first needs it
    name_lookups = deferred("mzpay.cases.name_lookups")
    payouts = deferred("mzpay.cases.payouts")

app = create_resolver(Surface.GATEWAY)


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


lambda_handler = gateway_handler(app)
