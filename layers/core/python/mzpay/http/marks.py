"""What a route tells the OpenAPI generator beside its decorators (devstack/openapi.py reads
them; nothing at runtime does): `@errors("not_found", "invalid_state")` names the error codes
of its use case, each catalogued in mzpay.domain.common.error_codes with its status. The codes every
route of a kind answers (authentication, validation, idempotency, dependency faults) are added
by the generator from the template (authorizer), `requires` (scope) and `idempotent`; the
route's docstring is its summary (first line) and description; its success answer's model is in
mzpay.openapi.<api>.ROUTES. Marks are plain attributes: free at cold start."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

ERRORS = "mzpay_errors"
SHAPES = "mzpay_error_shapes"
PAGES = "mzpay_pages"
SCOPE = "mzpay_scope"
IDEMPOTENT = "mzpay_idempotent"
FILTERS = "mzpay_filters"


def errors(*codes: str, shape: str | None = None) -> Callable[[F], F]:
    """Route decorator: the error codes the route's use case may answer (beyond the common ones);
    `shape`: the model (of mzpay.openapi.<api>) these codes are answered in, when it is not the
    API's error shape (the webhook signature check's `{error, message, t}`)."""

    def mark(route: F) -> F:
        setattr(route, ERRORS, (*getattr(route, ERRORS, ()), *codes))
        if shape is not None:
            setattr(route, SHAPES, {**getattr(route, SHAPES, {}), **dict.fromkeys(codes, shape)})
        return route

    return mark


def pages(*statuses: int) -> Callable[[F], F]:
    """Route decorator: the statuses the route answers with an HTML page for people (a payer's
    page, a redirect) rather than JSON."""

    def mark(route: F) -> F:
        setattr(route, PAGES, (*getattr(route, PAGES, ()), *statuses))
        return route

    return mark


def filters(kind: str) -> Callable[[F], F]:
    """Route decorator: the route is the merchant's list `kind` (mzpay.cases.listings.KINDS),
    whose filters the generator documents as its query parameters."""

    def mark(route: F) -> F:
        setattr(route, FILTERS, kind)
        return route

    return mark


def marks_of(route: Any) -> dict[str, Any]:
    """The marks of a route's function (functools.wraps carries inner decorators' marks out)."""
    return {
        "errors": tuple(getattr(route, ERRORS, ())),
        "shapes": dict(getattr(route, SHAPES, {})),
        "pages": tuple(getattr(route, PAGES, ())),
        "scope": getattr(route, SCOPE, None),
        "idempotent": bool(getattr(route, IDEMPOTENT, False)),
        "idempotency_optional": getattr(route, IDEMPOTENT, False) == "optional",
        "filters": getattr(route, FILTERS, None),
    }
