"""What a collection request's payment link answers a browser: 303 to the hosted checkout, or a
short page saying why there is none (paid already, its business may not take payments now, not
payable online, no such request), in Portuguese or English like the checkout's pages
(mzpay.http.page_locale: the switch `?lang=en`, its cookie, Accept-Language)."""

from __future__ import annotations

import secrets
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mzpay.http import page_locale
from mzpay.http.checkout_page import html_response, language

STATUSES = {"paid": 200, "suspended": 403, "not_payable": 409, "not_found": 404}
# The redirect has no body: its policy allows nothing, and no page may frame it (the pages
# themselves get the checkout's headers: html_response).
REDIRECT_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": REDIRECT_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def redirect(url: str) -> Response[str]:
    return Response(303, "text/plain; charset=utf-8", "", headers={**_HEADERS, "Location": url})


def page(
    state: str,
    event: Any,
    link: str,
    biller: str | None = None,
    invoice_number: str | None = None,
    receipt_url: str | None = None,
) -> Response[str]:
    """The page of `state` (one of STATUSES) for the link at `link` (its language switch); a paid
    one links to `receipt_url` when there is one."""
    lang = language(event)
    nonce = secrets.token_urlsafe(16)
    body = page_locale.render(
        "payment_link.html",
        lang,
        nonce=nonce,
        state=state,
        biller=biller,
        invoice_number=invoice_number,
        receipt_url=receipt_url,
        url=link,
    )
    return html_response(STATUSES[state], body, nonce, lang, event, link)
