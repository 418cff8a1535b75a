"""A payment's receipt for people: the payer's printable page (GET /checkout/{id}/receipt) and the
PDF a merchant gets from GET /v1/payments/{id}/receipt with `Accept: application/pdf` (fpdf2,
imported when a PDF is first asked for). Both in the page's language (mzpay.http.page_locale)."""

from __future__ import annotations

import secrets
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mzpay.http import page_locale
from mzpay.http.checkout_page import html_response, language

PDF = "application/pdf"


def wants_pdf(event: Any) -> bool:
    """Whether the request's Accept names PDF before (or without) JSON."""
    accept = (event.headers.get("accept") or "").lower()
    json_at = accept.find("application/json")
    return PDF in accept and (json_at < 0 or accept.find(PDF) < json_at)


def receipt_page(receipt: dict[str, Any], checkout_url: str, event: Any) -> Response[str]:
    lang = language(event)
    nonce = secrets.token_urlsafe(16)
    body = page_locale.render("receipt.html", lang, nonce=nonce, receipt=receipt, url=checkout_url)
    return html_response(200, body, nonce, lang, event, checkout_url)


def receipt_pdf(receipt: dict[str, Any], event: Any) -> Response[bytes]:
    """The receipt as a one-page A5 PDF (core fonts: Latin-1 text, so Portuguese reads right)."""
    from fpdf import FPDF

    lang = language(event)
    _ = page_locale.translations(lang).ugettext
    method = receipt["method"]
    rows = [
        (_("Paid to"), receipt["merchant"]["name"]),
        (_("For"), receipt.get("description") or ""),
        (_("Amount"), page_locale.money(receipt["amount"]["amount"], receipt["amount"]["currency"], lang)),
        (_("Refunded so far"), page_locale.money(receipt["refunded"]["amount"], receipt["refunded"]["currency"], lang)),
        (
            _("Paid with"),
            " ".join(v for v in (method["network"] or method["type"], method["masked"]) if v),
        ),
        (_("Provider reference"), receipt.get("provider_reference") or ""),
        (_("Date (Maputo time)"), page_locale.when(receipt["paid_at"], lang)),
    ]
    pdf = FPDF(format=(148, 210))  # A5, in mm
    pdf.set_title(f"{_('Receipt')} {receipt['receipt_number']}")
    pdf.set_creator("mzpay")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, _latin(_("Receipt")), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    pdf.cell(0, 6, _latin(receipt["receipt_number"]), new_x="LMARGIN", new_y="NEXT")
    if receipt["mode"] == "test":
        pdf.cell(0, 6, _latin(_("Test mode: no real money moves.")), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    for label, value in rows:
        if not value:
            continue
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, _latin(label), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 7, _latin(value), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    headers = {"Content-Language": lang, "Cache-Control": "no-store"}
    return Response(200, PDF, bytes(pdf.output()), headers=headers)


def _latin(text: str) -> str:
    """What the PDF core fonts can draw: Latin-1 (Babel's narrow spaces become plain ones)."""
    return text.replace("\u202f", " ").replace("\u00a0", " ").encode("latin-1", "replace").decode("latin-1")
