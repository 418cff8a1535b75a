"""`python -m devstack.openapi` (make openapi): each API's OpenAPI 3.1 document, generated from
the code and the template, written to layers/core/python/mzpay/openapi/documents/<api>.json
(shipped in the layer, served at /openapi.json; docs/openapi links there).

Powertools gives the paths, parameters and request bodies of each function's resolver; this
completes them from what the code already says, in one place per fact:
- summary and description: the route function's docstring; tag: the function (its template
  Description); operationId: the function's name in camelCase;
- security: the template (an API's default authorizer, `Authorizer: NONE`), the collection
  routes' RouteAccess, the scope of `requires`; the scheme per API;
- `Idempotency-Key`: routes wrapped by `idempotent`;
- the success answer: mzpay.openapi.<api>.ROUTES (a model, with examples) where written;
- every error status as the API's error shape, listing its codes: the route's `@errors`, plus
  those of its kind (authentication, body, path ids, idempotency, dependency faults), each
  catalogued in mzpay.domain.common.error_codes.
The FastAPI-style 422 HTTPValidationError Powertools adds (the service never answers it) goes.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from devstack.modules import load_module
from devstack.template import load_template

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "layers" / "core" / "python" / "mzpay" / "openapi" / "documents"
API_VERSION = "1.0.0"
METHODS = ("get", "put", "post", "delete", "patch")
_DROPPED = ("HTTPValidationError", "ValidationError", "ResponseValidationError")

TITLES = {
    "gateway": "mzpay gateway API",
    "collection": "mzpay collection API",
    "management": "mzpay management API",
    "dashboard": "mzpay merchant dashboard",  # pages for people only: it has no document
}
DESCRIPTIONS = {
    "gateway": (
        "Merchants take and move money: charges (mobile money, cards as acquirer tokens), hosted "
        "checkout, refunds, payouts, name lookups, events and signed webhooks. Authenticate with "
        "`Authorization: Bearer <API key>` (or an OAuth 2.0 access token from POST /oauth/token). "
        "Errors are RFC 9457 problem documents with a `code`. Money-moving POSTs need an "
        "`Idempotency-Key`: retrying with the same key never moves money twice."
    ),
    "collection": (
        "Businesses onboard, pass KYC and send collection requests that payers settle through the "
        "gateway. Authenticate with an OIDC access token of a configured identity provider; the "
        "system licence must be active. Errors are `{code, message, request_id, metadata}`."
    ),
    "management": (
        "Operators run the service: accounts, API keys, limits, PSPs, connector bindings, payout "
        "approvals and webhook deliveries. Authenticate with the operator token (and mTLS and the "
        "management IP allowlist where configured). Errors are RFC 9457 problem documents."
    ),
}


# ---------------------------------------------------------------- reading the code


def _resolver_module(code_uri: str, handler: str) -> Any:
    module_name = handler.rpartition(".")[0]
    path = ROOT / code_uri / f"{module_name}.py"
    return load_module(path, f"openapi_{code_uri.strip('/').replace('/', '_')}")


def _routes(app: Any) -> dict[tuple[str, str], Any]:
    """(method, OpenAPI path) -> Powertools Route of the resolver."""
    found = {}
    for route in [*app._static_routes, *app._dynamic_routes]:  # Powertools' route tables
        methods = route.method if isinstance(route.method, list | tuple) else [route.method]
        for method in methods:
            found[(str(method).lower(), route.openapi_path)] = route
    return found


def _camel(name: str) -> str:
    head, *rest = name.strip("_").split("_")
    return head + "".join(part.capitalize() for part in rest)


def _docstring(func: Any) -> tuple[str | None, str | None]:
    text = (getattr(func, "__doc__", None) or "").strip()
    if not text:
        return None, None
    first, _, rest = text.partition("\n\n")
    summary = " ".join(first.split()).rstrip(".")
    description = " ".join(rest.split()) if rest.strip() else None
    return summary, description


def _template_auth(props: dict[str, Any]) -> dict[tuple[str, str], bool]:
    """(method, path) -> whether the template puts an authorizer in front of it."""
    auth: dict[tuple[str, str], bool] = {}
    for event in (props.get("Events") or {}).values():
        if event["Type"] != "Api":
            continue
        p = event["Properties"]
        public = (p.get("Auth") or {}).get("Authorizer") == "NONE"
        auth[(p["Method"].lower(), p["Path"])] = not public
    return auth


def documents() -> dict[str, dict[str, Any]]:
    """API name -> its OpenAPI document (paths merged over the API's functions)."""
    sys.path.insert(0, str(ROOT / "layers" / "core" / "python"))
    template = load_template(ROOT / "template.yaml")
    apis = {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Api"
    }
    docs: dict[str, dict[str, Any]] = {}
    operations: dict[str, list[dict[str, Any]]] = {}
    for logical_id, spec in template["Resources"].items():
        if spec["Type"] != "AWS::Serverless::Function":
            continue
        props = spec["Properties"]
        api_ids = {
            e["Properties"]["RestApiId"]["Ref"] for e in (props.get("Events") or {}).values() if e["Type"] == "Api"
        }
        if not api_ids:
            continue
        module = _resolver_module(props["CodeUri"], props["Handler"])
        app = module.app
        routes = _routes(app)
        access = getattr(getattr(module, "routes", None), "access", {})
        for api_id in api_ids:
            name = api_id.removesuffix("Api").lower()
            schema = json.loads(app.get_openapi_json_schema(title=TITLES[name], version=API_VERSION))
            if not schema.get("paths"):  # only pages for people (the operator console): not in the API's document
                continue
            has_authorizer = bool(((apis.get(api_id) or {}).get("Auth") or {}).get("DefaultAuthorizer"))
            template_auth = _template_auth(props)
            merged = docs.setdefault(name, schema)
            if merged is not schema:
                for path, item in schema["paths"].items():  # a path's methods may be served by two functions
                    merged["paths"].setdefault(path, {}).update(item)
                merged.setdefault("components", {}).setdefault("schemas", {}).update(
                    schema.get("components", {}).get("schemas", {})
                )
            tag = logical_id.removeprefix(name.capitalize()).removesuffix("Function") or logical_id
            merged.setdefault("tags", []).append({"name": tag, "description": props.get("Description", "")})
            for path, item in schema["paths"].items():
                for method in item:
                    if method not in METHODS:
                        continue
                    route = routes[(method, path)]
                    operations.setdefault(name, []).append(
                        {
                            "path": path,
                            "method": method,
                            "func": route.func,
                            "tag": tag,
                            "authorized": has_authorizer and template_auth.get((method, path), True),
                            "access": access.get((method.upper(), path)),
                            "api": name,
                            "surface": str(getattr(app, "mzpay_surface", name)),
                        }
                    )
    for name, document in docs.items():
        _complete(name, document, operations[name])
    return docs


# ---------------------------------------------------------------- completing a document


def _complete(api: str, document: dict[str, Any], operations: list[dict[str, Any]]) -> None:
    from mzpay.domain.common import error_codes

    results = _results(api)
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for dropped in _DROPPED:
        schemas.pop(dropped, None)
    schemas.update(_error_schemas())
    components["securitySchemes"] = _security_schemes(api)
    document["info"]["description"] = DESCRIPTIONS[api]
    document["tags"] = sorted(document.get("tags", []), key=lambda t: t["name"])
    used_ids: set[str] = set()
    for op in sorted(operations, key=lambda o: (o["path"].startswith("/v1/"), o["path"], o["method"])):
        operation = document["paths"][op["path"]][op["method"]]
        _describe(operation, op, used_ids)
        codes = _codes(api, op, operation)
        catalogue = error_codes.CATALOGUES[op["surface"]]
        operation["responses"] = _responses(op, operation, codes, catalogue, results, schemas)
    document["paths"] = dict(sorted(document["paths"].items()))


def _results(api: str) -> dict[tuple[str, str], Any]:
    return dict(getattr(_models_module(api), "ROUTES", {}))


def _describe(operation: dict[str, Any], op: dict[str, Any], used_ids: set[str]) -> None:
    from mzpay.http.marks import marks_of

    marks = marks_of(op["func"])
    summary, description = _docstring(op["func"])
    operation_id = _camel(getattr(op["func"], "__name__", "operation"))
    if operation_id in used_ids:  # one function serves an alias path (/payments/{id}, /v1/payments/{id})
        operation_id += "V1" if op["path"].startswith("/v1/") else "Legacy"
    used_ids.add(operation_id)
    operation["operationId"] = operation_id
    operation["summary"] = summary or f"{op['method'].upper()} {op['path']}"
    notes = [description] if description else []
    if marks["scope"]:
        notes.append(f"Needs the scope `{marks['scope']}`.")
    if marks["idempotent"]:
        notes.append(
            (
                "An `Idempotency-Key` (at most 255 bytes) is optional and honoured when sent: "
                if marks["idempotency_optional"]
                else "Send an `Idempotency-Key` (at most 255 bytes): "
            )
            + "a retry with the same key and body "
            "answers the first answer again (`Idempotent-Replayed: true`) and never acts twice."
        )
    if notes:
        operation["description"] = " ".join(notes)
    operation["tags"] = [op["tag"]]
    if op["authorized"] or (op["access"] is not None and op["access"].token):
        scheme = {"gateway": "apiKey", "management": "operatorToken", "collection": "accessToken"}
        security: list[dict[str, list[str]]] = [{scheme[op["api"]]: []}]
        if op["api"] == "gateway":
            security.append({"oauth2": [marks["scope"]] if marks["scope"] else []})
        operation["security"] = security
    else:
        operation["security"] = []
    if marks["filters"]:
        from mzpay.collection.payments import KINDS as COLLECTION_KINDS
        from mzpay.domain.common.listing import documented
        from mzpay.steps.listings import KINDS

        kind = {**KINDS, **COLLECTION_KINDS}[marks["filters"]]
        operation.setdefault("parameters", []).extend(documented(kind))
    if marks["idempotent"]:
        parameters = operation.setdefault("parameters", [])
        parameters.insert(
            0,
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": not marks["idempotency_optional"],
                "description": "Your unique key of this request (a UUID, at most 255 bytes), reused on every retry.",
                "schema": {"type": "string", "minLength": 1, "maxLength": 255},
                "example": "4f9c2c1e-7a1b-4a57-9d7e-2f3b8f0c1a55",
            },
        )


def _codes(api: str, op: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    from mzpay.http.marks import marks_of

    marks = marks_of(op["func"])
    codes: list[str] = []
    if op["surface"] == "oauth":  # RFC 6749's codes, in its own shape
        return [*marks["errors"], "invalid_request", "wrong_region", "temporarily_unavailable", "server_error"]
    if operation.get("requestBody") or operation.get("parameters"):
        codes += ["validation_error", "missing_field"] if api == "collection" else ["invalid_request"]
    if operation.get("requestBody"):
        codes.append("invalid_request")  # a body that is not JSON, or not text, in every API
    if (operation.get("requestBody") or operation.get("parameters")) and api != "collection":
        codes.append("gateway.raw_card_data_not_accepted")  # card data in any field (mzpay.http.card_screen)
    if op["authorized"] and api == "gateway":
        codes += ["unauthorized", "invalid_api_key", "key_expired", "wrong_environment"]
        codes += ["client_certificate_required", "ip_not_allowed", "account_suspended", "rate_limited"]
        codes.append("customer_not_allowed")  # a key restricted to customers: another's, or a route for none
        if marks["scope"]:
            codes.append("insufficient_scope")
    elif op["authorized"] and api == "management":
        codes += ["unauthorized", "ip_not_allowed"]
    access = op["access"]
    if access is not None:
        if access.licence:
            codes += ["license_invalid", "license_expired"]
        if access.token:
            codes += ["unauthorized", "provider_error"]  # the token's provider keys unreachable: 502
        if access.capability or access.permission:
            codes.append("forbidden")
    if "{" in op["path"]:
        codes.append("not_found")
    if marks["idempotent"]:
        codes += [] if marks["idempotency_optional"] else ["idempotency_key_required"]
        codes += ["invalid_idempotency_key", "idempotency_key_reused"]
        codes += ["request_in_progress", "idempotency_unavailable"]
    codes += list(marks["errors"])
    codes += ["processing_error"] if api == "collection" else ["service_unavailable", "internal_error"]
    return list(dict.fromkeys(codes))


def _responses(
    op: dict[str, Any],
    operation: dict[str, Any],
    codes: list[str],
    catalogue: dict[str, Any],
    results: dict[tuple[str, str], Any],
    schemas: dict[str, Any],
) -> dict[str, Any]:
    from mzpay.domain.common.error_codes import statuses
    from mzpay.http.marks import marks_of

    old = operation.get("responses", {})
    success_status = _success_status(op["func"]) or next((s for s in old if s.startswith("2")), "200")
    success = dict(next((v for s, v in old.items() if s.startswith("2")), None) or {"description": "OK"})
    key = (op["method"].upper(), op["path"])
    model = results.get(key)
    if model is not None:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, definition in schema.pop("$defs", {}).items():
            schemas[name] = definition
        schemas[model.__name__] = schema
        success = {
            "description": _first_line(model.__doc__) or "OK",
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        }
    elif key in results and "application/json" not in success.get("content", {"application/json": None}):
        # a file the route describes itself (a KYB document)
        pass
    elif key in results or op["path"] in ("/docs", "/docs/{asset}"):  # a page (or its file) for people
        if op["path"].endswith(".js"):  # a page's script (the payment link's copy buttons)
            media_types: tuple[str, ...] = ("text/javascript",)
        else:
            media_types = ("text/css", "text/javascript") if op["path"].endswith("}") else ("text/html",)
        success = {
            "description": "A page for people." if media_types == ("text/html",) else "A file of the page.",
            "content": {media: {"schema": {"type": "string"}} for media in media_types},
        }
    elif op["path"] == "/openapi.json":
        success = {
            "description": "This document.",
            "content": {"application/json": {"schema": {"type": "object", "additionalProperties": True}}},
        }
    elif success.get("description") == "Successful Response":
        success["description"] = "OK"
    marks = marks_of(op["func"])
    html = {"text/html": {"schema": {"type": "string"}}}
    if 200 in marks["pages"]:
        success_status, success = "200", {"description": "A page for people.", "content": html}
    responses: dict[str, Any] = {success_status: success}
    if 303 in marks["pages"]:
        responses["303"] = {
            "description": "A redirect for the browser (to the hosted checkout).",
            "headers": {"Location": {"schema": {"type": "string"}, "description": "Where to go."}},
        }
    shapes = marks["shapes"]
    for status, listed in statuses(catalogue, codes).items():
        lines = "\n".join(f"- `{code}`: {catalogue[code].meaning}" for code in listed)
        content: dict[str, Any] = {}
        for code in listed:
            shape, media = (shapes[code], "application/json") if code in shapes else _ERROR_SHAPES[op["surface"]]
            if code in shapes:
                _add_model(op["api"], shape, schemas)
            content.setdefault(media, {"schema": {"$ref": f"#/components/schemas/{shape}"}})
        if status in marks["pages"]:
            content = {**html, **content}  # a page for people, or the API's error where the page is not answered
        response: dict[str, Any] = {"description": lines, "content": content, "x-error-codes": listed}
        if status in (429, 503) or any(catalogue[c].retry == "later" for c in listed):
            response["headers"] = {
                "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
            }
        responses[str(status)] = response
    return responses


def _success_status(func: Any) -> str | None:
    """201 or 202 when the route answers through `created(...)` or `to_response(..., 202)`."""
    import inspect

    try:
        source = inspect.getsource(inspect.unwrap(func))
    except (OSError, TypeError):
        return None
    if "created(" in source:
        return "201"
    found = re.search(r"to_response\(.*, (20\d)\)", source, re.S)
    return found.group(1) if found else None


_ERROR_SHAPES = {
    "gateway": ("Problem", "application/problem+json"),
    "management": ("Problem", "application/problem+json"),
    "collection": ("CollectionError", "application/json"),
    "oauth": ("OAuthError", "application/json"),
}


def _add_model(api: str, name: str, schemas: dict[str, Any]) -> None:
    """The schema of model `name` of mzpay.openapi.<api> (an error shape of a route's own)."""
    found = getattr(_models_module(api), name, None)
    if found is None:
        raise KeyError(f"no model {name} in mzpay.openapi.{api}")
    schema = found.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(schema.pop("$defs", {}))
    schemas[name] = schema


def _models_module(api: str) -> Any:
    try:
        return importlib.import_module(f"mzpay.openapi.{api}")
    except ModuleNotFoundError:
        return None


def _first_line(text: str | None) -> str:
    return " ".join((text or "").strip().split("\n\n")[0].split())


def _error_schemas() -> dict[str, Any]:
    field_error = {
        "type": "object",
        "properties": {
            "field": {"type": "string", "description": "The field's path, e.g. money.amount."},
            "code": {"type": "string"},
            "message": {"type": "string"},
        },
        "required": ["field", "code", "message"],
    }
    return {
        "FieldError": field_error,
        "Problem": {
            "type": "object",
            "description": "An RFC 9457 problem document; `code` says what went wrong, more members may follow it.",
            "properties": {
                "type": {"type": "string", "example": "about:blank"},
                "title": {"type": "string", "example": "Not Found"},
                "status": {"type": "integer", "example": 404},
                "code": {"type": "string", "example": "not_found"},
                "detail": {"type": "string"},
                "errors": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}},
                "error": {
                    "type": "object",
                    "description": "The same code and detail in the older envelope.",
                    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                    "required": ["code", "message"],
                },
            },
            "required": ["type", "title", "status", "code", "detail", "error"],
            "additionalProperties": True,
        },
        "OAuthError": {
            "type": "object",
            "description": "RFC 6749 5.2: the token endpoint's error.",
            "properties": {
                "error": {"type": "string", "example": "invalid_client"},
                "error_description": {"type": "string"},
            },
            "required": ["error", "error_description"],
        },
        "CollectionError": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "example": "validation_error"},
                "message": {"type": "string"},
                "request_id": {"type": "string", "pattern": "^req_"},
                "metadata": {"type": "object", "additionalProperties": True},
            },
            "required": ["code", "message", "request_id", "metadata"],
        },
    }


def _security_schemes(api: str) -> dict[str, Any]:
    if api == "gateway":
        from mzpay.domain.access.keys import SCOPES  # the scopes a key or client may hold

        return {
            "apiKey": {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "mzp_<mode>_... API key, or an mzt_ OAuth access token",
                "description": "An API key of the account (test or live), or an OAuth 2.0 access token.",
            },
            "oauth2": {
                "type": "oauth2",
                "description": "Client credentials (a client secret or a private-key JWT); docs/access.md.",
                "flows": {
                    "clientCredentials": {
                        "tokenUrl": "/oauth/token",
                        "scopes": {scope: f"Allows {scope.replace(':', ' ')}." for scope in SCOPES},
                    }
                },
            },
        }
    if api == "management":
        return {"operatorToken": {"type": "http", "scheme": "bearer", "description": "The operator token."}}
    return {
        "accessToken": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "An access token of a configured OIDC identity provider.",
        }
    }


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, document in sorted(documents().items()):
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} ({len(document['paths'])} paths)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
