"""Management API: account and payout limits, payout approvals, PSPs, connector bindings, identity provider audit."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.http.errors import Surface
from mzpay.http.operations_schemas import (
    AccountLimitsIn,
    ConnectorBindingIn,
    PayoutLimitsIn,
    PilotIn,
    PspAvailability,
    RejectPayout,
)
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.cases import bindings, payouts, psps
    from mzpay.collection import identity_providers
else:  # each route's use case is loaded when a request first needs it
    bindings = deferred("mzpay.cases.bindings")
    payouts = deferred("mzpay.cases.payouts")
    psps = deferred("mzpay.cases.psps")
    identity_providers = deferred("mzpay.collection.identity_providers")

app = create_resolver(Surface.MANAGEMENT)


@app.put("/v1/accounts/<account_id>/limits")
def set_account_limits(account_id: str, body: Annotated[AccountLimitsIn, Body()]) -> dict[str, Any]:
    return psps.set_account_limits(account_id, body.mode, body.limits())


@app.get("/v1/psps")
def list_psps() -> dict[str, Any]:
    return psps.psps()


@app.put("/v1/psps/<psp_id>/availability")
def set_psp_availability(psp_id: str, body: Annotated[PspAvailability, Body()]) -> dict[str, Any]:
    return psps.set_psp_availability(psp_id, body.available, body.reason)


@app.put("/v1/psps/<psp_id>/pilot")
def set_psp_pilot(psp_id: str, body: Annotated[PilotIn, Body()]) -> dict[str, Any]:
    return psps.set_psp_pilot(psp_id, body.in_pilot, body.settings.settings() if body.settings else None)


@app.put("/v1/accounts/<account_id>/payout-limits")
def set_payout_limits(account_id: str, body: Annotated[PayoutLimitsIn, Body()]) -> dict[str, Any]:
    return payouts.set_payout_limits(account_id, body.mode, body.limits())


@app.post("/v1/payouts/<payout_id>/approve")
def approve_payout(payout_id: str) -> dict[str, Any]:
    return payouts.approve(payout_id)


@app.post("/v1/payouts/<payout_id>/reject")
def reject_payout(payout_id: str, body: Annotated[RejectPayout, Body()]) -> dict[str, Any]:
    return payouts.reject(payout_id, body.reason)


@app.get("/v1/accounts/<account_id>/connector-bindings")
def list_connector_bindings(account_id: str) -> dict[str, Any]:
    return bindings.list_bindings(account_id)


@app.put("/v1/accounts/<account_id>/connector-bindings/<mode>/<method>")
def bind_connector(
    account_id: str, mode: str, method: str, body: Annotated[ConnectorBindingIn, Body()]
) -> dict[str, Any]:
    return bindings.bind(account_id, mode, method, body.psp_id, body.credentials)


@app.delete("/v1/accounts/<account_id>/connector-bindings/<mode>/<method>")
def unbind_connector(account_id: str, mode: str, method: str) -> dict[str, Any]:
    return bindings.unbind(account_id, mode, method)


@app.get("/v1/identity-providers/<idp_id>/audit")
def identity_provider_audit(
    idp_id: str,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> dict[str, Any]:
    return identity_providers.audit_records(idp_id, page_size, page_token)


lambda_handler = handler_for(app)
