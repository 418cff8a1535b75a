"""Collection API (surface B): businesses, payers and collection requests."""

from typing import Any

from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.version import health_report, version_info

app = create_resolver(Surface.COLLECTION)


@app.get("/health")
def health() -> dict[str, str]:
    return health_report("collection")


@app.get("/v1/version")
def version() -> dict[str, Any]:
    return {"object": "version", **version_info()}


lambda_handler = handler_for(app)
