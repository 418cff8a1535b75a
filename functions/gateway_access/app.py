"""Gateway API: health and the caller's API keys (current, roll)."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.entry import gateway_handler
from mzpay.http.errors import Surface
from mzpay.http.key_schemas import RollApiKey
from mzpay.http.principal import merchant
from mzpay.http.resolver import create_resolver, created
from mzpay.lazy import deferred
from mzpay.version import health_report

if TYPE_CHECKING:
    from mzpay.cases import access
else:  # each route's use case is loaded when a request first needs it
    access = deferred("mzpay.cases.access")

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


lambda_handler = gateway_handler(app)
