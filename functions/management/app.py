"""Management API: operators only (bearer token + IP allowlist, checked by the authorizer)."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.cases import access, bindings, dispatch_failures, payouts, psps, rate_limits, webhook_deliveries
from mzpay.collection import identity_providers
from mzpay.domain.webhooks import DeliveryStatus
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, created, to_response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.http.schemas import (
    AccountLimitsIn,
    ConnectAccount,
    ConnectorBindingIn,
    CreateAccount,
    CreateApiKey,
    PayoutLimitsIn,
    PilotIn,
    PspAvailability,
    RateLimitsIn,
    RejectPayout,
    RollWebhookSecret,
    SuspendAccount,
)
from mzpay.version import health_report, stack_info

app = create_resolver(Surface.MANAGEMENT)


@app.get("/health")
def health() -> dict[str, str]:
    return health_report("management")


@app.get("/v1/system/info")
def system_info() -> dict[str, Any]:
    return stack_info()


@app.post("/v1/accounts")
def create_account(body: Annotated[CreateAccount, Body()]) -> Response[dict[str, Any]]:
    return created(access.create_account(body.name, body.region))


@app.get("/v1/accounts/<account_id>")
def get_account(account_id: str) -> dict[str, Any]:
    return access.get_account(account_id)


@app.post("/v1/accounts/<account_id>/suspend")
def suspend_account(account_id: str, body: Annotated[SuspendAccount, Body()]) -> dict[str, Any]:
    return access.change_account_status(account_id, "suspend", body.reason)


@app.post("/v1/accounts/<account_id>/reactivate")
def reactivate_account(account_id: str) -> dict[str, Any]:
    return access.change_account_status(account_id, "reactivate")


@app.post("/v1/accounts/<account_id>/connected-accounts")
def connect_account(account_id: str, body: Annotated[ConnectAccount, Body()]) -> Response[dict[str, Any]]:
    return created(access.connect_account(account_id, body.account_id))


@app.get("/v1/accounts/<account_id>/connected-accounts")
def list_connected_accounts(account_id: str) -> dict[str, Any]:
    return access.list_connections(account_id)


@app.delete("/v1/accounts/<account_id>/connected-accounts/<connected_account_id>")
def disconnect_account(account_id: str, connected_account_id: str) -> dict[str, Any]:
    return access.disconnect_account(account_id, connected_account_id)


@app.post("/v1/accounts/<account_id>/api-keys")
def create_api_key(account_id: str, body: Annotated[CreateApiKey, Body()]) -> Response[dict[str, Any]]:
    return created(
        access.create_api_key(
            account_id, body.mode, body.scopes, body.expires_at, body.ip_allowlist, body.allowed_customers
        )
    )


@app.post("/v1/api-keys/<key_id>/revoke")
def revoke_api_key(key_id: str) -> dict[str, Any]:
    return access.revoke_api_key(key_id)


@app.post("/v1/accounts/<account_id>/webhook-secrets/roll")
def roll_webhook_secret(account_id: str, body: Annotated[RollWebhookSecret, Body()]) -> dict[str, Any]:
    return access.roll_webhook_secret(account_id, body.mode)


@app.get("/v1/webhook-deliveries/<delivery_id>")
def get_webhook_delivery(delivery_id: str) -> dict[str, Any]:
    return webhook_deliveries.delivery(delivery_id)


@app.get("/v1/accounts/<account_id>/webhook-deliveries")
def list_webhook_deliveries(
    account_id: str,
    status: Annotated[DeliveryStatus | None, Query()] = None,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> dict[str, Any]:
    return webhook_deliveries.account_deliveries(account_id, status, page_size, page_token)


@app.post("/v1/webhook-deliveries/<delivery_id>/replay")
def replay_webhook_delivery(delivery_id: str) -> Response[dict[str, Any]]:
    return to_response(webhook_deliveries.replay(delivery_id), 202)


@app.get("/v1/webhook-dispatch-failures")
def list_webhook_dispatch_failures(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> dict[str, Any]:
    return dispatch_failures.failures(limit)


@app.post("/v1/webhook-dispatch-failures/<message_id>/replay")
def replay_webhook_dispatch_failure(message_id: str) -> dict[str, Any]:
    return dispatch_failures.replay(message_id)


@app.put("/v1/accounts/<account_id>/rate-limits")
def set_rate_limits(account_id: str, body: Annotated[RateLimitsIn, Body()]) -> dict[str, Any]:
    return rate_limits.set_rate_limits(account_id, body.limits())


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
