"""Management API: operators only (bearer token + IP allowlist, checked by the authorizer)."""

from typing import Any

from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.version import health_report, stack_info

app = create_resolver(Surface.MANAGEMENT)


@app.get("/health")
def health() -> dict[str, str]:
    return health_report("management")


@app.get("/v1/system/info")
def system_info() -> dict[str, Any]:
    return stack_info()


lambda_handler = handler_for(app)
