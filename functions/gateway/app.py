"""Gateway API (surface A): what merchants call with their API keys."""

from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.version import health_report

app = create_resolver(Surface.GATEWAY)


@app.get("/health")
def health() -> dict[str, str]:
    return health_report("gateway")


lambda_handler = handler_for(app)
