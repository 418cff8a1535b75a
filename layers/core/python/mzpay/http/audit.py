"""The surfaces' side of the audit trail: a resolver middleware that opens an audit scope for each
state-changing request (POST, PUT, PATCH, DELETE) that reached a route, and writes its record when
the route has answered, whatever the answer (a refusal is recorded with its code, one refused by
the route's body or parameter validation included: the middleware runs around Powertools').

Management functions audit every state-changing route (`audit_requests(app, "management")`); the
collection surface audits the routes marked `@audited` (reviewers' decisions, identity providers,
licences). Who acts comes from the management authorizer (the operator's name and address), the
collection caller (administrator or business: its token's subject, issuer and account), or the
surface itself (`steps.audit.identify`: the console's session)."""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware

from mzpay.domain.common.card_data import holds_card_number
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators import audit
from mzpay.http import request_id as rid
from mzpay.http.errors import Surface

AUDITED = "mzpay_audited"
CARD_DATA = "[card data]"  # what a refusal's record keeps of a path parameter holding a card number
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
F = TypeVar("F", bound=Callable[..., Any])


def audited(route: F) -> F:
    """Route decorator: this route's requests go to the audit trail (on surfaces that audit only
    marked routes)."""
    setattr(route, AUDITED, True)
    return route


Actor = Callable[[Any], audit.Actor]
Write = Callable[[audit.Observation, audit.Request, int, str | None], None]


def audit_requests(
    app: APIGatewayRestResolver,
    write: Write,
    surface: str | None = None,
    only_marked: bool = False,
    actor: Actor | None = None,
) -> None:
    """Record every state-changing request of `app`'s routes (or only the `@audited` ones) with
    `write` (mzpay.steps.audit.write, bound by mzpay.entry); `surface` names where they came from
    (default: the resolver's API); `actor(event)` says who acts (mzpay.domain.operators.audit.Actor; default:
    the operator the management authorizer named)."""
    actor_of = actor or operator
    api: Surface = app.mzpay_surface  # type: ignore[attr-defined]
    name = surface or api.value

    def middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response:
        event = app.current_event
        route = app.context.get("_route")
        if event.http_method.upper() not in STATE_CHANGING or route is None:
            return next_middleware(app)
        if only_marked and not getattr(route.func, AUDITED, False):
            return next_middleware(app)
        observation = audit.begin()
        status: int = 500
        code: str | None = api.internal_code()
        try:
            response = next_middleware(app)
            status = response.status_code
            code = _code_of(response) if status >= 400 else None
            return response
        except ServiceError as error:
            status, code = error.status, error.code
            raise
        except Exception as exc:
            from mzpay.http.resolver import is_dependency_fault, is_request_refusal, request_refusal

            if is_request_refusal(exc):
                refusal = request_refusal(app, exc)
                status, code = refusal.status, refusal.code
            elif is_dependency_fault(exc):
                status, code = 503, api.unavailable_code()
            raise
        finally:
            write(
                observation,
                _request(event, route, dict(app.context.get("_route_args") or {}), _body(event)),
                status,
                code,
            )
            audit.end()

    def _request(event: Any, route: Any, path_params: dict[str, Any], body: Any) -> audit.Request:
        who = actor_of(event)
        return audit.Request(
            surface=name,
            action=route.func.__name__,
            method=event.http_method.upper(),
            path=_template(route.path),
            path_params=path_params,
            body=body,
            request_id=rid.current() or "",
            actor_kind=who.kind,
            actor_id=who.id,
            source_ip=who.source_ip,
            actor_issuer=who.issuer,
            actor_account_id=who.account_id,
        )

    def refused_before_route(raw: dict[str, Any], error: ServiceError) -> None:
        """A state-changing request the function refused before its route ran (the surface's
        access check: a business token trying an administrator's route; the body screen): recorded
        with its code and who tried, without its body, which was never read (it may hold what the
        screen refuses, a card number)."""
        method = str(raw.get("httpMethod") or "").upper()
        resource = str(raw.get("resource") or "")
        route = next((r for r in _routes(app) if r.method == method and _template(r.path) == resource), None)
        if method not in STATE_CHANGING or route is None:
            return
        if only_marked and not getattr(route.func, AUDITED, False):
            return
        from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

        observation = audit.begin()
        try:
            path_params = {
                str(k): CARD_DATA if holds_card_number(str(v)) else str(v)  # a card number is never kept
                for k, v in (raw.get("pathParameters") or {}).items()
            }
            write(observation, _request(APIGatewayProxyEvent(raw), route, path_params, None), error.status, error.code)
        finally:
            audit.end()

    app.mzpay_refused_before_route = refused_before_route  # type: ignore[attr-defined]

    # Powertools validates a request's body and parameters in a middleware it runs before every
    # other: the trail's goes around it, so a request refused by validation is recorded too.
    validation = getattr(app, "_request_validation_middleware", None)
    if validation is None:
        app.use([middleware])
        return

    def validated_and_audited(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response:
        validate: Any = functools.partial(validation, next_middleware=next_middleware)
        return middleware(app, validate)

    app._request_validation_middleware = validated_and_audited  # type: ignore[assignment]


def _template(path: str) -> str:
    """Powertools' /v1/x/<id> -> API Gateway's resource /v1/x/{id}."""
    return path.replace("<", "{").replace(">", "}")


def _routes(app: APIGatewayRestResolver) -> list[Any]:
    return [*app._static_routes, *app._dynamic_routes]


def operator(event: Any) -> audit.Actor:
    """The operator the management authorizer named, and their address."""
    context = event.request_context.authorizer.raw_event if event.request_context.authorizer else {}
    source_ip = str(context.get("source_ip") or event.request_context.identity.source_ip or "")
    return audit.Actor("operator", str(context.get("operator") or "anonymous"), source_ip)


def _body(event: Any) -> Any:
    """The request's body as the record keeps it: JSON or form fields as given (secrets masked
    later), anything else (a file, bytes that are not text) by its media type and size."""
    raw = event.get("body")
    if not raw:
        return None
    media = (event.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    try:
        data = base64.b64decode(raw) if event.get("isBase64Encoded") else str(raw).encode("utf-8", "surrogateescape")
    except (ValueError, TypeError):
        return {"media_type": media or None, "bytes": len(str(raw))}
    textual = media in ("", "application/json", "application/x-www-form-urlencoded") or media.endswith("+json")
    if textual:
        try:
            text = data.decode("utf-8")
            if media == "application/x-www-form-urlencoded":
                return {name: values[-1] for name, values in parse_qs(text, keep_blank_values=True).items()}
            return json.loads(text)
        except ValueError:
            pass
    return {"media_type": media or None, "bytes": len(data)}


def _code_of(response: Response) -> str | None:
    """A refusal's code: the problem document's, or an HTML page's X-Error-Code (the console)."""
    header = response.headers.get("X-Error-Code")
    if isinstance(header, str) and header:
        return header
    body = response.body
    if isinstance(body, bytes | str):
        try:
            body = json.loads(body)
        except ValueError:
            return None
    return str(body["code"]) if isinstance(body, dict) and body.get("code") else None
