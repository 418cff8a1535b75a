"""The operator console's pages: the request being served (`Visit`), its templates rendered in the
operator's language (mzpay.http.page_locale, templates/console/), the headers every page carries,
its cookies (all under the console's path), redirects after a post and the page of a refusal.

The console lives at /console of the management API: on the execute-api address that is
/<stage>/console, on a custom domain (mapped at its root) and on the local stack /console.
"""

from __future__ import annotations

import contextvars
import dataclasses
import secrets
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite
from pydantic import BaseModel, ValidationError

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators.console_sessions import SESSION_SECONDS, Session
from mzpay.http import page_locale
from mzpay.http.checkout_page import cookie, form
from mzpay.http.errors import Surface

CONSOLE = "/console"
SESSION_COOKIE = "mzpay_console"
CSRF_COOKIE = "mzpay_console_csrf"
HTML = "text/html; charset=utf-8"
MAX_QUERY = 512  # a query parameter or form field the console reads is at most this long
M = TypeVar("M", bound=BaseModel)
# What a post's redirect may announce on the page it leads to (?done=...): the template words them.
NOTICES = frozenset(
    {
        "account_suspended",
        "account_reactivated",
        "business_linked",
        "key_revoked",
        "limits_set",
        "payout_limits_set",
        "fee_set",
        "report_requested",
        "payout_approved",
        "payout_rejected",
        "batch_approved",
        "batch_rejected",
        "delivery_replayed",
        "case_resolved",
        "route_forced",
        "dispute_decided",
        "certification_started",
        "logo_reviewed",
        "application_approved",
        "application_rejected",
        "signed_out",
    }
)


@dataclass
class Visit:
    """One request to the console: its event, the operator's language, where the console lives
    (`base`: the path prefix before /console), the session (None before sign-in), the CSRF token
    its forms carry and the cookies the answer sets."""

    event: Any
    lang: str
    base: str
    session: Session | None = None
    csrf: str = ""
    cookies: list[Cookie] = dataclasses.field(default_factory=list)
    _fields: dict[str, str] | None = None

    @property
    def console(self) -> str:
        return f"{self.base}{CONSOLE}"

    @property
    def secure(self) -> bool:
        """Secure cookies everywhere but a plain-HTTP local stack on a loopback address."""
        host = (self.event.request_context.domain_name or "").split(":")[0]
        return host not in ("127.0.0.1", "localhost", "::1", "[::1]")

    def fields(self) -> dict[str, str]:
        """The form's fields (application/x-www-form-urlencoded)."""
        if self._fields is None:
            self._fields = form(self.event)
        return self._fields

    def cookie(self, name: str) -> str | None:
        return cookie(self.event, name)

    def set_cookie(self, name: str, value: str, max_age: int | None = None) -> None:
        self.cookies.append(
            Cookie(
                name,
                value,
                path=self.console,
                secure=self.secure,
                http_only=True,
                same_site=SameSite.STRICT_MODE,
                max_age=max_age,
            )
        )

    def set_session(self, value: str) -> None:
        self.set_cookie(SESSION_COOKIE, value, SESSION_SECONDS)

    def source_ip(self) -> str:
        return str(self.event.request_context.identity.source_ip or "")


_current: contextvars.ContextVar[Visit | None] = contextvars.ContextVar("mzpay_console_visit", default=None)


def begin(event: Any) -> Visit:
    """The visit of the request now served (the console's decorators call it first)."""
    context = event.request_context
    execute_api = (context.domain_name or "").endswith(".amazonaws.com")
    asked = (event.query_string_parameters or {}).get("lang")
    lang = page_locale.negotiate(asked, cookie(event, page_locale.LANG_COOKIE), event.headers.get("accept-language"))
    visit = Visit(event, lang, f"/{context.stage}" if execute_api else "")
    if asked in page_locale.LANGUAGES:  # the switch: later pages keep it
        visit.cookies.append(
            Cookie(
                page_locale.LANG_COOKIE,
                lang,
                path=visit.console,
                secure=visit.secure,
                http_only=True,
                same_site=SameSite.LAX_MODE,
                max_age=30 * 24 * 3600,
            )
        )
    _current.set(visit)
    return visit


def current() -> Visit:
    visit = _current.get()
    if visit is None:  # a route without the console's decorator: a bug, not the operator's fault
        raise RuntimeError("console route without its decorator")
    return visit


def page_headers(nonce: str, lang: str) -> dict[str, str]:
    """What every page for people carries (the console's, the dashboard's): no cache, no framing,
    no script, its nonce'd style only, posts to itself."""
    return {
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": (
            f"default-src 'none'; style-src 'nonce-{nonce}'; img-src data:; form-action 'self'; "
            "base-uri 'none'; frame-ancestors 'none'"
        ),
        "Content-Language": lang,
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Vary": "Accept-Language, Cookie",
    }


def show(template: str, http_status: int = 200, **context: Any) -> Response[str]:
    """The console page `template` (under templates/console/) with the visit's language, its
    CSRF token and the notice a redirect announced; its data-page is the template's name
    (psp_applications.html: psp-applications) unless the template names another."""
    from mzpay.domain.payments.rules import refund_state

    visit = current()
    nonce = secrets.token_urlsafe(16)
    asked = dict(visit.event.query_string_parameters or {})
    done = asked.get("done")
    kept = {k: v for k, v in asked.items() if k in ("mode", "status", "q")}
    body = page_locale.render(
        f"console/{template}",
        visit.lang,
        page=template.removesuffix(".html").replace("_", "-"),
        nonce=nonce,
        console=visit.console,
        path=f"{visit.base}{visit.event.path}",
        query_with=lambda **more: urlencode({**kept, **more}),
        operator=visit.session.operator if visit.session else None,
        csrf=visit.csrf,
        notice=done if done in NOTICES else None,
        refund_state=refund_state,
        **context,
    )
    return Response(http_status, HTML, body, headers=page_headers(nonce, visit.lang), cookies=visit.cookies or None)


def see_other(path: str, **query: str) -> Response[str]:
    """303 to a console page (`path` below /console): what every successful post answers."""
    visit = current()
    location = f"{visit.console}{path}" + (f"?{urlencode(query)}" if query else "")
    headers = {"Location": location, "Cache-Control": "no-store"}
    return Response(303, HTML, "", headers=headers, cookies=visit.cookies or None)


def download(link: str | None) -> Response[str]:
    """303 to a file's short-lived link (a report's presigned GET of the reports bucket): the
    browser fetches the file from the bucket itself. The link is a bearer credential for a few
    minutes: it is in this answer's Location only (no-store, no referrer), in no page, log or
    audit record. No link (the file is not written yet, or never will be) is 409."""
    if link is None:
        raise ServiceError(409, "report_not_ready", "The report has no file: it is still pending, or it failed.")
    visit = current()
    headers = {"Location": link, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return Response(303, HTML, "", headers=headers, cookies=visit.cookies or None)


ERROR_CODE_HEADER = "X-Error-Code"


def refused(error: ServiceError, back: str | None) -> Response[str]:
    """The page of a refusal: the use case's status, code and message (and the fields at fault),
    with a link back to where the operator was."""
    peer = error.headers.get("Service-Region-Url", "") if error.code == "wrong_region" else ""
    here = f"{CONSOLE}{back}" if back else current().event.path
    elsewhere = f"{peer.rstrip('/')}{here}" if peer else None  # the same page in the tenant's region
    response = show("refused.html", error.status, error=error, back=back, elsewhere=elsewhere)
    response.headers.update({k: v for k, v in error.headers.items() if k in ("Retry-After", "Service-Region")})
    response.headers[ERROR_CODE_HEADER] = error.code  # what the page says, for machines (the audit trail)
    return response


def fields_as(model: type[M], *names: str, per_currency: tuple[str, ...] = (), **extra: Any) -> M:
    """The form's fields `names` (blank ones left out) as `model`, the API's own body model;
    `per_currency`: fields the API takes as {currency: amount}, from the form's `currency` and
    that field. A field the model refuses is the API's 400 with the same codes and words."""
    sent = current().fields()
    values: dict[str, Any] = {name: sent[name] for name in names if sent.get(name, "").strip()}
    currency = sent.get("currency", "").strip().upper()
    for name in per_currency:
        if sent.get(name, "").strip():
            values[name] = {currency: sent[name].strip()}
    return validated(model, {**values, **extra})


def validated(model: type[M], values: dict[str, Any]) -> M:
    """`values` as `model` (a form's fields as the API's body model); a field the model refuses
    is the API's 400 with the same codes and words (the console's forms, the dashboard's)."""
    from mzpay.http.resolver import validation_error

    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise validation_error([dict(e) for e in exc.errors()], Surface.MANAGEMENT, model) from exc


def query(name: str) -> str | None:
    """The query parameter `name`, stripped (None when absent or blank; at most MAX_QUERY long)."""
    value = ((current().event.query_string_parameters or {}).get(name) or "").strip()
    if len(value) > MAX_QUERY:
        raise ServiceError(400, "invalid_request", f"{name}: at most {MAX_QUERY} characters.")
    return value or None


def one_of(name: str, allowed: tuple[str, ...]) -> str | None:
    """The query parameter `name` when it is one of `allowed` (None when absent); else 400."""
    value = query(name)
    if value is not None and value not in allowed:
        raise ServiceError(400, "invalid_request", f"{name}: one of {', '.join(allowed)}.")
    return value


def field(name: str) -> str:
    """The form's field `name`, stripped ("" when absent)."""
    return current().fields().get(name, "").strip()[:MAX_QUERY]


def source_ip() -> str:
    return current().source_ip()
