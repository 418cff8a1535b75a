"""A REST API (API Gateway v1) played locally from its template declaration.

Routes are exactly the template's `Api` events; an undeclared path or method gets the
MISSING_AUTHENTICATION_TOKEN gateway response, as on AWS. Lambda REQUEST authorizers run
with a result cache keyed on their identity sources. Errors of the platform itself are the
template's gateway responses, rendered with `$context` variables.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from werkzeug.wrappers import Request, Response

from devstack.lambdas import FunctionRuntime, InvocationError
from devstack.provision import ACCOUNT_ID
from devstack.tls import PEER_CERT_KEY, client_cert_context
from devstack.waf import WebAcl, rate_rules

log = logging.getLogger("devstack.apigw")
MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit

# API Gateway's own answers when the template does not customise a response type.
_DEFAULT_RESPONSES: dict[str, tuple[int, str]] = {
    "MISSING_AUTHENTICATION_TOKEN": (403, "Missing Authentication Token"),
    "UNAUTHORIZED": (401, "Unauthorized"),
    "ACCESS_DENIED": (403, "User is not authorized to access this resource"),
    "AUTHORIZER_FAILURE": (500, "Authorizer error"),
    "AUTHORIZER_CONFIGURATION_ERROR": (500, "Authorizer configuration error"),
    "REQUEST_TOO_LARGE": (413, "Request Too Long"),
    "INTEGRATION_FAILURE": (502, "Internal server error"),
    "INTEGRATION_TIMEOUT": (504, "Endpoint request timed out"),
}


@dataclass(frozen=True)
class Route:
    method: str  # GET, POST ... or ANY
    path: str  # /v1/payments/{id}, /{proxy+}
    function: str  # logical id
    authorizer: str | None  # authorizer name, None for open routes

    @property
    def segments(self) -> list[str]:
        return [s for s in self.path.split("/") if s]

    def match(self, path: str) -> dict[str, str] | None:
        """Path parameters when `path` matches this route's path template."""
        parts = [s for s in path.split("/") if s]
        params: dict[str, str] = {}
        for index, segment in enumerate(self.segments):
            if segment.startswith("{") and segment.endswith("+}"):
                if index >= len(parts):
                    return None
                params[segment[1:-2]] = "/".join(parts[index:])
                return params
            if index >= len(parts):
                return None
            if segment.startswith("{") and segment.endswith("}"):
                params[segment[1:-1]] = parts[index]
            elif segment != parts[index]:
                return None
        return params if len(parts) == len(self.segments) else None

    def specificity(self) -> tuple[int, ...]:
        """API Gateway prefers literal segments over variables over greedy ones, left to right."""
        return tuple(2 if not s.startswith("{") else 0 if s.endswith("+}") else 1 for s in self.segments)


@dataclass(frozen=True)
class Authorizer:
    name: str
    function: str  # logical id
    headers: tuple[str, ...]
    query_strings: tuple[str, ...]
    context: tuple[str, ...]
    ttl: int


@dataclass
class ApiDefinition:
    """An AWS::Serverless::Api and the routes declared on it."""

    logical_id: str
    api_id: str
    stage: str
    region: str
    routes: list[Route]
    authorizers: dict[str, Authorizer]
    gateway_responses: dict[str, Any]
    binary_media_types: list[str] = field(default_factory=list)
    web_acl: WebAcl | None = None  # AWS WAF in front of the stage (devstack.waf)

    @classmethod
    def from_template(
        cls,
        logical_id: str,
        props: Mapping[str, Any],
        region: str,
        routes: list[Route],
        function_by_arn: Mapping[str, str],
        web_acl: Mapping[str, Any] | None = None,
    ) -> ApiDefinition:
        auth = props.get("Auth") or {}
        authorizers: dict[str, Authorizer] = {}
        for name, spec in (auth.get("Authorizers") or {}).items():
            if spec.get("FunctionPayloadType", "TOKEN") != "REQUEST":
                raise NotImplementedError(f"authorizer {name}: only REQUEST authorizers are emulated")
            identity = spec.get("Identity") or {}
            function = function_by_arn[spec["FunctionArn"]]
            authorizers[name] = Authorizer(
                name=name,
                function=function,
                headers=tuple(identity.get("Headers") or ()),
                query_strings=tuple(identity.get("QueryStrings") or ()),
                context=tuple(identity.get("Context") or ()),
                ttl=int(identity.get("ReauthorizeEvery", 300)),
            )
        return cls(
            logical_id=logical_id,
            api_id=props["api_id"],
            stage=str(props.get("StageName", "prod")),
            region=region,
            routes=routes,
            authorizers=authorizers,
            gateway_responses=props.get("GatewayResponses") or {},
            binary_media_types=[t.replace("~1", "/") for t in props.get("BinaryMediaTypes") or []],
            web_acl=WebAcl(rate_rules(web_acl)) if web_acl is not None else None,
        )


class GatewayError(Exception):
    """A platform answer (gateway response type), not the function's."""

    def __init__(self, response_type: str, message: str = "", authorizer: Mapping[str, Any] | None = None):
        super().__init__(response_type)
        self.response_type = response_type
        self.message = message
        self.authorizer = dict(authorizer or {})


def _integration_failure(exc: InvocationError) -> GatewayError:
    if exc.error_type == "Sandbox.Timedout":
        return GatewayError("INTEGRATION_TIMEOUT", "Endpoint request timed out")
    return GatewayError("INTEGRATION_FAILURE", "Internal server error")


def _authorizer_failure(exc: InvocationError) -> GatewayError:
    if exc.error_message == "Unauthorized":  # what a Lambda authorizer raises to answer 401
        return GatewayError("UNAUTHORIZED", "Unauthorized")
    # API Gateway's execution log says why; the stack's log does too (a timeout, a crash)
    log.warning("authorizer failed: %s", exc)
    return GatewayError("AUTHORIZER_FAILURE", "Authorizer error")


class RestApi:
    """WSGI application playing one REST API."""

    def __init__(self, definition: ApiDefinition, runtimes: Mapping[str, FunctionRuntime]):
        self.definition = definition
        self.runtimes = runtimes  # logical id -> runtime
        self._cache: dict[tuple[str, tuple[str, ...]], tuple[float, dict[str, Any]]] = {}
        self._cache_lock = threading.Lock()

    # ---------------------------------------------------------------- WSGI
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        context: dict[str, Any] = {
            "requestId": str(uuid.uuid4()),
            "httpMethod": request.method,
            "path": f"/{self.definition.stage}{request.path}",
            "resourcePath": "",
            "stage": self.definition.stage,
            "identity": {"sourceIp": request.remote_addr or "127.0.0.1"},
        }
        blocked = self._waf(request)
        if blocked is not None:  # WAF answers before API Gateway: no request id, no function
            return blocked(environ, start_response)
        try:
            response = self._handle(request, context)
        except GatewayError as error:
            response = self.gateway_response(error, request, context)
        response.headers["x-amzn-RequestId"] = context["requestId"]
        return response(environ, start_response)

    def _waf(self, request: Request) -> Response | None:
        """The web ACL's answer when it blocks the request (WAF sees the path with the stage)."""
        acl = self.definition.web_acl
        if acl is None:
            return None
        blocked = acl.judge(f"/{self.definition.stage}{request.path}", request.remote_addr or "")
        if blocked is None:
            return None
        return Response(blocked.body, status=blocked.status, headers=blocked.headers, content_type=blocked.content_type)

    def _handle(self, request: Request, context: dict[str, Any]) -> Response:
        route, params = self.route_for(request.method, request.path)
        context["resourcePath"] = route.path
        body = request.get_data(cache=False)
        if len(body) > MAX_BODY_BYTES:
            raise GatewayError("REQUEST_TOO_LARGE", "Request Too Long")
        event = self.proxy_event(request, route, params, body, context)
        if route.authorizer:
            authorizer_context = self.authorize(route, event)
            event["requestContext"]["authorizer"] = authorizer_context
            context["authorizer"] = authorizer_context
        return self.to_response(self._invoke(route.function, event, _integration_failure))

    def _invoke(self, function: str, event: dict[str, Any], failure: Callable[[InvocationError], GatewayError]) -> Any:
        """The function's answer; its failure as the GatewayError API Gateway answers with."""
        try:
            return self.runtimes[function].invoke(event)
        except InvocationError as exc:
            raise failure(exc) from exc

    # ---------------------------------------------------------------- routing
    def route_for(self, method: str, path: str) -> tuple[Route, dict[str, str]]:
        """The most specific resource matching `path`, then the method on it (or ANY); like
        API Gateway, a resource without that method does not fall back to a greedy one."""
        matches = [(route, params) for route in self.definition.routes if (params := route.match(path)) is not None]
        if not matches:
            raise GatewayError("MISSING_AUTHENTICATION_TOKEN", "Missing Authentication Token")
        best = max(route.specificity() for route, _ in matches)
        on_resource = [(route, params) for route, params in matches if route.specificity() == best]
        for wanted in (method, "ANY"):
            for route, params in on_resource:
                if route.method == wanted:
                    return route, params
        raise GatewayError("MISSING_AUTHENTICATION_TOKEN", "Missing Authentication Token")

    def is_binary(self, content_type: str) -> bool:
        media = content_type.split(";", 1)[0].strip().lower()
        return any(fnmatch.fnmatch(media, pattern.lower()) for pattern in self.definition.binary_media_types)

    def proxy_event(
        self, request: Request, route: Route, params: dict[str, str], body: bytes, context: dict[str, Any]
    ) -> dict[str, Any]:
        multi_headers: dict[str, list[str]] = {}
        for name, value in request.headers.items():
            multi_headers.setdefault(name, []).append(value)
        multi_query: dict[str, list[str]] = {k: request.args.getlist(k) for k in request.args}
        binary = bool(body) and self.is_binary(request.content_type or "")
        if body and not binary:
            try:
                text: str | None = body.decode("utf-8")
            except UnicodeDecodeError:
                text, binary = None, True
        else:
            text = None
        now = datetime.now(UTC)
        request_context = {
            "resourceId": route.path,
            "resourcePath": route.path,
            "httpMethod": request.method,
            "extendedRequestId": context["requestId"],
            "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "requestTimeEpoch": int(now.timestamp() * 1000),
            "path": context["path"],
            "accountId": ACCOUNT_ID,
            "protocol": request.environ.get("SERVER_PROTOCOL", "HTTP/1.1"),
            "stage": self.definition.stage,
            "domainPrefix": "localhost",
            "domainName": request.host,
            "requestId": context["requestId"],
            "apiId": self.definition.api_id,
            "identity": {"sourceIp": context["identity"]["sourceIp"], "userAgent": request.headers.get("User-Agent")},
        }
        presented = request.environ.get(PEER_CERT_KEY)
        if presented:  # mutual TLS: the certificate the client presented (the TLS layer verified its chain)
            request_context["identity"]["clientCert"] = client_cert_context(presented)
        return {
            "resource": route.path,
            "path": request.path,
            "httpMethod": request.method,
            "headers": {k: v[-1] for k, v in multi_headers.items()} or None,
            "multiValueHeaders": multi_headers or None,
            "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
            "multiValueQueryStringParameters": multi_query or None,
            "pathParameters": params or None,
            "stageVariables": None,
            "requestContext": request_context,
            "body": base64.b64encode(body).decode("ascii") if binary else text,
            "isBase64Encoded": binary,
        }

    def method_arn(self, event: dict[str, Any]) -> str:
        d = self.definition
        resource = event["path"].lstrip("/")
        return f"arn:aws:execute-api:{d.region}:{ACCOUNT_ID}:{d.api_id}/{d.stage}/{event['httpMethod']}/{resource}"

    # ---------------------------------------------------------------- authorizers
    def _identity(self, authorizer: Authorizer, event: dict[str, Any]) -> tuple[str, ...]:
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
        query = event.get("queryStringParameters") or {}
        values: list[str] = []
        for name in authorizer.headers:
            value = headers.get(name.lower())
            if not value:
                raise GatewayError("UNAUTHORIZED", "Unauthorized")
            values.append(value)
        for name in authorizer.query_strings:
            if not query.get(name):
                raise GatewayError("UNAUTHORIZED", "Unauthorized")
            values.append(query[name])
        for path in authorizer.context:
            node: Any = event["requestContext"]
            for part in path.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            values.append(str(node))
        return tuple(values)

    def authorize(self, route: Route, event: dict[str, Any]) -> dict[str, Any]:
        """Run (or reuse the cached answer of) the route's authorizer; its context, or GatewayError."""
        authorizer = self.definition.authorizers[route.authorizer or ""]
        identity = self._identity(authorizer, event)
        method_arn = self.method_arn(event)
        key = (authorizer.name, identity)
        cached = None
        with self._cache_lock:
            if key in self._cache and self._cache[key][0] > time.monotonic():
                cached = self._cache[key][1]
        if cached is None:
            auth_event = {
                "type": "REQUEST",
                "methodArn": method_arn,
                **{
                    k: event[k]
                    for k in (
                        "resource",
                        "path",
                        "httpMethod",
                        "headers",
                        "multiValueHeaders",
                        "queryStringParameters",
                        "multiValueQueryStringParameters",
                        "pathParameters",
                        "stageVariables",
                        "requestContext",
                    )
                },
            }
            started = time.perf_counter()
            cached = self._invoke(authorizer.function, auth_event, _authorizer_failure)
            if not isinstance(cached, dict) or "policyDocument" not in cached or "principalId" not in cached:
                raise GatewayError("AUTHORIZER_CONFIGURATION_ERROR", "Authorizer configuration error")
            cached = {**cached, "_latency": int((time.perf_counter() - started) * 1000)}
            if authorizer.ttl > 0:
                with self._cache_lock:
                    self._cache[key] = (time.monotonic() + authorizer.ttl, cached)
        context = {k: v for k, v in (cached.get("context") or {}).items()}
        context["principalId"] = cached["principalId"]
        context["integrationLatency"] = cached["_latency"]
        if not policy_allows(cached["policyDocument"], method_arn):
            raise GatewayError("ACCESS_DENIED", "User is not authorized to access this resource", context)
        return context

    # ---------------------------------------------------------------- responses
    def to_response(self, result: Any) -> Response:
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            raise GatewayError("INTEGRATION_FAILURE", "Internal server error")  # malformed proxy response
        body = result.get("body") or ""
        data = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode("utf-8")
        response = Response(data, status=result["statusCode"])
        response.headers.pop("Content-Type", None)
        for name, value in (result.get("headers") or {}).items():
            response.headers[name] = str(value)
        for name, values in (result.get("multiValueHeaders") or {}).items():
            response.headers.pop(name, None)
            for value in values:
                response.headers.add(name, str(value))
        if "Content-Type" not in response.headers:
            response.headers["Content-Type"] = "application/json"
        return response

    def gateway_response(self, error: GatewayError, request: Request, context: dict[str, Any]) -> Response:
        """Render a gateway response type as the template declares it (else AWS's default)."""
        default_status, default_message = _DEFAULT_RESPONSES.get(error.response_type, (500, "Internal server error"))
        responses = self.definition.gateway_responses
        family = "DEFAULT_4XX" if default_status < 500 else "DEFAULT_5XX"
        spec = responses.get(error.response_type) or responses.get(family)
        context = {
            **context,
            "authorizer": error.authorizer or context.get("authorizer", {}),
            "error": {"message": error.message or default_message, "responseType": error.response_type},
        }
        if spec is None:
            body = json.dumps({"message": error.message or default_message})
            response = Response(body, status=default_status, content_type="application/json")
        else:
            status = int(spec.get("StatusCode", default_status))
            templates = spec.get("ResponseTemplates") or {}
            content_type, template = next(
                iter(templates.items()), ("application/json", '{"message":$context.error.messageString}')
            )
            response = Response(render_template(template, context), status=status, content_type=content_type)
            headers = ((spec.get("ResponseParameters") or {}).get("Headers")) or {}
            for name, source in headers.items():
                value = mapping_value(str(source), request, context)
                if value is not None:
                    response.headers[name] = value
        return response


def policy_allows(policy: Mapping[str, Any], method_arn: str) -> bool:
    """IAM evaluation for execute-api: an explicit Deny wins, else some Allow must match."""
    statements = policy.get("Statement") or []
    if isinstance(statements, dict):
        statements = [statements]
    allowed = False
    for statement in statements:
        resources = statement.get("Resource") or []
        resources = [resources] if isinstance(resources, str) else resources
        actions = statement.get("Action") or []
        actions = [actions] if isinstance(actions, str) else actions
        if not any(fnmatch.fnmatchcase("execute-api:Invoke", a) for a in actions):
            continue
        if any(fnmatch.fnmatchcase(method_arn, r.replace("?", "[?]")) for r in resources):
            if statement.get("Effect") == "Deny":
                return False
            if statement.get("Effect") == "Allow":
                allowed = True
    return allowed


def _lookup(context: Mapping[str, Any], dotted: str) -> Any:
    node: Any = context
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def render_template(template: str, context: Mapping[str, Any]) -> str:
    """Substitute `$context.x.y` (and `$context.error.messageString`, JSON-quoted) like API
    Gateway does in gateway responses; an unknown variable renders empty."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "error.messageString":
            return json.dumps(str(_lookup(context, "error.message") or ""))
        value = _lookup(context, name)
        return "" if value is None else str(value)

    return re.sub(r"\$context\.([A-Za-z0-9_.]+[A-Za-z0-9_])", replace, template)


def mapping_value(source: str, request: Request, context: Mapping[str, Any]) -> str | None:
    """A gateway response header value: 'static', context.x, or method.request.header.x."""
    if source.startswith("'") and source.endswith("'"):
        return source[1:-1]
    if source.startswith("context."):
        value = _lookup(context, source[len("context.") :])
        return None if value is None else str(value)
    if source.startswith("method.request.header."):
        return request.headers.get(source[len("method.request.header.") :])
    if source.startswith("method.request.querystring."):
        return request.args.get(source[len("method.request.querystring.") :])
    raise NotImplementedError(f"gateway response parameter source {source!r} is not emulated")
