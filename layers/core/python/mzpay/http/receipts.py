"""A payment's receipt for people: the payer's printable page (GET /checkout/{id}/receipt) and the
PDF a merchant gets from GET /v1/payments/{id}/receipt with `Accept: application/pdf` (fpdf2,
imported when a PDF is first asked for). Both in the page's language (mzpay.http.page_locale)."""

from __future__ import annotations

import secrets
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import Response

from mzpay.http import page_locale
from mzpay.http.checkout_page import html_response, language
from mzpay.messages import latin as _latin  # what the PDF core fonts can draw
from mzpay.messages import pdf_rows

if TYPE_CHECKING:
    from mzpay.domain.accounts.settings import Brand

PDF = "application/pdf"
FILE_NAMES = {"pt": "recibo", "en": "receipt"}  # what a downloaded receipt is called


def wants_pdf(event: Any) -> bool:
    """Whether the request's Accept names PDF before (or without) JSON."""
    accept = (event.headers.get("accept") or "").lower()
    json_at = accept.find("application/json")
    return PDF in accept and (json_at < 0 or accept.find(PDF) < json_at)


def wants_pdf_page(event: Any) -> bool:
    """Whether the payer's receipt page was asked for as its PDF (`?format=pdf`, its download link)."""
    return (event.query_string_parameters or {}).get("format") == "pdf"


def receipt_page(receipt: dict[str, Any], checkout_url: str, event: Any, brand: Brand | None = None) -> Response[str]:
    """The receipt's page, in the account's colour (`brand`) when it chose one."""
    lang = language(event)
    nonce = secrets.token_urlsafe(16)
    here = f"{checkout_url}/receipt"  # the language switch stays on the receipt
    body = page_locale.render(
        "receipt.html", lang, nonce=nonce, receipt=receipt, url=checkout_url, here=here, brand=brand
    )
    return html_response(200, body, nonce, lang, event, checkout_url)


def receipt_pdf(receipt: dict[str, Any], event: Any) -> Response[bytes]:
    """The receipt as a one-page A5 PDF (core fonts: Latin-1 text, so Portuguese reads right),
    downloaded as `recibo-<short number>.pdf` (English: `receipt-...`): the fields of the page."""
    from fpdf import FPDF

    lang = language(event)
    _ = page_locale.translations(lang).ugettext
    pdf = FPDF(format=(148, 210))  # A5, in mm
    pdf.set_title(f"{_('Receipt')} {receipt['short_number']}")
    pdf.set_creator("mzpay")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, _latin(_("Receipt")), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    pdf.cell(0, 6, _latin(f"{_('Receipt no.')} {receipt['short_number']}"), new_x="LMARGIN", new_y="NEXT")
    if receipt["mode"] == "test":
        pdf.cell(0, 6, _latin(_("Test mode: no real money moves.")), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf_rows(pdf, receipt_rows(receipt, lang), gap=1)
    name = f"{FILE_NAMES[lang]}-{receipt['short_number']}.pdf"
    headers = {
        "Content-Language": lang,
        "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="{name}"',
        "X-Content-Type-Options": "nosniff",
    }
    return Response(200, PDF, bytes(pdf.output()), headers=headers)


def receipt_rows(receipt: dict[str, Any], lang: str) -> list[tuple[str, str]]:
    """The receipt's (label, value) rows in `lang`, in the page's order (receipt.html)."""
    _ = page_locale.translations(lang).ugettext

    def money(amount: dict[str, str]) -> str:
        return page_locale.money(amount["amount"], amount["currency"], lang)

    fiscal = receipt.get("fiscal") or {}
    vat = fiscal.get("vat") or {}
    method = receipt["method"]
    refunded = Decimal(receipt["refunded"]["amount"])
    state = (
        _("Paid") if refunded == 0 else _("Partly refunded") if Decimal(receipt["net"]["amount"]) > 0 else _("Refunded")
    )
    rows = [
        (_("Paid to"), receipt["merchant"]["name"]),
        (_("Legal name"), fiscal.get("legal_name") or ""),
        ("NUIT", fiscal.get("nuit") or ""),
        (_("Address"), fiscal.get("address") or ""),
        (_("For"), receipt.get("description") or ""),
        (_("Amount"), money(receipt["amount"])),
    ]
    if vat:
        rows += [
            (_("Amount before IVA"), money(vat["base"])),
            (_("IVA at %(rate)s") % {"rate": page_locale.percent(vat["rate"], lang)}, money(vat["tax"])),
        ]
    return [
        *rows,
        (_("Refunded so far"), money(receipt["refunded"]) if refunded > 0 else ""),
        (_("Status"), state),
        (_("Paid with"), " ".join(v for v in (method["network"] or method["type"], method["masked"]) if v)),
        (_("Provider reference"), receipt.get("provider_reference") or ""),
        (_("Date (Maputo time)"), page_locale.day_and_time(receipt["paid_at"], lang)),
    ]
