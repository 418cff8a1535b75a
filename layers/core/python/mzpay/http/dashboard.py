"""How a request to the merchant dashboard is served (docs/dashboard.md): its language, its
session (mzpay.dashboard.sign_in.current), the CSRF check of every post, the page rendered from
templates/dashboard/ with the headers every page carries, redirects and refusals as pages.

A route is one of:
- `@page(app)`: a page of a signed-in user (GET); without a session, 303 to the sign-in page;
- `@action(app)`: a form post of a signed-in user (CSRF: the session's token); without a session,
  the sign-in page with 401 `unauthorized` and nothing done;
- `@pending(app, posting)`: the TOTP code or setup step of a sign-in in progress;
- `@public(app, posting)`: the sign-in page and its post (CSRF: a double-submit cookie).
A refusal (ServiceError) re-renders the route's form (`form=`), or the refusal page, with the
refusal's code in X-Error-Code (the audit trail's outcome) and its words in the page's language.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard import sessions as rules
from mzpay.domain.dashboard.sessions import Session
from mzpay.http import page_locale
from mzpay.http.checkout_page import cookie, form
from mzpay.http.console_pages import page_headers
from mzpay.http.errors import Surface
from mzpay.http.resolver import unexpected_error

F = TypeVar("F", bound=Callable[..., Any])
CurrentSession = Callable[[str | None], Session | None]
FormContext = Callable[["Visit"], dict[str, Any]]
HTML = "text/html; charset=utf-8"
FORM_CSRF_COOKIE = "__Host-mzpay_dashboard_csrf"  # the sign-in form's double-submit token
LANG_COOKIE = "__Host-mzpay_dashboard_lang"
ERROR_CODE_HEADER = "X-Error-Code"
MAX_FIELD = 512


@dataclass
class Visit:
    """One request: its event, language, base path (/<stage> on execute-api), session, the CSRF
    token its forms carry and the cookies the answer sets."""

    event: Any
    lang: str
    base: str
    session: Session | None = None
    csrf: str = ""
    cookies: list[Cookie] = dataclasses.field(default_factory=list)
    _fields: dict[str, str] | None = None

    def fields(self) -> dict[str, str]:
        if self._fields is None:
            self._fields = form(self.event)
        return self._fields

    def field(self, name: str) -> str:
        return self.fields().get(name, "")[:MAX_FIELD]

    def set_cookie(self, name: str, value: str, max_age: int | None) -> None:
        """A `__Host-` cookie: Secure, HttpOnly, SameSite=Strict, Path=/, no Domain."""
        self.cookies.append(
            Cookie(name, value, path="/", secure=True, http_only=True, same_site=SameSite.STRICT_MODE, max_age=max_age)
        )

    def query(self, name: str) -> str:
        return str((self.event.query_string_parameters or {}).get(name, ""))[:MAX_FIELD]

    def session_id(self) -> str | None:
        return cookie(self.event, rules.COOKIE)

    def source_ip(self) -> str:
        return str(self.event.request_context.identity.source_ip or "")


_sessions: list[CurrentSession] = []
_identify: list[Callable[[str, str, str], None]] = []
_admit: list[Callable[[Session, str], None]] = []


def identify_with(identify: Callable[[str, str, str], None]) -> None:
    """Name who acts for the audit trail (the function wires mzpay.steps.audit.identify): a post
    without a session is `anonymous`, not the management API's operator."""
    _identify[:] = [identify]


def sessions_from(current_session: CurrentSession) -> None:
    """How a cookie's id becomes the session it names (the function wires
    mzpay.dashboard.sign_in.current: the use case that holds the rules and the store)."""
    _sessions[:] = [current_session]


def admits_with(admit: Callable[[Session, str], None]) -> None:
    """How a session's request is checked against its account's dashboard IP allowlist (the
    function wires mzpay.dashboard.settings.admit: a refusal raises 403 `ip_not_allowed`)."""
    _admit[:] = [admit]


_current: contextvars.ContextVar[Visit | None] = contextvars.ContextVar("mzpay_dashboard_visit", default=None)


def current() -> Visit:
    visit = _current.get()
    if visit is None:
        raise RuntimeError("dashboard route without its decorator")
    return visit


def begin(event: Any) -> Visit:
    context = event.request_context
    execute_api = (context.domain_name or "").endswith(".amazonaws.com")
    asked = (event.query_string_parameters or {}).get("lang")
    lang = page_locale.negotiate(asked, cookie(event, LANG_COOKIE), event.headers.get("accept-language"))
    visit = Visit(event, lang, f"/{context.stage}" if execute_api else "")
    if asked in page_locale.LANGUAGES:  # the switch: later pages keep it
        visit.set_cookie(LANG_COOKIE, lang, 365 * 24 * 3600)
    _current.set(visit)
    return visit


def show(template: str, http_status: int = 200, error: ServiceError | None = None, **context: Any) -> Response[str]:
    """The page `template` (templates/dashboard/) in the visit's language; `error`: a refusal it
    announces (its code in X-Error-Code)."""
    visit = current()
    nonce = secrets.token_urlsafe(16)
    body = page_locale.render(
        f"dashboard/{template}",
        visit.lang,
        page=template.removesuffix(".html").replace("_", "-"),
        nonce=nonce,
        base=visit.base,
        path=f"{visit.base}{visit.event.path}",
        session=visit.session if visit.session and visit.session.signed_in else None,
        csrf=visit.csrf,
        allows=roles.allows,  # what the navigation offers the session's role
        error=error,
        **context,
    )
    answer = Response(http_status, HTML, body, headers=page_headers(nonce, visit.lang), cookies=visit.cookies or None)
    if error is not None:
        answer.headers[ERROR_CODE_HEADER] = error.code
        answer.headers.update({k: v for k, v in error.headers.items() if k == "Retry-After"})
    return answer


def see_other(path: str) -> Response[str]:
    visit = current()
    return Response(
        303,
        HTML,
        "",
        headers={"Location": f"{visit.base}{path}", "Cache-Control": "no-store"},
        cookies=visit.cookies or None,
    )


def open_session(session_id: str, session: Session) -> None:
    """The answer sets the session's cookie (until its absolute end: the record decides sooner)."""
    visit = current()
    visit.session = session
    visit.csrf = session.csrf
    visit.set_cookie(rules.COOKIE, session_id, rules.ABSOLUTE_SECONDS)


def close_session() -> None:
    visit = current()
    visit.session = None
    visit.set_cookie(rules.COOKIE, "", 0)


def _form_csrf(visit: Visit) -> str:
    held = cookie(visit.event, FORM_CSRF_COOKIE)
    if held and 20 <= len(held) <= 100:
        return held
    token = secrets.token_urlsafe(32)
    visit.set_cookie(FORM_CSRF_COOKIE, token, None)
    return token


def _check_csrf(visit: Visit, expected: str | None) -> None:
    """The form's token is the session's (or, before sign-in, the form cookie's)."""
    presented = visit.fields().get("csrf_token", "")
    if not expected or not presented or not hmac.compare_digest(expected.encode(), presented.encode()):
        raise ServiceError(403, "csrf_invalid", "This form is no longer valid: nothing was changed.")


def _served(
    app: Any, route: F, kind: str, posting: bool, form_page: str | None, context: FormContext | None = None
) -> F:
    @functools.wraps(route)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        visit = begin(app.current_event)
        try:
            if kind == "public":
                if posting:
                    _check_csrf(visit, cookie(visit.event, FORM_CSRF_COOKIE))
                visit.csrf = _form_csrf(visit)
            else:
                visit.session = _sessions[0](visit.session_id())
                wanted = visit.session is not None and (visit.session.signed_in == (kind == "signed_in"))
                if not wanted:
                    visit.session = None
                    if posting:  # refused, and recorded so: not the action's success
                        for identify in _identify:
                            identify("anonymous", "anonymous", visit.source_ip())
                        raise ServiceError(401, "unauthorized", "Your session has ended: sign in again.")
                    return see_other("/sign-in")
                assert visit.session is not None
                visit.csrf = visit.session.csrf
                if posting:  # the user acts (refused ones too): the audit trail names it
                    for identify in _identify:
                        identify("merchant_user", visit.session.email, visit.source_ip())
                for admit in _admit:
                    admit(visit.session, visit.source_ip())
                if posting:
                    _check_csrf(visit, visit.session.csrf)
            return route(*args, **kwargs)
        except ServiceError as refusal:
            error = refusal
        except Exception as exc:  # a fault: 503 + Retry-After (or 500), as a page
            error = unexpected_error(exc, Surface.MANAGEMENT)
        if error.code == "unauthorized" or (visit.session is None and kind != "public"):
            visit.csrf = _form_csrf(visit)
            return show("sign_in.html", error.status, error=error)
        if kind == "public" and not visit.csrf:  # refused before its token was issued: the form gets one
            visit.csrf = _form_csrf(visit)
        if form_page is not None:
            return show(form_page, error.status, error=error, **(context or form_context)(visit))
        return show("refused.html", error.status, error=error)

    return wrapper  # type: ignore[return-value]


def answers_unknown_paths(app: Any) -> None:
    """An unknown path (or method) is the dashboard's 404 page for a signed-in user and the
    sign-in page (303) for anyone else; never JSON."""

    def unknown() -> Response[str]:
        raise ServiceError(404, "not_found", f"No dashboard page at {app.current_event.path}.")

    served = _served(app, unknown, "signed_in", posting=False, form_page=None)
    app.not_found(lambda _exc: served())


_forms: dict[str, tuple[str, FormContext]] = {}  # a form's path -> its page and what re-renders it


def answers_refusals(app: Any) -> None:
    """A request refused before any route runs (a form holding a card number, bytes no route could
    read: mzpay.http.resolver) is a dashboard page too, never JSON: the form posted, re-rendered
    with the refusal (`re_renders`), else the refusal page; the sign-in page without a session."""
    app.mzpay_refusal_page = _refusal_page


def re_renders(path: str, form_page: str, context: FormContext) -> None:
    """The form at `path` is `form_page` again, with what `context` gives it, when its post is
    refused before its route."""
    _forms[path] = (form_page, context)


def _refusal_page(event: dict[str, Any], error: ServiceError) -> dict[str, Any]:
    from aws_lambda_powertools.event_handler.api_gateway import ResponseBuilder
    from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

    proxy = APIGatewayProxyEvent(event)
    visit = begin(proxy)
    visit.session = _sessions[0](visit.session_id()) if _sessions else None
    if visit.session is None or not visit.session.signed_in:
        visit.session = None
        visit.csrf = _form_csrf(visit)
        answer = show("sign_in.html", error.status, error=error)
    else:
        visit.csrf = visit.session.csrf
        form_page, context = _forms.get(proxy.path, ("refused.html", lambda _visit: {}))
        answer = show(form_page, error.status, error=error, **context(visit))
    builder: ResponseBuilder[APIGatewayProxyEvent] = ResponseBuilder(answer)
    return builder.build(proxy)


def form_context(visit: Visit) -> dict[str, Any]:
    """What a re-rendered sign-in step shows: the TOTP secret being set up."""
    secret = visit.session.secret if visit.session is not None else ""
    return {"secret": secret, "email": visit.session.email if visit.session else ""}


def page(app: Any) -> Callable[[F], F]:
    return lambda route: _served(app, route, "signed_in", posting=False, form_page=None)


def action(app: Any, form_page: str | None = None, context: FormContext | None = None) -> Callable[[F], F]:
    """`form_page`: the page a refusal re-renders, with what `context` gives it (the visit's
    typed fields, say)."""
    return lambda route: _served(app, route, "signed_in", posting=True, form_page=form_page, context=context)


def pending(app: Any, posting: bool = False, form_page: str | None = None) -> Callable[[F], F]:
    return lambda route: _served(app, route, "pending", posting=posting, form_page=form_page)


def public(app: Any, posting: bool = False, form_page: str | None = None) -> Callable[[F], F]:
    return lambda route: _served(app, route, "public", posting=posting, form_page=form_page)
