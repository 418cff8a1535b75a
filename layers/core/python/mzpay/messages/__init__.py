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
    }


def collection_request_email(request: dict[str, Any], language: str) -> Email:
    context = collection_request_context(request, language)
    return Email(
        subject=fmt.plain(_render("collection_request.subject.txt", language, context)),
        html=_render("collection_request.html", language, context),
        text=_render("collection_request.txt", language, context),
        language=language,
    )


def collection_request_sms(request: dict[str, Any], language: str) -> Sms:
    """The SMS, at most 2 segments: where it would not fit, the business name is written without
    accents (GSM-7 holds 153 characters a segment, UCS-2 67), then cut shorter."""
    context = collection_request_context(request, language)
    name = context["business"]
    names = [name, sms.to_gsm7(name), *(sms.to_gsm7(fmt.plain(name, limit)) for limit in NAME_LIMITS)]
    for business in names:
        text = fmt.plain(_render("collection_request.sms.txt", language, {**context, "business": business}))
        if sms.fits(text):
            break
    return Sms(text=text, language=language)
