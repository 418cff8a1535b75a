"""Gateway API: health, the caller's API keys (current, roll), the account's endpoint for its own
events, and mutual TLS (client certificates, the account's switch)."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.entry import gateway_handler
from mzpay.http.authorizers import client_certificate
from mzpay.http.errors import Surface
from mzpay.http.key_schemas import ClientCertificateIn, MtlsIn, RollApiKey, WebhookEndpointIn
from mzpay.http.principal import merchant
from mzpay.http.resolver import create_resolver, created
from mzpay.lazy import deferred
from mzpay.version import health_report

if TYPE_CHECKING:
    from mzpay.cases import access, account_endpoints, client_certs
else:  # each route's use case is loaded when a request first needs it
    access = deferred("mzpay.cases.access")
    client_certs = deferred("mzpay.cases.client_certs")
    account_endpoints = deferred("mzpay.cases.account_endpoints")

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


@app.get("/v1/webhook-endpoint")
def get_webhook_endpoint() -> dict[str, Any]:
    return account_endpoints.read(merchant())


@app.put("/v1/webhook-endpoint")
def set_webhook_endpoint(body: Annotated[WebhookEndpointIn, Body()]) -> dict[str, Any]:
    return account_endpoints.set_url(merchant("api_keys:write"), body.url)


@app.delete("/v1/webhook-endpoint")
def delete_webhook_endpoint() -> dict[str, Any]:
    return account_endpoints.remove(merchant("api_keys:write"))


@app.post("/v1/client-certificates")
def issue_client_certificate(body: Annotated[ClientCertificateIn, Body()]) -> Response[dict[str, Any]]:
    return created(client_certs.issue(merchant("api_keys:write"), body.csr))


@app.get("/v1/mtls")
def get_mtls() -> dict[str, Any]:
    return client_certs.mtls(merchant())


@app.put("/v1/mtls")
def set_mtls(body: Annotated[MtlsIn, Body()]) -> dict[str, Any]:
    presented = client_certificate(app.current_event.raw_event)
    return client_certs.set_mtls(merchant("api_keys:write"), body.required, presented)


lambda_handler = gateway_handler(app)
