"""Management API: health, system info, accounts, connections, API keys, OAuth clients, webhook
secrets, rate limits, fee schedules."""

from typing import Annotated, Any

from mzpay.answers import accounts, limits, oauth_clients, pricing
from mzpay.answers.bank_statements import BankStatementImported
from mzpay.answers.reviews import BusinessAccountReviews, BusinessGatewayAccount
from mzpay.entry import management_app
from mzpay.http import api_docs
from mzpay.http.account_schemas import (
    ConnectAccount,
    CreateAccount,
    CreateApiKey,
    CreateOAuthClient,
    FeeScheduleIn,
    LinkGatewayAccount,
    PartnerIn,
    RateLimitsIn,
    RollWebhookSecret,
    SuspendAccount,
)
from mzpay.http.bank_statement_schemas import BankStatementIn
from mzpay.http.marks import errors
from mzpay.http.params import Body, Response
from mzpay.http.resolver import created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.version import health_report, stack_info

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import access, cash_deposits, oauth, rate_limits
    from mzpay.collection import bank_statements, onboarding
    from mzpay.operators import business_links
    from mzpay.operators import pricing as fee_schedules

app = management_app()
api_docs.add_routes(app, "management")


@app.get("/health")
def health() -> dict[str, str]:
    """Check the API's health

    The API, its service region and the version it runs."""
    return health_report("management")


@app.get("/v1/system/info")
def system_info() -> dict[str, Any]:
    """Read the stack's information

    Which region, stage and build answer, and the URLs of the peer regions."""
    return stack_info()


@app.post("/v1/accounts")
@errors("wrong_region")
def create_account(body: Annotated[CreateAccount, Body()]) -> Response[accounts.NewAccount]:
    """Create an account

    A new active account homed in `region` (this stack's region), with its first webhook signing
    secret per mode, answered this once."""
    return created(access.create_account(body.name, body.region))


@app.get("/v1/accounts/<account_id>")
@errors("wrong_region")
def get_account(account_id: str) -> accounts.Account:
    """Read an account"""
    return access.get_account(account_id)


@app.get("/v1/accounts/<account_id>/onboarding-reviews")
def business_account_reviews(account_id: str) -> BusinessAccountReviews:
    """List a business account's onboarding reviews

    Reviewers' decisions on the business account (collection surface), newest first: who, when,
    from which address, the status before and after, the reason and the field problems."""
    return onboarding.reviews(account_id)


@app.get("/v1/accounts/<account_id>/gateway-account")
def business_gateway_account(account_id: str) -> BusinessGatewayAccount:
    """Read the gateway account a business collects through

    `account_id` is the business account's (collection surface); `gateway_account_id` is null
    until its approval opens the account of its own id (`how: opened`) or an operator links one
    (`how: linked`)."""
    return business_links.read(account_id)


@app.put("/v1/accounts/<account_id>/gateway-account")
@errors("wrong_region", "already_connected", "invalid_state")
def link_gateway_account(account_id: str, body: Annotated[LinkGatewayAccount, Body()]) -> BusinessGatewayAccount:
    """Link an existing gateway account to a business

    The business account `account_id` (collection surface) collects through the gateway account
    `gateway_account_id` from then on (its payment links' checkouts, its customers'
    transactions), and its approval opens no account of its own. Both in this region (another
    region's account is 421 wrong_region); one business per gateway account (409
    already_connected); a business that collects through an account already keeps it (409
    invalid_state); the same link again changes nothing. Audited."""
    return business_links.link(account_id, body.gateway_account_id)


@app.post("/v1/accounts/<account_id>/bank-statements")
@errors("not_found", "invalid_state")
def import_business_bank_statement(account_id: str, body: Annotated[BankStatementIn, Body()]) -> BankStatementImported:
    """Import a bank statement for a business

    What the business does with `POST /v1/bank-statements` on the collection API, done by an
    operator for the business account `account_id` (active only: another status is 409
    invalid_state; none is 404): its credit lines matched to its requests and applied, the rest left
    in its queue (docs/bank-statements.md). Audited."""
    return bank_statements.import_for_business(account_id, body.fields())


@app.post("/v1/accounts/<account_id>/suspend")
@errors("wrong_region", "invalid_state")
def suspend_account(account_id: str, body: Annotated[SuspendAccount, Body()]) -> accounts.Account:
    """Suspend an account

    An active account becomes `suspended` with `reason`; its credentials are refused with
    `account_suspended` until it is reactivated."""
    return access.change_account_status(account_id, "suspend", body.reason)


@app.post("/v1/accounts/<account_id>/reactivate")
@errors("wrong_region", "invalid_state")
def reactivate_account(account_id: str) -> accounts.Account:
    """Reactivate an account

    A suspended account becomes active again."""
    return access.change_account_status(account_id, "reactivate")


@app.post("/v1/accounts/<account_id>/connected-accounts")
@errors("wrong_region", "already_connected", "invalid_state")
def connect_account(account_id: str, body: Annotated[ConnectAccount, Body()]) -> Response[accounts.Connection]:
    """Connect an account to a platform

    Lets the platform account act for the connected one (`?account_id=` on the gateway). Both
    accounts must exist in this region; a connection is made once."""
    return created(access.connect_account(account_id, body.account_id))


@app.get("/v1/accounts/<account_id>/connected-accounts")
@errors("wrong_region")
def list_connected_accounts(account_id: str) -> accounts.ConnectionList:
    """List a platform's connected accounts"""
    return access.list_connections(account_id)


@app.delete("/v1/accounts/<account_id>/connected-accounts/<connected_account_id>")
@errors("wrong_region")
def disconnect_account(account_id: str, connected_account_id: str) -> accounts.Disconnection:
    """Disconnect an account from a platform

    From the next request on, the platform's `?account_id=` for it is 404."""
    return access.disconnect_account(account_id, connected_account_id)


@app.post("/v1/accounts/<account_id>/api-keys")
@errors("wrong_region", "invalid_scope", "invalid_cidr")
def create_api_key(account_id: str, body: Annotated[CreateApiKey, Body()]) -> Response[accounts.NewApiKey]:
    """Create an API key

    A key of the account in a mode, with its scopes and optionally an expiry, an IP allowlist and
    the customers it is restricted to; its secret is in this answer and nowhere else."""
    return created(
        access.create_api_key(
            account_id, body.mode, body.scopes, body.expires_at, body.ip_allowlist, body.allowed_customers
        )
    )


@app.post("/v1/api-keys/<key_id>/revoke")
@errors("wrong_region", "invalid_state")
def revoke_api_key(key_id: str) -> accounts.ApiKey:
    """Revoke an API key

    The key stops working; `api_key.revoked` is recorded (and posted to the account's endpoint
    for its own events, when it set one)."""
    return access.revoke_api_key(key_id)


@app.post("/v1/accounts/<account_id>/oauth-clients")
@errors("wrong_region", "invalid_scope", "invalid_cidr")
def create_oauth_client(
    account_id: str, body: Annotated[CreateOAuthClient, Body()]
) -> Response[oauth_clients.NewOAuthClient]:
    """Create an OAuth client

    A client-credentials client of the account in a mode: with `jwks` or `jwks_uri` it
    authenticates with private-key JWT assertions, else with a client secret answered this once."""
    jwks = body.jwks.model_dump(exclude_none=True) if body.jwks else None
    return created(
        oauth.create_client(account_id, body.mode, body.scopes, body.name, jwks, body.ip_allowlist, body.jwks_uri)
    )


@app.get("/v1/accounts/<account_id>/oauth-clients")
@errors("wrong_region")
def list_oauth_clients(account_id: str) -> oauth_clients.OAuthClientList:
    """List an account's OAuth clients"""
    return oauth.list_clients(account_id)


@app.post("/v1/oauth-clients/<client_id>/revoke")
@errors("wrong_region", "invalid_state")
def revoke_oauth_client(client_id: str) -> oauth_clients.OAuthClient:
    """Revoke an OAuth client

    Its tokens stop working at the next request and it gets no new ones; `oauth_client.revoked`
    is recorded."""
    return oauth.revoke_client(client_id)


@app.post("/v1/accounts/<account_id>/webhook-secrets/roll")
@errors("wrong_region", "invalid_state")
def roll_webhook_secret(account_id: str, body: Annotated[RollWebhookSecret, Body()]) -> accounts.RolledWebhookSecret:
    """Roll a webhook signing secret

    A new signing secret of the account's mode, answered this once; the previous one stays valid
    for an overlap."""
    return access.roll_webhook_secret(account_id, body.mode)


@app.put("/v1/accounts/<account_id>/rate-limits")
@errors("wrong_region")
def set_rate_limits(account_id: str, body: Annotated[RateLimitsIn, Body()]) -> limits.RateLimits:
    """Set an account's rate limits

    Requests per second per API key and per account, replacing the stack's defaults for it."""
    return rate_limits.set_rate_limits(account_id, body.limits())


@app.put("/v1/accounts/<account_id>/partner")
@errors("wrong_region")
def set_partner(account_id: str, body: Annotated[PartnerIn, Body()]) -> limits.PartnerFlag:
    """Make an account a partner, or not

    A partner agent network takes cash at its agents and credits payers' wallets from its
    balance (cash deposits); any other account's key is refused with 403 `not_a_partner`."""
    return cash_deposits.set_partner(account_id, body.partner)


@app.get("/v1/accounts/<account_id>/pricing")
@errors("wrong_region")
def get_fee_schedule(account_id: str) -> pricing.FeeSchedule:
    """Read an account's fee schedule

    The service's own fee per payment method (a wallet's network) and currency, charged on each
    payment captured in either mode; `default: true` when the account has none of its own."""
    return fee_schedules.fee_schedule(account_id)


@app.put("/v1/accounts/<account_id>/pricing")
@errors("wrong_region")
def set_fee_schedule(account_id: str, body: Annotated[FeeScheduleIn, Body()]) -> pricing.FeeSchedule:
    """Set an account's fee schedule

    Replaces the account's whole schedule (docs/pricing.md); it applies to payments captured from
    now on, never to a payment captured before."""
    return fee_schedules.set_fee_schedule(account_id, body.rules())


lambda_handler = handler_for(app)
