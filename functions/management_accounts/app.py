"""Management API: health, system info, accounts, connections, API keys, OAuth clients, webhook
secrets, rate limits."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.http.account_schemas import (
    ConnectAccount,
    CreateAccount,
    CreateApiKey,
    CreateOAuthClient,
    RateLimitsIn,
    RollWebhookSecret,
    SuspendAccount,
)
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred
from mzpay.version import health_report, stack_info

if TYPE_CHECKING:
    from mzpay.cases import access, oauth, rate_limits
    from mzpay.collection import onboarding
else:  # each route's use case is loaded when a request first needs it
    access = deferred("mzpay.cases.access")
    oauth = deferred("mzpay.cases.oauth")
    rate_limits = deferred("mzpay.cases.rate_limits")
    onboarding = deferred("mzpay.collection.onboarding")

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


@app.get("/v1/accounts/<account_id>/onboarding-reviews")
def business_account_reviews(account_id: str) -> dict[str, Any]:
    """Reviewers' decisions on the business account (collection surface), newest first."""
    return onboarding.reviews(account_id)


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


@app.post("/v1/accounts/<account_id>/oauth-clients")
def create_oauth_client(account_id: str, body: Annotated[CreateOAuthClient, Body()]) -> Response[dict[str, Any]]:
    jwks = body.jwks.model_dump(exclude_none=True) if body.jwks else None
    return created(
        oauth.create_client(account_id, body.mode, body.scopes, body.name, jwks, body.ip_allowlist, body.jwks_uri)
    )


@app.get("/v1/accounts/<account_id>/oauth-clients")
def list_oauth_clients(account_id: str) -> dict[str, Any]:
    return oauth.list_clients(account_id)


@app.post("/v1/oauth-clients/<client_id>/revoke")
def revoke_oauth_client(client_id: str) -> dict[str, Any]:
    return oauth.revoke_client(client_id)


@app.post("/v1/accounts/<account_id>/webhook-secrets/roll")
def roll_webhook_secret(account_id: str, body: Annotated[RollWebhookSecret, Body()]) -> dict[str, Any]:
    return access.roll_webhook_secret(account_id, body.mode)


@app.put("/v1/accounts/<account_id>/rate-limits")
def set_rate_limits(account_id: str, body: Annotated[RateLimitsIn, Body()]) -> dict[str, Any]:
    return rate_limits.set_rate_limits(account_id, body.limits())


lambda_handler = handler_for(app)
