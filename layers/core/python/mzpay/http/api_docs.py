"""Each API describes itself: `GET /openapi.json` answers the API's OpenAPI 3.1 document (the one
`make openapi` generates from the code, shipped in the layer as mzpay/openapi/documents/<api>.json) and
`GET /docs` interactive documentation (Swagger UI, from the copy Powertools ships: pinned with
it, no CDN). No authentication; nothing here reads a store.

The page links its assets relatively (docs/swagger-ui.css, openapi.json), so it works under an
API Gateway stage prefix (/prod/docs) as locally (/docs)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mzpay.domain.errors import ServiceError

DOCUMENT_PATH = "/openapi.json"
PAGE_PATH = "/docs"
ASSET_PATH = "/docs/<asset>"
_ASSETS = {
    "swagger-ui.css": ("swagger-ui.min.css", "text/css; charset=utf-8"),
    "swagger-ui-bundle.js": ("swagger-ui-bundle.min.js", "text/javascript; charset=utf-8"),
}
_CACHE = "public, max-age=3600"
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
<script>
window.ui = SwaggerUIBundle({{url: "openapi.json", dom_id: "#swagger-ui", deepLinking: true}});
</script>
</body>
</html>
"""


@cache
def document(api: str) -> str:
    """The API's OpenAPI document as shipped (JSON text)."""
    return (resources.files("mzpay.openapi") / "documents" / f"{api}.json").read_text(encoding="utf-8")


@cache
def _asset(name: str) -> str:
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
        return Response(200, "application/json", document(api), headers={"Cache-Control": _CACHE})

    @declare("GET", PAGE_PATH)
    def interactive_docs() -> Response[str]:
        """Interactive documentation of this API (Swagger UI)"""
        page = _PAGE.format(title=f"mzpay {api} API")
        return Response(200, "text/html; charset=utf-8", page, headers={"Cache-Control": _CACHE})

    @declare("GET", ASSET_PATH)
    def interactive_docs_asset(asset: str) -> Response[str]:
        """A file of the interactive documentation (swagger-ui.css, swagger-ui-bundle.js)"""
        if asset not in _ASSETS:
            raise ServiceError(404, "not_found", f"No documentation file {asset}.")
        name, media = _ASSETS[asset]
        return Response(200, media, _asset(name), headers={"Cache-Control": _CACHE})
