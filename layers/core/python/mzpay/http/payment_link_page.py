"""What a collection request's payment link answers a browser: 303 to the hosted checkout, or a
short page saying why there is none (paid already, not payable online, no such request)."""

from __future__ import annotations

from html import escape

from aws_lambda_powertools.event_handler import Response

_TEXT = {
    "paid": (200, "This invoice is paid. Thank you."),
    "not_payable": (409, "This invoice cannot be paid online: ask the biller how to pay it."),
    "not_found": (404, "There is no such invoice."),
}
# The page has no script, style or image: its policy allows nothing, and no page may frame it.
POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def redirect(url: str) -> Response[str]:
    return Response(303, "text/plain; charset=utf-8", "", headers={**_HEADERS, "Location": url})


def page(state: str, biller: str | None = None, invoice_number: str | None = None) -> Response[str]:
    status, text = _TEXT[state]
    parts = [
        "<!doctype html><html lang='pt'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'><title>mzpay</title></head><body>",
        f"<main data-state='{escape(state)}'>",
    ]
    if biller:
        parts.append(f"<p class='biller'>{escape(biller)}</p>")
    if invoice_number:
        parts.append(f"<p class='invoice'>Invoice <span>{escape(invoice_number)}</span></p>")
    parts.append(f"<p class='status'>{escape(text)}</p></main></body></html>")
    return Response(status, "text/html; charset=utf-8", "".join(parts), headers=_HEADERS)
