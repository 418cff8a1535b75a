"""Gateway API: health, this API's OpenAPI document and interactive docs, the caller's API keys
(current, roll), the account's endpoint for its own events, and mutual TLS (client certificates,
the account's switch)."""

from typing import Annotated

from mzpay.answers.access import ApiKey, ClientCertificate, MtlsSetting, RolledApiKey, WebhookEndpoint
from mzpay.answers.service import Health
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http import api_docs
from mzpay.http.authorizers import client_certificate
from mzpay.http.key_schemas import ClientCertificateIn, MtlsIn, RollApiKey, WebhookEndpointIn
from mzpay.http.marks import errors
from mzpay.http.params import Body, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import created
from mzpay.lazy import deferred_imports
from mzpay.version import health_report

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import access, account_endpoints, client_certs

app = gateway_app()
api_docs.add_routes(app, "gateway")


@app.get("/health")
def health() -> Health:
    """Check the API is up

    Answers the service region and the version; needs no key."""
    return Health.of(health_report("gateway"))


@app.get("/v1/api-keys/current")
def current_api_key() -> ApiKey:
    """Read the calling API key

    Its id, mode, scopes, allowlists and expiry, never the secret. An OAuth access token is
    not a key: 404."""
    return access.current_api_key(merchant())


@app.post("/v1/api-keys/<key_id>/roll")
@requires("api_keys:write")
@errors("already_rolled")
def roll_api_key(key_id: str, body: Annotated[RollApiKey | None, Body()] = None) -> Response[RolledApiKey]:
    """Roll an API key

    Issues a new secret with the same scopes and settings; the old one keeps working for
    `overlap_seconds` (24 h by default, at most 7 days). The new secret is answered once."""
    overlap = (body or RollApiKey()).overlap_seconds
    return created(access.roll_api_key(merchant(), key_id, overlap))


@app.get("/v1/webhook-endpoint")
def get_webhook_endpoint() -> WebhookEndpoint:
    """Read the account's endpoint for its own events

    Where events about the account itself (a key revoked by secret scanning, say) are posted."""
    return account_endpoints.read(merchant())


@app.put("/v1/webhook-endpoint")
@requires("api_keys:write")
@errors("invalid_callback_url")
def set_webhook_endpoint(body: Annotated[WebhookEndpointIn, Body()]) -> WebhookEndpoint:
    """Set the account's endpoint for its own events

    An https URL that receives the account's own events, signed like every webhook."""
    return account_endpoints.set_url(merchant(), body.url)


@app.delete("/v1/webhook-endpoint")
@requires("api_keys:write")
def delete_webhook_endpoint() -> WebhookEndpoint:
    """Remove the account's endpoint for its own events"""
    return account_endpoints.remove(merchant())


@app.post("/v1/client-certificates")
@requires("api_keys:write")
def issue_client_certificate(body: Annotated[ClientCertificateIn, Body()]) -> Response[ClientCertificate]:
    """Issue a client certificate for mutual TLS

    Signed by the region's client CA from your CSR (RSA 2048+ or EC P-256/P-384); without a CSR
    a key pair is made and its private key answered once. Valid 397 days."""
    return created(client_certs.issue(merchant(), body.csr))


@app.get("/v1/mtls")
def get_mtls() -> MtlsSetting:
    """Read whether the account requires client certificates"""
    return client_certs.mtls(merchant())


@app.put("/v1/mtls")
@requires("api_keys:write")
@errors("client_certificate_required", "invalid_state")
def set_mtls(body: Annotated[MtlsIn, Body()]) -> MtlsSetting:
    """Require (or stop requiring) client certificates

    Turning it on must itself present one of the account's certificates, so that you cannot
    lock yourself out: 409 `client_certificate_required` otherwise."""
    presented = client_certificate(app.current_event.raw_event)
    return client_certs.set_mtls(merchant(), body.required, presented)


lambda_handler = gateway_handler(app)
