"""One resolver factory for every API of the stack.

`create_resolver(surface)` gives a Powertools REST resolver with pydantic validation and
OpenAPI generation whose every failure (unknown route, wrong method, unparseable JSON,
validation, ServiceError, dependency fault, bug) ends as the surface's error shape.
`lambda_handler(app)` wraps it so every answer carries X-Request-ID and every log line the
request id.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from http import HTTPStatus
from typing import Any

import simplejson
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import (
    OpenAPIResponseValidationMiddleware,
    _validate_field,
)
from aws_lambda_powertools.event_handler.openapi import encoders as _openapi_encoders
from aws_lambda_powertools.event_handler.openapi.encoders import jsonable_encoder
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from pydantic import BaseModel

from mzpay.http import field_messages
from mzpay.http import request_id as rid
from mzpay.http.body import content_type
from mzpay.http.body import screen as screen_body
from mzpay.http.card_screen import screen as screen_card_data
from mzpay.http.errors import (
    JSON_CONTENT_TYPE,
    PROBLEM_CONTENT_TYPE,
    FieldError,
    ServiceError,
    Surface,
    collection_error,
    oauth_error,
    problem_document,
)
from mzpay.http.principal import admit
from mzpay.observability import correlate, logger

# Powertools turns Decimal into float before serializing; money must stay exact, so its
# encoder keeps Decimal and simplejson (use_decimal) writes it digit for digit.
_openapi_encoders.ENCODERS_BY_TYPE[Decimal] = lambda value: value

dumps: Callable[[Any], str] = partial(simplejson.dumps, use_decimal=True, separators=(",", ":"))
# The stdlib parser: Powertools recognises its JSONDecodeError as "invalid JSON" (400).
loads: Callable[[str], Any] = partial(json.loads, parse_float=Decimal)


class ExactResponseValidation(OpenAPIResponseValidationMiddleware):
    """Validates responses as Powertools does, but dumps them in pydantic's Python mode:
    its JSON mode writes Decimal as a string, and money must reach simplejson as a number."""

    def _serialize_response_with_validation(  # type: ignore[override]
        self, *, field: Any, response_content: Any, **options: Any
    ) -> Any:
        if isinstance(response_content, str | bytes):  # JSON text (an idempotent replay) or a file (a PDF): final
            return response_content
        errors: list[dict[str, Any]] = []
        value = _validate_field(field=field, value=response_content, loc=("response",), existing_errors=errors)
        if errors:  # Powertools raises the same validation error as usual
            return super()._serialize_response_with_validation(
                field=field, response_content=response_content, **options
            )
        options.pop("has_route_custom_response_validation", None)
        if isinstance(value, BaseModel):  # an answer model (mzpay.answers): the keys its use case set
            options["exclude_unset"] = True
        return jsonable_encoder(field.serialize(value, mode="python", **options))


RETRY_AFTER_SECONDS = 1
_LOCATIONS = frozenset({"body", "query", "path", "header", "cookie"})


def field_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """('body', 'money', 'amount') -> 'money.amount'."""
    parts = list(loc)
    if parts and parts[0] in _LOCATIONS:
        parts = parts[1:]
    return ".".join(str(part) for part in parts)


def _field_code(error_type: str) -> str:
    """Builtin pydantic failures get generic field codes; a custom error type raised by a
    model validator (PydanticCustomError('invalid_currency', ...)) is the field code itself."""
    if error_type not in field_messages.BUILTIN_TYPES:
        return error_type
    if error_type == "missing":
        return "required"
    if error_type == "extra_forbidden":
        return "unknown_field"
    if error_type.endswith("_type"):
        return "invalid_type"
    return "invalid_value"


def validation_error(
    errors: list[dict[str, Any]], surface: Surface, model: type[BaseModel] | None = None
) -> ServiceError:
    """Turn pydantic's errors into one ServiceError with one FieldError per failed field, in the
    service's words (http.field_messages); `model`: the route's body model, whose example the
    detail shows when the body's shape is wrong (a field missing, unknown or of the wrong type)."""
    if any(item.get("type") == "json_invalid" for item in errors):
        return ServiceError(400, "invalid_request", "The request body is not valid JSON.")
    fields: list[FieldError] = []
    seen: set[str] = set()
    for item in errors:
        path = field_path(item.get("loc", ())) or "body"
        if path in seen:  # one entry per failed field
            continue
        seen.add(path)
        words = field_messages.message(item, path, model)
        fields.append(FieldError(path, _field_code(str(item.get("type", ""))), words))
    custom_codes = {
        f.code for f in fields if f.code not in {"required", "unknown_field", "invalid_type", "invalid_value"}
    }
    code = custom_codes.pop() if len(custom_codes) == 1 and len(fields) == 1 else surface.validation_code()
    names = ", ".join(f.field for f in fields)
    shape_wrong = any(f.code in ("required", "unknown_field", "invalid_type") for f in fields)
    detail = f"The request has invalid fields: {names}." + (field_messages.body_hint(model) if shape_wrong else "")
    return ServiceError(400, code, detail, errors=fields)


def is_dependency_fault(exc: BaseException) -> bool:
    """True for a failure of AWS (unreachable, timed out, throttled, 5xx): retryable, never a 500
    (decided in one place, mzpay.store.aws)."""
    from mzpay.store import aws

    return aws.is_dependency_fault(exc)


def error_body(error: ServiceError, surface: Surface) -> tuple[str, str]:
    """(content type, serialized body) of `error` on `surface`."""
    if surface.uses_problem_documents:
        return PROBLEM_CONTENT_TYPE, dumps(problem_document(error))
    if surface is Surface.OAUTH:
        return JSON_CONTENT_TYPE, dumps(oauth_error(error))
    return JSON_CONTENT_TYPE, dumps(collection_error(error, rid.collection_request_id(rid.current())))


# Every failure of the token endpoint says how to authenticate and must not be cached (RFC 6749 5.2).
_OAUTH_ERROR_HEADERS = {"WWW-Authenticate": 'Basic realm="mzpay"', "Cache-Control": "no-store"}


def error_headers(error: ServiceError, surface: Surface) -> dict[str, str]:
    return {**_OAUTH_ERROR_HEADERS, **error.headers} if surface is Surface.OAUTH else dict(error.headers)


def error_response(error: ServiceError, surface: Surface) -> Response:
    content_type, body = error_body(error, surface)
    return Response(
        status_code=error.status, content_type=content_type, body=body, headers=error_headers(error, surface)
    )


def to_response(result: Any, status: int = 200) -> Response:
    """A route's return value as a Response (a dict body is validated and serialized later; an
    answer model, mzpay.answers, as the keys it was built with)."""
    if isinstance(result, Response):
        return result
    body = result.model_dump() if isinstance(result, BaseModel) else result
    return Response(status_code=status, content_type=JSON_CONTENT_TYPE, body=body)


def created(result: Any) -> Response:
    """201 with `result` as JSON."""
    return to_response(result, 201)


def unexpected_error(exc: BaseException, surface: Surface) -> ServiceError:
    """A dependency fault is 503 + Retry-After; anything else is logged and answered 500
    with nothing internal in the body."""
    if is_dependency_fault(exc):
        logger.warning("dependency fault", exc_info=exc)
        advice = "retry." if surface is Surface.OAUTH else "retry with the same Idempotency-Key."
        return ServiceError(
            503,
            surface.unavailable_code(),
            f"A dependency of the service is unavailable; {advice}",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    logger.exception("unhandled error", exc_info=exc)
    return ServiceError(500, surface.internal_code(), "The service failed to process the request.")


def create_resolver(surface: Surface) -> APIGatewayRestResolver:
    """The resolver every function of `surface` declares its routes on."""
    app = APIGatewayRestResolver(
        enable_validation=True,
        serializer=dumps,
        json_body_deserializer=loads,
        response_validation_error_http_code=HTTPStatus.INTERNAL_SERVER_ERROR,  # our bug, never the client's
    )
    app._response_validation_middleware = ExactResponseValidation(
        validation_serializer=dumps, has_response_validation_error=True
    )

    @app.not_found
    def _not_found(_exc: NotFoundError) -> Response:
        event = app.current_event
        message = f"No route for {event.http_method} {event.path}."
        return error_response(ServiceError(404, "not_found", message), surface)

    @app.exception_handler(ServiceError)
    def _api_error(exc: ServiceError) -> Response:
        return error_response(exc, surface)

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response:
        return error_response(request_refusal(app, exc), surface)

    @app.exception_handler(RequestUnsupportedContentType)
    def _unsupported(exc: RequestUnsupportedContentType) -> Response:
        return error_response(request_refusal(app, exc), surface)

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        return error_response(unexpected_error(exc, surface), surface)

    app.mzpay_surface = surface  # type: ignore[attr-defined]
    return app


def request_refusal(app: APIGatewayRestResolver, exc: Exception) -> ServiceError:
    """What the surface answers when Powertools refuses the request before its route (the body or
    parameters fail the route's models, or the body is not JSON): the same error the audit trail
    records for it."""
    surface: Surface = app.mzpay_surface  # type: ignore[attr-defined]
    if isinstance(exc, RequestUnsupportedContentType) or _not_json(app.current_event.raw_event):
        return NOT_JSON  # e.g. curl -d without -H: a form, not JSON
    errors = list(exc.errors()) if isinstance(exc, RequestValidationError) else []
    return validation_error(errors, surface, _body_model(app))


def is_request_refusal(exc: BaseException) -> bool:
    """True for Powertools' refusals of a request before its route (see request_refusal)."""
    return isinstance(exc, RequestValidationError | RequestUnsupportedContentType)


def _body_model(app: APIGatewayRestResolver) -> type[BaseModel] | None:
    """The body model of the route being served (Powertools keeps the route in its context)."""
    route = app.context.get("_route")
    params = getattr(getattr(route, "dependant", None), "body_params", None) or []
    return field_messages.model_in(params[0].field_info.annotation) if len(params) == 1 else None


NOT_JSON = ServiceError(400, "invalid_request", "The request body must be JSON (Content-Type: application/json).")


def _not_json(event: dict[str, Any]) -> bool:
    """A body sent with a media type other than JSON (a form, text): its fields were not read as
    the route's JSON, so the one useful answer is to say how to send it."""
    if not event.get("body"):
        return False
    media = content_type(event).split(";", 1)[0].strip().lower()
    return bool(media) and media != "application/json" and not media.endswith("+json")


def _proxy_error(error: ServiceError, surface: Surface) -> dict[str, Any]:
    content_type, body = error_body(error, surface)
    headers = {"Content-Type": [content_type], **{k: [v] for k, v in error_headers(error, surface).items()}}
    return {"statusCode": error.status, "multiValueHeaders": headers, "body": body, "isBase64Encoded": False}


def _refused_before_route(
    app: APIGatewayRestResolver, event: dict[str, Any], error: ServiceError, surface: Surface
) -> dict[str, Any]:
    """A refusal before any route ran, in the surface's shape, or as the page of an app that
    answers people with pages (`app.mzpay_refusal_page(event, error)`: the operator console)."""
    page = getattr(app, "mzpay_refusal_page", None)
    if page is not None:
        try:
            return page(event, error)  # type: ignore[no-any-return]
        except Exception as exc:  # a page that cannot render: the refusal still answers, in JSON
            logger.exception("refusal page failed", exc_info=exc)
    return _proxy_error(error, surface)


def _with_request_id(response: dict[str, Any], request_id: str) -> dict[str, Any]:
    multi = response.get("multiValueHeaders")
    if isinstance(multi, dict):
        for key in [k for k in multi if k.lower() == "x-request-id"]:
            del multi[key]
        multi[rid.HEADER] = [request_id]
    else:
        headers = response.setdefault("headers", {})
        for key in [k for k in headers if k.lower() == "x-request-id"]:
            del headers[key]
        headers[rid.HEADER] = request_id
    return response


def lambda_handler(
    app: APIGatewayRestResolver,
    admit_more: Callable[[dict[str, Any]], None] | None = None,
    may_act_for: Callable[[str, str], None] | None = None,
) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point for `app`: request id in, X-Request-ID out, never a raw crash.
    `admit_more(event)` runs after `admit`, before any route (and its validation): a surface's
    own access checks (the collection surface's licence and token), raising ServiceError.
    `may_act_for` is handed to `admit` (who may act for which account with ?account_id=)."""
    surface: Surface = app.mzpay_surface  # type: ignore[attr-defined]

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        request_id = rid.resolve_request_id(event)
        rid.set_current(request_id)
        platform_id = (event.get("requestContext") or {}).get("requestId")
        # Every log line of the request carries the id it answers in X-Request-ID (its authorizer's
        # too) and API Gateway's own, which the access log records as requestId.
        correlate(request_id, request_id=request_id, gateway_request_id=str(platform_id or ""))
        routed = False
        try:
            admit(
                event, may_act_for=may_act_for
            )  # the authorizer's refusal, or the per-request rules of the merchant's key
            if admit_more is not None:
                admit_more(event)
            refusal = screen_body(event)  # bytes no route could read: 400 before any work
            if refusal is None:  # card data: refused before the audit trail, idempotency or a log sees it
                refusal = screen_card_data(event, surface)
            if refusal is not None:
                raise refusal
            routed = True
            response = app.resolve(event, context)
        except ServiceError as error:
            # Refused before its route: the audit trail (mzpay.http.audit), where the app has one.
            record_refusal = None if routed else getattr(app, "mzpay_refused_before_route", None)
            if record_refusal is not None:
                try:
                    record_refusal(event, error)
                except Exception:  # the refusal stands; the trail's own failures are logged there
                    logger.exception("refusal not recorded in the audit trail")
            response = _refused_before_route(app, event, error, surface)
        except Exception as exc:  # an error handler itself failed: still answer in shape
            response = _proxy_error(unexpected_error(exc, surface), surface)
        return _with_request_id(response, request_id)

    return handler
