"""Each API describes itself: `GET /openapi.json` answers the API's OpenAPI 3.1 document (the one
`make openapi` generates from the code, shipped in the layer as mzpay/openapi/documents/<api>.json) and
`GET /docs` interactive documentation (Swagger UI, from the copy Powertools ships: pinned with
it, no CDN). The gateway's and the collection surface's need no credentials; the management API's
sit behind its operator authorizer like every other management route (template.yaml). Nothing
here reads a store.

The page links its assets relatively (docs/swagger-ui.css, openapi.json), so it works under an
API Gateway stage prefix (/prod/docs) as locally (/docs). It runs no inline script (its start
is the asset docs/swagger-init.js), so its Content-Security-Policy allows scripts, styles,
images and fetches from the API itself only, and no page may frame it; every answer here is
`X-Content-Type-Options: nosniff`."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mzpay.domain.common.errors import ServiceError

DOCUMENT_PATH = "/openapi.json"
PAGE_PATH = "/docs"
ASSET_PATH = "/docs/<asset>"
_ASSETS = {
    "swagger-ui.css": ("swagger-ui.min.css", "text/css; charset=utf-8"),
    "swagger-ui-bundle.js": ("swagger-ui-bundle.min.js", "text/javascript; charset=utf-8"),
    "swagger-init.js": ("", "text/javascript; charset=utf-8"),
}
_INIT = """window.ui = SwaggerUIBundle({url: "openapi.json", dom_id: "#swagger-ui", deepLinking: true});
"""
_CACHE = "public, max-age=3600"
# Swagger UI sets style attributes and loads its icons as data: images; it fetches the document
# (and, with "Try it out", calls the API) from the same origin.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_GUARD = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/swagger-init.js"></script>
</body>
</html>
"""


@cache
def document(api: str) -> str:
    """The API's OpenAPI document as shipped (JSON text)."""
    return (resources.files("mzpay.openapi") / "documents" / f"{api}.json").read_text(encoding="utf-8")


@cache
def _asset(name: str) -> str:
    if not name:
        return _INIT
    import aws_lambda_powertools.event_handler as event_handler

    folder = Path(event_handler.__file__).parent / "openapi" / "swagger_ui"
    return (folder / name).read_text(encoding="utf-8")


def add_routes(app: Any, api: str, route: Any = None) -> None:
    """Declare GET /openapi.json, /docs and /docs/<asset> on `app`; `route(method, path)`: how the
    API declares an open route (the collection API's RouteAccess), else app's own get."""
    declare = route or (lambda _method, path: app.get(path))

    @declare("GET", DOCUMENT_PATH)
    def openapi_document() -> Response[str]:
        """This API's OpenAPI 3.1 document

        What this page is generated from; feed it to a client generator."""
        return Response(200, "application/json", document(api), headers={"Cache-Control": _CACHE, **_GUARD})

    @declare("GET", PAGE_PATH)
    def interactive_docs() -> Response[str]:
        """Interactive documentation of this API (Swagger UI)"""
        page = _PAGE.format(title=f"mzpay {api} API")
        headers = {"Cache-Control": _CACHE, "Content-Security-Policy": PAGE_POLICY, **_GUARD}
        return Response(200, "text/html; charset=utf-8", page, headers=headers)

    @declare("GET", ASSET_PATH)
    def interactive_docs_asset(asset: str) -> Response[str]:
        """A file of the interactive documentation (swagger-ui.css, swagger-ui-bundle.js, swagger-init.js)"""
        if asset not in _ASSETS:
            raise ServiceError(404, "not_found", f"No documentation file {asset}.")
        name, media = _ASSETS[asset]
        return Response(200, media, _asset(name), headers={"Cache-Control": _CACHE, **_GUARD})
