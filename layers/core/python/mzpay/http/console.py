"""Who may use the operator console and how a request to it is served (docs/console.md).

The console's routes have no API Gateway authorizer (a browser sends no Authorization header):
this module does the management API's checks itself. Every request must come from an address
of the operators' allowlist (OPERATOR_IP_ALLOWLIST, as the authorizer; else 403
`ip_not_allowed`); every page but sign-in needs the session cookie a sign-in with an operator's
token issued, whose record the service still holds and which was used in the last 30 minutes
(mzpay.domain.operators.console_sessions; else a page is 303 to the sign-in page and a post is the sign-in
page with 401 `unauthorized`: nothing runs, and the audit trail records the refusal); every post
needs the CSRF cookie and the same token in the form, issued by the service for the session (403
`csrf_missing` / `csrf_invalid`).

A route is one of:
- `@page(app)`: a page an operator reads (GET);
- `@action(app, back=...)`: a form post that changes state; it answers 303 to a page
  (post/redirect/get), or the refusal's page (the use case's status, code and message) with a
  link to `back` (a path below /console, formatted with the route's parameters);
- `@public(app)`: the sign-in page and its post (allowlist and CSRF only).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import Response

from mzpay import deps
from mzpay.config import settings
from mzpay.deps import once
from mzpay.domain.common import clock
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.network import IpNetwork, ip_allowed, parse_allowlist
from mzpay.domain.operators import console_sessions as rules
from mzpay.domain.operators.credentials import operator_named
from mzpay.http import console_pages as pages
from mzpay.http.errors import Surface
from mzpay.http.resolver import unexpected_error

F = TypeVar("F", bound=Callable[..., Any])
Identify = Callable[[str, str, str], None]
SIGN_IN = "/sign-in"
MAX_TOKEN = 512  # an operator token longer than this is not one


_identify: list[Identify] = []


def identify_with(identify: Identify) -> None:
    """Name the operator of each signed-in request with `identify(actor_kind, actor_id, source_ip)`
    (the function wires mzpay.steps.audit.identify: the audit trail says who acted)."""
    _identify[:] = [identify]


def _identified(name: str, visit: pages.Visit) -> None:
    for identify in _identify:
        identify("operator", name, visit.source_ip())


@once
def _allowlist() -> tuple[IpNetwork, ...]:
    return parse_allowlist(settings().operator_ip_allowlist)


def _operator_secret() -> str:
    from mzpay.store.secrets import operator_token

    return operator_token()


def _key() -> bytes:
    return rules.session_key(_operator_secret())


def _now() -> int:
    return int(clock.now().timestamp())


def _session(visit: pages.Visit, key: bytes) -> rules.Session | None:
    """The visit's session: its cookie signed by the service and unexpired, its record held (not
    signed out) and used within the idle limit; a use is recorded (at most once a minute)."""
    now = _now()
    session = rules.opened(key, visit.cookie(pages.SESSION_COOKIE), now)
    if session is None:
        return None
    store = deps.console_sessions()
    last_used = store.last_used(session)
    if last_used is None:
        return None
    if rules.idle(last_used, now):
        store.end(session.session_id)
        return None
    if rules.needs_touch(last_used, now) and not store.touch(session, now):
        return None
    return session


def _admit(visit: pages.Visit) -> None:
    allowlist = _allowlist()
    if allowlist and not ip_allowed(visit.source_ip(), allowlist):
        raise ServiceError(403, "ip_not_allowed", "The source address is not in the management allowlist.")


def _issue_csrf(visit: pages.Visit, key: bytes, binding: str) -> None:
    """The token the visit's forms carry: the one the browser holds when the service issued it for
    `binding` (so several tabs keep working), else a fresh one set in the cookie."""
    held = visit.cookie(pages.CSRF_COOKIE)
    try:
        rules.check_csrf(key, binding, held, held)
        visit.csrf = str(held)
    except ServiceError:
        visit.csrf = rules.csrf_token(key, binding)
        visit.set_cookie(pages.CSRF_COOKIE, visit.csrf)


def _check_csrf(visit: pages.Visit, key: bytes, binding: str) -> None:
    rules.check_csrf(key, binding, visit.cookie(pages.CSRF_COOKIE), visit.fields().get("csrf_token"))


def _served(app: Any, route: F, posting: bool, signed_in: bool, back: str | None) -> F:
    @functools.wraps(route)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        visit = pages.begin(app.current_event)
        back_to = back.format(**kwargs) if back else None
        try:
            _admit(visit)
            key = _key()
            if signed_in:
                visit.session = _session(visit, key)
                if visit.session is None and posting:  # refused, and recorded so: not the action's success
                    raise ServiceError(401, "unauthorized", "No console session: sign in again.")
                if visit.session is None:
                    return pages.see_other(SIGN_IN)
                _identified(visit.session.operator, visit)
            binding = visit.session.session_id if visit.session else rules.SIGN_IN_BINDING
            _issue_csrf(visit, key, binding)  # first: a refused post's page still signs out
            if posting:
                _check_csrf(visit, key, binding)
            return route(*args, **kwargs)
        except ServiceError as refusal:
            error = refusal
        except Exception as exc:  # a fault: 503 + Retry-After (or 500), as a page
            error = unexpected_error(exc, Surface.MANAGEMENT)
        if error.status == 401 and visit.session is None:
            return _signed_out(visit, error)
        return pages.refused(error, back_to if visit.session else None)

    return wrapper  # type: ignore[return-value]


def page(app: Any) -> Callable[[F], F]:
    """Route decorator: a console page (GET) for a signed-in operator."""
    return lambda route: _served(app, route, posting=False, signed_in=True, back=None)


def action(app: Any, back: str) -> Callable[[F], F]:
    """Route decorator: a console form post (CSRF-checked) by a signed-in operator; a refusal's
    page links to `back`."""
    return lambda route: _served(app, route, posting=True, signed_in=True, back=back)


def public(app: Any, posting: bool = False) -> Callable[[F], F]:
    """Route decorator: the sign-in page (GET) or its post (`posting`: CSRF-checked)."""
    return lambda route: _served(app, route, posting=posting, signed_in=False, back=None)


def answers_unknown_paths(app: Any) -> None:
    """An unknown path (or method) under /console is the console's 404 page for a signed-in
    operator (with its navigation), and the sign-in page for anyone else; never JSON."""

    def unknown() -> Response[str]:
        raise ServiceError(404, "not_found", f"No console page at {app.current_event.path}.")

    served = _served(app, unknown, posting=False, signed_in=True, back=None)
    app.not_found(lambda _exc: served())


def answers_refusals(app: Any) -> None:
    """A request the service refuses before any route runs (a form holding a card number, bytes
    no route could read) is the console's refusal page too, never JSON (mzpay.http.resolver)."""
    app.mzpay_refusal_page = _refusal_page


def _refusal_page(event: dict[str, Any], error: ServiceError) -> dict[str, Any]:
    from aws_lambda_powertools.event_handler.api_gateway import ResponseBuilder
    from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

    proxy = APIGatewayProxyEvent(event)
    pages.begin(proxy)
    builder: ResponseBuilder[APIGatewayProxyEvent] = ResponseBuilder(pages.refused(error, None))
    return builder.build(proxy)


def _signed_out(visit: pages.Visit, error: ServiceError) -> Response[str]:
    """A post without a session: the sign-in form (401) with a fresh sign-in CSRF token, and the
    refusal's code for the audit trail."""
    _issue_csrf(visit, _key(), rules.SIGN_IN_BINDING)
    response = sign_in_form(401, expired=True)
    response.headers[pages.ERROR_CODE_HEADER] = error.code
    return response


def sign_in_form(status: int = 200, failed: bool = False, expired: bool = False) -> Response[str]:
    return pages.show("sign_in.html", status, failed=failed, expired=expired)


def sign_in() -> Response[str]:
    """The sign-in form's post: an operator's token opens a session (8 h, 30 min idle) held by the
    service and named in the session cookie, and a CSRF token bound to it; anything else is the
    form again with 401."""
    visit = pages.current()
    presented = visit.fields().get("token", "").strip()
    name = operator_named(_operator_secret(), presented) if 0 < len(presented) <= MAX_TOKEN else None
    if name is None:
        return sign_in_form(401, failed=True)
    key = _key()
    session = rules.new_session(name, _now())
    deps.console_sessions().open(session)
    visit.set_session(rules.seal(key, session))
    visit.csrf = rules.csrf_token(key, session.session_id)
    visit.set_cookie(pages.CSRF_COOKIE, visit.csrf)
    _identified(name, visit)
    return pages.see_other("/accounts")


def sign_out() -> Response[str]:
    """The session ended where the service holds it (its cookie is worthless from now on, even
    a copy), its cookies cleared; the sign-in page next."""
    visit = pages.current()
    if visit.session is not None:
        deps.console_sessions().end(visit.session.session_id)
    visit.cookies.clear()
    visit.set_cookie(pages.SESSION_COOKIE, "", 0)
    visit.set_cookie(pages.CSRF_COOKIE, "", 0)
    return pages.see_other(SIGN_IN, done="signed_out")
