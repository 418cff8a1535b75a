"""What a payer reads (docs/notifications.md): each message rendered from its Jinja2 templates
(`templates/<kind>.*` beside this module) in the payer's language, with the `messages` gettext
catalogue (`locale/<lang>/LC_MESSAGES/messages.po`, message ids in English, compiled in memory on
first use). E-mail: a subject, an HTML body (autoescaped) and a plain-text part; SMS: one text of
at most 2 segments. Every merchant's or payer's string goes through mzpay.domain.messages.format
.plain first (no control characters), then the HTML templates escape it."""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mzpay.domain.dashboard import team
from mzpay.domain.messages import format as fmt
from mzpay.domain.messages import sms

if TYPE_CHECKING:
    from babel.support import Translations
    from jinja2 import Environment

DOMAIN = "messages"
HERE = Path(__file__).parent
NAME_LIMITS = (60, 30, 16)  # a business name is cut to these in turn until an SMS fits 2 segments


@dataclass(frozen=True)
class Email:
    subject: str
    html: str
    text: str
    language: str


@dataclass(frozen=True)
class Sms:
    text: str
    language: str

    @property
    def size(self) -> sms.SmsSize:
        return sms.size(self.text)


def catalogue(root: Path, language: str, domain: str) -> Translations:
    """The gettext catalogue `root/<language>/LC_MESSAGES/<domain>.po`, compiled in memory
    (English, or a language without one: the message ids themselves). The pages' catalogues
    (mzpay.http.page_locale) are read the same way."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import NullTranslations, Translations

    source = root / language / "LC_MESSAGES" / f"{domain}.po"
    if not source.exists():
        return NullTranslations()  # type: ignore[return-value]
    with source.open("rb") as handle:
        read = read_po(handle, locale=language, domain=domain)
    compiled = io.BytesIO()
    write_mo(compiled, read)
    compiled.seek(0)
    return Translations(compiled, domain=domain)


@functools.cache
def translations(language: str) -> Translations:
    """The `messages` catalogue of `language`."""
    return catalogue(HERE / "locale", language, DOMAIN)


@functools.cache
def environment(language: str) -> Environment:
    """Autoescaped for `.html` templates only; StrictUndefined; gettext installed."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(enabled_extensions=("html",), default=False),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    return env


def _render(name: str, language: str, context: dict[str, Any]) -> str:
    """Template `name` in `language`: every string of `context` (in its dicts and lists too) made
    plain first (fmt.plain: no control characters, whatever the caller did), the `.html` ones
    escaped by the environment (tests/unit/test_message_templates.py renders every template so)."""
    return environment(language).get_template(name).render(lang=language, **_plain_strings(context)).strip()


def _plain_strings(value: Any) -> Any:
    if isinstance(value, str):
        return fmt.plain(value)
    if isinstance(value, dict):
        return {key: _plain_strings(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_strings(item) for item in value]
    return value


def collection_request_context(request: dict[str, Any], language: str) -> dict[str, Any]:
    """What a collection request's messages say, from its view (CollectionRequest.view()): every
    merchant's or payer's text made plain."""
    payer = request.get("payer") or {}
    invoice = request.get("invoice_metadata") or {}
    amount = request["amount"]
    name = " ".join(filter(None, (payer.get("first_name"), payer.get("last_name")))) or payer.get("legal_name")
    return {
        "business": fmt.plain((request.get("biller") or {}).get("business_name") or "mzpay", 120),
        "payer_name": fmt.plain(name, 120),
        "description": fmt.plain(request.get("description"), 300),
        "number": fmt.plain(invoice.get("invoice_number")),
        "amount": fmt.money(amount["value"], amount["currency"], language),
        "due": fmt.day(invoice.get("due_date"), language),
        "link": invoice.get("payment_link") or "",
        **bank_details(request.get("collection_method_details") or []),
    }


def bank_details(details: list[dict[str, Any]]) -> dict[str, Any]:
    """How a request with bank methods is paid besides its link (docs/collection-requests.md,
    "References"): the entity and reference of its active simo_erv method, the NIB and transfer
    description of its active interbank method; None where it has none."""
    active = [item for item in details if item.get("status", "active") == "active" and item.get("reference_number")]
    simo = next((item for item in active if item.get("type") == "simo_erv"), {})
    transfer = next((item for item in active if item.get("type") == "interbank"), {})
    return {
        "simo_entity": simo.get("entity_number"),
        "simo_reference": simo.get("reference_number"),
        "transfer_nib": transfer.get("nib"),
        "transfer_description": transfer.get("transfer_description"),
    }


def collection_request_email(request: dict[str, Any], language: str) -> Email:
    return _email("collection_request", language, collection_request_context(request, language))


def collection_request_sms(request: dict[str, Any], language: str) -> Sms:
    """The SMS, at most 2 segments (see `_sms`)."""
    return _sms("collection_request.sms.txt", language, collection_request_context(request, language))


def _sms(template: str, language: str, context: dict[str, Any]) -> Sms:
    """An SMS of `template`, at most 2 segments: where it would not fit, the business name is
    written without accents (GSM-7 holds 153 characters a segment, UCS-2 67), then cut shorter."""
    name = context["business"]
    names = [name, sms.to_gsm7(name), *(sms.to_gsm7(fmt.plain(name, limit)) for limit in NAME_LIMITS)]
    for business in names:
        text = fmt.plain(_render(template, language, {**context, "business": business}))
        if sms.fits(text):
            break
    return Sms(text=text, language=language)


def _email(kind: str, language: str, context: dict[str, Any]) -> Email:
    """The e-mail of the templates `<kind>.subject.txt`, `<kind>.html` and `<kind>.txt`."""
    return Email(
        subject=fmt.plain(_render(f"{kind}.subject.txt", language, context)),
        html=_render(f"{kind}.html", language, context),
        text=_render(f"{kind}.txt", language, context),
        language=language,
    )


# ---------------------------------------------------------------- reminders and overdue notices
REMINDER, OVERDUE = "reminder", "overdue"  # what a due-date message says (mzpay.cases.due_dates)
DUE = "collection_request.due"  # its NotificationQueue message's kind (`notice`: REMINDER or OVERDUE)


def due_email(request: dict[str, Any], language: str, notice: str) -> Email:
    """A reminder before the request's due date (`notice` REMINDER) or its overdue notice (OVERDUE)."""
    return _email("collection_request_due", language, _due(request, language, notice))


def due_sms(request: dict[str, Any], language: str, notice: str) -> Sms:
    return _sms("collection_request_due.sms.txt", language, _due(request, language, notice))


def _due(request: dict[str, Any], language: str, notice: str) -> dict[str, Any]:
    return {**collection_request_context(request, language), "overdue": notice == OVERDUE}


# ---------------------------------------------------------------- receipts
def receipt_context(paid: dict[str, Any], language: str) -> dict[str, Any]:
    """What a receipt says, from `paid`: business, amount {value, currency}, paid_at (ISO time),
    receipt (its number), and optionally number (the invoice's) and description."""
    amount = paid["amount"]
    return {
        "business": fmt.plain(paid.get("business") or "mzpay", 120),
        "payer_name": fmt.plain(paid.get("payer_name"), 120),
        "description": fmt.plain(paid.get("description"), 300),
        "number": fmt.plain(paid.get("number")),
        "amount": fmt.money(amount["value"], amount["currency"], language),
        "paid": fmt.day(fmt.maputo_day(paid.get("paid_at")), language),
        "receipt": fmt.plain(paid.get("receipt")),
    }


def receipt_email(paid: dict[str, Any], language: str) -> Email:
    return _email("receipt", language, receipt_context(paid, language))


def receipt_sms(paid: dict[str, Any], language: str) -> Sms:
    return _sms("receipt.sms.txt", language, receipt_context(paid, language))


# ---------------------------------------------------------------- the invoice PDF
def invoice_pdf(request: dict[str, Any], language: str) -> bytes:
    """The collection request's invoice as a one-page A4 PDF in `language` (fpdf2, imported here:
    core fonts, so Latin-1 text): a title, then the rows of templates/invoice.pdf.txt (each
    `label<TAB>value`; the values made plain, so no row holds a tab of its own)."""
    from fpdf import FPDF

    lines = _render("invoice.pdf.txt", language, collection_request_context(request, language)).splitlines()
    title, rows = lines[0], [line.split("\t", 1) for line in lines[1:] if "\t" in line]
    pdf = FPDF(format="A4")
    pdf.set_title(latin(title))
    pdf.set_creator("mzpay")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 20)
    pdf.cell(0, 12, latin(title), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf_rows(pdf, [(label, value) for label, value in rows], gap=2)
    return bytes(pdf.output())


def pdf_rows(pdf: Any, rows: list[tuple[str, str]], gap: float) -> None:
    """Each (label, value) row of a PDF document (an fpdf.FPDF): the label small, the value bold
    below it, `gap` mm after; a row without a value is left out. The fiscal receipt's PDF
    (mzpay.http.receipts) is drawn the same way."""
    for label, value in rows:
        if not value.strip():
            continue
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, latin(label), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 7, latin(value), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(gap)


def latin(text: str) -> str:
    """What the PDF core fonts can draw: Latin-1 (anything else becomes '?')."""
    return text.replace("\u202f", " ").replace("\u00a0", " ").encode("latin-1", "replace").decode("latin-1")


# ---------------------------------------------------------------- the dashboard's users
DASHBOARD_USER = team.QUEUE_KIND  # its NotificationQueue message's kind (mzpay.dashboard.team)


def dashboard_user_email(message: dict[str, Any], language: str) -> Email:
    """An invitation to an account's dashboard (`notice` team.INVITATION: `business`, `inviter`,
    `role`) or a password reset's link (team.PASSWORD_RESET), with its `link`."""
    context = {
        "notice": message["notice"],
        "business": fmt.plain(message.get("business") or "mzpay", 120),
        "inviter": fmt.plain(message.get("inviter"), 254),
        "role": str(message.get("role") or ""),
        "link": str(message["link"]),
        "name": "",
    }
    return titled_email(DASHBOARD_USER, language, context)


def titled_email(template: str, language: str, context: dict[str, Any]) -> Email:
    """The e-mail of `<template>.subject.txt`, `.html` (told its `subject`, its title) and `.txt`:
    the notices' (mzpay.messages.notices) and the dashboard users'."""
    subject = fmt.plain(_render(f"{template}.subject.txt", language, context))
    return Email(
        subject=subject,
        html=_render(f"{template}.html", language, {**context, "subject": subject}),
        text=_render(f"{template}.txt", language, context),
        language=language,
    )
