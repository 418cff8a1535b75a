"""What a collection request's payment link answers a browser: 303 to the hosted checkout, or a
short page: the bank details of a request paid by bank reference (with copy buttons), or why
there is no checkout (paid already, its business may not take payments now, not payable
online, no such request), in Portuguese or English like the checkout's pages
(mzpay.http.page_locale: the switch `?lang=en`, its cookie, Accept-Language)."""

from __future__ import annotations

import secrets
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mzpay.domain.collection.requests import CENTS, CollectionRequest
from mzpay.http import page_locale
from mzpay.http.checkout_page import html_response, language

STATUSES = {"paid": 200, "bank": 200, "suspended": 403, "not_payable": 409, "not_found": 404}
SCRIPT_PATH = "/pay/assets/copy.js"
# The copy buttons of the bank page (hidden until this file shows them: without it the numbers are
# still there to read and select). A file of the API's own origin: the pages run no inline script.
COPY_SCRIPT = """document.querySelectorAll("button[data-copy]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    var done = document.getElementById("copied");
    navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
      done.textContent = button.getAttribute("data-copied");
    }, function () {
      done.textContent = button.getAttribute("data-failed");
    });
  });
});
"""
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
    bank: dict[str, Any] | None = None,
) -> Response[str]:
    """The page of `state` (one of STATUSES) for the link at `link` (its language switch); a paid
    one links to `receipt_url` when there is one; a bank one shows `bank` (bank_details)."""
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
        bank=bank or {},
    )
    return html_response(STATUSES[state], body, nonce, lang, event, link, scripts=state == "bank")


def bank_details(request: CollectionRequest, wallets: bool) -> dict[str, Any]:
    """What the bank page shows: the request's bank methods (entity and reference, NIB and the
    transfer's description), the amount to pay (any part of what is due when it takes
    instalments) and whether its wallet checkout is offered too."""
    methods = [detail for detail in request.collection_method_details if detail.get("reference_number")]
    return {
        "simo": [detail for detail in methods if detail.get("type") == "simo_erv"],
        "interbank": [detail for detail in methods if detail.get("type") == "interbank"],
        "amount": request.outstanding.quantize(CENTS),
        "currency": request.amount["currency"],
        "any_part": request.reference_amount is None,
        "least": request.min_installment,
        "wallets": wallets,
    }


def copy_script() -> Response[str]:
    headers = {"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"}
    return Response(200, "text/javascript; charset=utf-8", COPY_SCRIPT, headers=headers)
