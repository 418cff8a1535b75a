"""How a request to the merchant dashboard is served (docs/dashboard.md): its language, its
session (mzpay.dashboard.sign_in.current), the CSRF check of every post, the page rendered from
templates/dashboard/ with the headers every page carries, redirects and refusals as pages.

A route is one of:
- `@page(app)`: a page of a signed-in user (GET); without a session, 303 to the sign-in page;
- `@action(app)`: a form post of a signed-in user (CSRF: the session's token); without a session,
  the sign-in page with 401 `unauthorized` and nothing done; in live mode, the form's
  `confirm_live` box ticked, else 400 `live_unconfirmed` and nothing done (`live=False`: the mode
  switch and sign-out); `form_page=` and `context=` re-render the form a refusal came from;
- `@pending(app, posting)`: the TOTP code or setup step of a sign-in in progress;
- `@public(app, posting)`: the sign-in page and its post (CSRF: a double-submit cookie).
A refusal (ServiceError) re-renders the route's form (`form_page=`, or `again(error, **path)`: the page
a signed-in user's form was on), or the refusal page, with the refusal's code in X-Error-Code (the
audit trail's outcome) and its words in the page's language. A form the service refuses before any
route runs (a card number in it: mzpay.http.card_screen) is answered the same way, by its route,
which sees none of its fields but the CSRF token (`answers_refusals`).
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

from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard import sessions as rules
from mzpay.domain.dashboard.sessions import Session
from mzpay.http import page_locale
from mzpay.http.body import content_type, raw_body
from mzpay.http.checkout_page import cookie, form
from mzpay.http.console_pages import page_headers
from mzpay.http.errors import Surface
from mzpay.http.resolver import unexpected_error

F = TypeVar("F", bound=Callable[..., Any])
Again = Callable[..., Response[str]]  # (error, the route's path parameters) -> the form's page again
CurrentSession = Callable[[str | None], Session | None]
HTML = "text/html; charset=utf-8"
FORM_CSRF_COOKIE = "__Host-mzpay_dashboard_csrf"  # the sign-in form's double-submit token
LANG_COOKIE = "__Host-mzpay_dashboard_lang"
ERROR_CODE_HEADER = "X-Error-Code"
MAX_FIELD = 512
CONFIRM_LIVE = "confirm_live"  # the box a live-mode form shows: "yes" when ticked
REFUSED_BEFORE_ROUTE = "mzpay_dashboard_refused"  # the event's member naming a refusal made before the route
FormContext = Callable[..., dict[str, Any]]
MAX_TEXT_PART = 80_000  # a multipart form's text part, in bytes (20000 characters of UTF-8: evidence)


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
    _files: dict[str, tuple[str, bytes]] | None = None

    def fields(self) -> dict[str, str]:
        """The form's fields: a urlencoded form's, or the text parts of a multipart one."""
        if self._fields is None:
            media = content_type(self.event.raw_event)
            if media.lower().startswith("multipart/form-data"):
                from mzpay.domain.common.files import form_parts  # the evidence form's: not sign-in's

                self._fields = {}  # a form that cannot be read is refused with nothing of it shown again
                parts = form_parts(raw_body(self.event.raw_event), media, MAX_TEXT_PART)
                self._fields = parts.fields
                self._files = {name: (parts.filenames[name], parts.files[name]) for name in parts.files}
            else:
                self._fields = form(self.event)
        return self._fields

    def files(self) -> dict[str, tuple[str, bytes]]:
        """A multipart form's files by field name: (the file's name, its bytes); empty ones left out."""
        self.fields()
        return {name: sent for name, sent in (self._files or {}).items() if sent[1]}

    def field(self, name: str) -> str:
        return self.fields().get(name, "")[:MAX_FIELD]

    def query(self, name: str) -> str:
        """A query parameter of the page's address (a list's filter or page token), bounded."""
        return str((self.event.query_string_parameters or {}).get(name) or "")[:MAX_FIELD]

    def set_cookie(self, name: str, value: str, max_age: int | None) -> None:
        """A `__Host-` cookie: Secure, HttpOnly, SameSite=Strict, Path=/, no Domain."""
        self.cookies.append(
            Cookie(name, value, path="/", secure=True, http_only=True, same_site=SameSite.STRICT_MODE, max_age=max_age)
        )

    def session_id(self) -> str | None:
        return cookie(self.event, rules.COOKIE)

    def source_ip(self) -> str:
        return str(self.event.request_context.identity.source_ip or "")


_sessions: list[CurrentSession] = []
_identify: list[Callable[[str, str, str], None]] = []
_concerns: list[Callable[[str], None]] = []
_admit: list[Callable[[Session, str], None]] = []


def identify_with(identify: Callable[[str, str, str], None], concerns: Callable[[str], None] | None = None) -> None:
    """Name who acts for the audit trail (the function wires mzpay.steps.audit.identify): a post
    without a session is `anonymous`, not the management API's operator; a signed-in user's post
    is its `merchant_user`, concerning its account (`concerns`: mzpay.steps.audit.concerns)."""
    _identify[:] = [identify]
    _concerns[:] = [concerns] if concerns else []


def sessions_from(current_session: CurrentSession) -> None:
    """How a cookie's id becomes the session it names (the function wires
    mzpay.dashboard.sign_in.current: the use case that holds the rules and the store)."""
    _sessions[:] = [current_session]


def admits_with(admit: Callable[[Session, str], None]) -> None:
    """How a session's request is checked against its account's dashboard IP allowlist (the
    function wires mzpay.dashboard.settings.admit: a refusal raises 403 `ip_not_allowed`)."""
    _admit[:] = [admit]


_current: contextvars.ContextVar[Visit | None] = contextvars.ContextVar("mzpay_dashboard_visit", default=None)


_page_context: list[Callable[[Session], dict[str, Any]]] = []


def page_context_from(context: Callable[[Session], dict[str, Any]]) -> None:
    """What every page of a signed-in user is rendered with besides its own (the navigation's
    switches: the collection pages of an account that collects for a business)."""
    _page_context[:] = [context]


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
    signed_in = visit.session if visit.session and visit.session.signed_in else None
    if signed_in is not None:
        for extra in _page_context:
            context = {**extra(signed_in), **context}
    body = page_locale.render(
        f"dashboard/{template}",
        visit.lang,
        page=template.removesuffix(".html").replace("_", "-"),
        nonce=nonce,
        base=visit.base,
        path=f"{visit.base}{visit.event.path}",
        session=signed_in,
        csrf=visit.csrf,
        allows=roles.allows,  # what the navigation offers the session's role
        error=error,
        may=functools.partial(roles.allows, signed_in.role if signed_in else ""),  # what the role may open
        **{"sent": {}, **context},  # sent: a refused form's fields, shown again
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


def _check_live(visit: Visit) -> None:
    """A form posted in live mode acts on real money: its `confirm_live` box must be ticked."""
    assert visit.session is not None
    if visit.session.mode == "live" and visit.fields().get(CONFIRM_LIVE) != "yes":
        error = FieldError(CONFIRM_LIVE, "required", "confirm that this acts on live data")
        raise ServiceError(
            400, "live_unconfirmed", "Live mode: tick the confirmation to act. Nothing was done.", errors=[error]
        )


@dataclass(frozen=True)
class _Served:
    kind: str
    posting: bool = False
    form_page: str | None = None
    context: FormContext | None = None  # what the form page shows, from the route's path parameters
    live: bool = False  # a post in live mode needs its confirmation
    again: Again | None = None  # (error, **path parameters) -> the page the form was on, again


def _for_pages(refusal: ServiceError) -> ServiceError:
    """The other mode's object is no object on these pages: 404, as another account's (the API's
    401 `wrong_environment` speaks of keys)."""
    return ServiceError(404, "not_found", "No such page.") if refusal.code == "wrong_environment" else refusal


def _refusal(visit: Visit, how: _Served, error: ServiceError, params: dict[str, Any]) -> Response[str]:
    """The form `how` names re-rendered with `error` (and the session's CSRF token), or the
    refusal page; its context's own refusal (another account's object: 404) is the page's."""
    if how.again is not None and error.status < 500 and error.code not in ("forbidden", "not_found"):
        try:
            return how.again(error, **params)
        except ServiceError:  # the form's page itself refused: the refusal page says the first
            return show("refused.html", error.status, error=error)
    if how.form_page is None:
        return show("refused.html", error.status, error=error)
    if how.context is None:
        return show(how.form_page, error.status, error=error, **form_context(visit))
    try:
        assert visit.session is not None
        shown = how.context(visit.session, **params)
    except ServiceError as refusal:
        shown_error = _for_pages(refusal)
        return show("refused.html", shown_error.status, error=shown_error)
    return show(how.form_page, error.status, error=error, sent=visit.fields(), **shown)


def _served(app: Any, route: F, how: _Served) -> F:
    kind, posting = how.kind, how.posting

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
                if posting and visit.session.signed_in:  # the audit trail names the user, refused or not
                    for identify in _identify:
                        identify("merchant_user", visit.session.email, visit.source_ip())
                    for concerns in _concerns:
                        concerns(visit.session.account_id)
                for admit in _admit:  # the account's own rules of who may come in (its IP allowlist)
                    admit(visit.session, visit.source_ip())
                if posting:
                    _check_csrf(visit, visit.session.csrf)
            refused = visit.event.raw_event.get(REFUSED_BEFORE_ROUTE)
            if isinstance(refused, ServiceError):  # refused before the route (answers_refusals)
                raise refused
            if how.live:
                _check_live(visit)
            return route(*args, **kwargs)
        except ServiceError as refusal:
            error = _for_pages(refusal)
        except Exception as exc:  # a fault: 503 + Retry-After (or 500), as a page
            error = unexpected_error(exc, Surface.MANAGEMENT)
        if error.code == "unauthorized" or (visit.session is None and kind != "public"):
            visit.csrf = _form_csrf(visit)
            return show("sign_in.html", error.status, error=error)
        if kind == "public" and not visit.csrf:  # refused before its token was issued: the form gets one
            visit.csrf = _form_csrf(visit)
        return _refusal(visit, how, error, kwargs)

    return wrapper  # type: ignore[return-value]


def answers_unknown_paths(app: Any) -> None:
    """An unknown path (or method) is the dashboard's 404 page for a signed-in user and the
    sign-in page (303) for anyone else; never JSON."""

    def unknown() -> Response[str]:
        raise ServiceError(404, "not_found", f"No dashboard page at {app.current_event.path}.")

    served = _served(app, unknown, _Served("signed_in"))
    app.not_found(lambda _exc: served())


def form_context(visit: Visit) -> dict[str, Any]:
    """What a re-rendered sign-in step shows: the TOTP secret being set up."""
    secret = visit.session.secret if visit.session is not None else ""
    return {"secret": secret, "email": visit.session.email if visit.session else ""}


def page(app: Any) -> Callable[[F], F]:
    return lambda route: _served(app, route, _Served("signed_in"))


def action(
    app: Any,
    form_page: str | None = None,
    context: FormContext | None = None,
    again: Again | None = None,
    live: bool = True,
) -> Callable[[F], F]:
    """A signed-in user's form post. A refusal re-renders the page the form was on: `again(error,
    **path parameters)`, or `form_page` with `context(session, **path parameters)`; a refusal of
    the role or of the object (or with neither) is the refusal page. `live`: in live mode the
    form's `confirm_live` box must be ticked (every action but the mode switch and sign-out)."""
    return lambda route: _served(app, route, _Served("signed_in", True, form_page, context, live, again))


def pending(app: Any, posting: bool = False, form_page: str | None = None) -> Callable[[F], F]:
    return lambda route: _served(app, route, _Served("pending", posting, form_page))


def public(app: Any, posting: bool = False, form_page: str | None = None) -> Callable[[F], F]:
    return lambda route: _served(app, route, _Served("public", posting, form_page))
