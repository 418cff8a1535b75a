"""The hosted checkout page: what the payer sees at checkout_url, its form posts, and the pages
a payer gets when something is wrong (an unknown link, a stale form, a paid or expired checkout,
a service fault), in Portuguese or English (mzpay.http.page_locale), never JSON.

State-changing posts need the CSRF cookie set with the page and the same token in the form
(double submit): without either, 403 csrf_missing; when they differ, 403 csrf_invalid. A post
that changed the payment answers 303 See Other to the page (post/redirect/get), so reloading
the outcome never posts again; a refused one shows the form again with the payer's words.
"""

from __future__ import annotations

import functools
import hmac
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from mzpay.config import optional_env
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.payments.charges import RAW_CARD_DATA, phone_fault
from mzpay.domain.payments.checkout_offer import TEST_CARD_HINT, PayerChoice
from mzpay.domain.payments.methods import NETWORK_NAMES, NETWORK_PREFIXES
from mzpay.http import page_locale
from mzpay.http.errors import Surface
from mzpay.http.resolver import unexpected_error

if TYPE_CHECKING:
    from mzpay.domain.payments.rules import Payment

CSRF_COOKIE = "mzpay_csrf"
HTML = "text/html; charset=utf-8"
F = TypeVar("F", bound=Callable[..., Any])


def public_base_url(event: Any) -> str:
    """The gateway's public address: PUBLIC_GATEWAY_URL, else the execute-api one of the request."""
    configured = optional_env("PUBLIC_GATEWAY_URL")
    if configured:
        return configured.rstrip("/")
    context = event.request_context
    return f"https://{context.domain_name}/{context.stage}"


def form(event: Any) -> dict[str, str]:
    fields = parse_qs(event.decoded_body or "", keep_blank_values=True)
    return {name: values[-1] for name, values in fields.items()}


def check_csrf(event: Any, fields: dict[str, str]) -> None:
    held = cookie(event, CSRF_COOKIE)
    token = fields.get("csrf_token", "")
    if not held or not token:
        raise ServiceError(403, "csrf_missing", "The form needs its CSRF cookie and token; reload the page.")
    if not hmac.compare_digest(held.encode(), token.encode()):
        raise ServiceError(403, "csrf_invalid", "The form's CSRF token does not match its cookie; reload the page.")


def cookie(event: Any, name: str) -> str | None:
    """The request's cookie `name`, None when it sent none."""
    for header in event.multi_value_headers.get("Cookie") or event.multi_value_headers.get("cookie") or []:
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
    return None


def language(event: Any) -> str:
    """The page's language for this request (the switch, its cookie, Accept-Language)."""
    asked = (event.query_string_parameters or {}).get("lang")
    return page_locale.negotiate(asked, cookie(event, page_locale.LANG_COOKIE), event.headers.get("accept-language"))


def page(
    view: Any,
    event: Any,
    status_code: int = 200,
    refused: ServiceError | None = None,
    choice: PayerChoice | None = None,
) -> Response[str]:
    """The page for the checkout's state (`view`: mzpay.cases.checkout.CheckoutView), with a
    fresh CSRF token when the payer can still act; `refused` and `choice` put what the payer
    sent back on the form with why it was refused."""
    payment: Payment = view.payment
    lang = language(event)
    token = secrets.token_urlsafe(24)
    nonce = secrets.token_urlsafe(16)
    notice = _notice(refused, choice) if refused is not None else None
    body = page_locale.render(
        "checkout.html",
        lang,
        nonce=nonce,
        payment=payment,
        merchant=view.merchant,
        offers=view.offers,
        wallets=[offer for offer in view.offers if offer.method == "mobile_wallet"],
        methods=[offer.method for offer in view.offers if offer.method != "mobile_wallet"],
        network_names=NETWORK_NAMES,
        url=payment.checkout_url or "",
        token=token,
        notice=notice,
        choice=choice,
        qr=_qr(payment.next_action),
        test_card=TEST_CARD_HINT,
        brand=view.brand,
    )
    acting = payment.status in ("requires_payment_method", "requires_action")
    cookies = [_csrf_cookie(payment.checkout_url or "", token)] if acting else []
    return html_response(status_code, body, nonce, lang, event, payment.checkout_url or "", cookies)


def problem_page(error: ServiceError, event: Any, checkout_url: str | None = None) -> Response[str]:
    """The payer's page for a refusal that has no checkout page to show (an unknown link, a
    stale form, a fault): the status and code of the API's answer, in words for people."""
    lang = language(event)
    nonce = secrets.token_urlsafe(16)
    body = page_locale.render("problem.html", lang, nonce=nonce, error=error, url=checkout_url or "")
    response = html_response(error.status, body, nonce, lang, event, checkout_url or "")
    response.headers.update({k: v for k, v in error.headers.items() if k == "Retry-After"})
    return response


# What an answer without a page (a redirect) still says: not to be framed or sniffed.
REDIRECT_GUARD = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def see_other(payment: Payment, event: Any, onward: bool = True) -> Response[str]:
    """303 to the checkout's page: the outcome of a post is read with a GET; or, `onward`, for a
    live payment its provider finishes on its own page (an aggregator's checkout), to that page."""
    lang = language(event)
    location = (provider_page(payment) if onward else None) or payment.checkout_url or ""
    headers = {"Location": location, "Cache-Control": "no-store", **REDIRECT_GUARD}
    response = Response(303, HTML, "", headers=headers)
    response.cookies.append(_lang_cookie(lang, payment.checkout_url or ""))
    return response


def provider_page(payment: Payment) -> str | None:
    """The provider's page a live payment waits on (its redirect_to_url next action), if any."""
    action = payment.next_action or {}
    url = str(action.get("redirect_url") or "")
    waiting = payment.mode == "live" and payment.status == "requires_action"
    if waiting and action.get("type") == "redirect_to_url" and url.startswith(("https://", "http://")):
        return url
    return None


def answers_pages(app: Any) -> Callable[[F], F]:
    """Route decorator: a refusal or a fault of a page route of `app` becomes the payer's page for
    it; a stale form's page links to the checkout to reopen."""

    def decorate(route: F) -> F:
        @functools.wraps(route)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return route(*args, **kwargs)
            except ServiceError as refused:
                error = refused
            except Exception as exc:  # a fault: 503 + Retry-After (or 500), as a page
                error = unexpected_error(exc, Surface.GATEWAY)
            event = app.current_event
            payment_id = str(kwargs.get("payment_id", ""))
            url = f"{public_base_url(event)}/checkout/{payment_id}" if is_ulid(payment_id) else None
            reopen = error.code.startswith("csrf_") or error.code == "not_receiptable"
            return problem_page(error, event, url if reopen else None)

        return wrapper  # type: ignore[return-value]

    return decorate


def _notice(refused: ServiceError, choice: PayerChoice | None) -> dict[str, str]:
    """What the form says to the payer: a key of the template's messages, the field it is about,
    and the words to fill in."""
    codes = {error.code for error in refused.errors} | {refused.code}
    if choice is not None and choice.method == "mobile_wallet" and codes & {"missing_phone", "invalid_phone"}:
        network = choice.network or ""
        fault = phone_fault(network, choice.phone_number) if network in NETWORK_PREFIXES else "invalid"
        prefixes = NETWORK_PREFIXES.get(network, ())
        return {
            "key": f"phone_{fault}",
            "field": "phone_number",
            "network": NETWORK_NAMES.get(network, network),
            "prefixes": " / ".join(prefixes),
        }
    if choice is not None and choice.method == "card" and codes & {"invalid_card", RAW_CARD_DATA}:
        expiry = any(error.field == "card_expiry" for error in refused.errors)
        if expiry:
            return {"key": "card_expired" if "expired" in refused.message else "card_expiry", "field": "card_expiry"}
        key = "card_not_test" if RAW_CARD_DATA in codes else "card_invalid"
        return {"key": key, "field": "card_number", "test_card": TEST_CARD_HINT}
    if "not_supported" in codes:
        return {"key": "not_offered", "field": ""}
    if "invalid_state" in codes:
        return {"key": "state", "field": ""}
    return {"key": "refused", "field": ""}


def on_the_form(refused: ServiceError) -> bool:
    """Whether the checkout's page answers `refused` (what the payer typed, a method or a limit
    that refused it, a checkout paid or closed meanwhile); else the payer's problem page does (no
    such checkout, a merchant that may not take payments now)."""
    return refused.status < 500 and refused.code not in ("not_found", "account_suspended")


def _qr(next_action: dict[str, Any] | None) -> str | None:
    """The QR code a payer scans, drawn here (an SVG data URI) from the provider's data."""
    if not next_action or next_action.get("type") != "display_qr_code" or not next_action.get("qr_code_data"):
        return None
    import segno

    return str(segno.make(str(next_action["qr_code_data"]), error="m").svg_data_uri(scale=6, border=2))


def cookie_path(checkout_url: str) -> str:
    """The path the page's cookies belong to: every checkout under this stage (/Prod/checkout)."""
    path = urlsplit(checkout_url).path
    return path.rsplit("/", 1)[0] if "/checkout/" in path else "/checkout"


def _csrf_cookie(checkout_url: str, token: str) -> Cookie:
    secure = checkout_url.startswith("https://")
    return Cookie(
        CSRF_COOKIE,
        token,
        path=cookie_path(checkout_url),
        secure=secure,
        http_only=True,
        same_site=SameSite.STRICT_MODE,
    )


def _lang_cookie(lang: str, checkout_url: str) -> Cookie:
    return Cookie(
        page_locale.LANG_COOKIE,
        lang,
        path=cookie_path(checkout_url),
        secure=checkout_url.startswith("https://"),
        http_only=True,
        same_site=SameSite.LAX_MODE,
        max_age=30 * 24 * 3600,
    )


def html_response(
    status: int,
    body: str,
    nonce: str,
    lang: str,
    event: Any,
    checkout_url: str,
    cookies: list[Cookie] | None = None,
    scripts: bool = False,
) -> Response[str]:
    """A page for people with its headers (CSP by `nonce`, no caching, no framing, its language);
    `scripts`: it loads script files of its own origin (never an inline script)."""
    cookies = list(cookies or [])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(checkout_url)) if checkout_url else ""
    policy = (
        f"default-src 'none'; style-src 'nonce-{nonce}'; img-src data:; form-action 'self' {origin}".rstrip()
        + "; base-uri 'none'; frame-ancestors 'none'"
        + ("; script-src 'self'" if scripts else "")
    )
    headers = {
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": policy,
        "Content-Language": lang,
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Vary": "Accept-Language, Cookie",
    }
    if (event.query_string_parameters or {}).get("lang") in page_locale.LANGUAGES:
        cookies = [*cookies, _lang_cookie(lang, checkout_url)]  # the switch: later posts keep it
    return Response(status, HTML, body, headers=headers, cookies=cookies or None)
