"""The languages of the pages for people (the hosted checkout): which one a request gets, its
gettext catalogue, and money and time the way its readers write them.

Portuguese is the default; English when the payer asks for it with the page's switch (`?lang=en`,
kept in a cookie so the form's posts keep it) or prefers it in `Accept-Language` over Portuguese.
The catalogues are `locale/<lang>/LC_MESSAGES/pages.po` beside this module, whose message ids are
the English texts (`make translations` extracts them from the templates and updates the files);
they are compiled in memory when a page first needs one.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel.support import Translations
    from jinja2 import Environment

LANGUAGES = ("pt", "en")  # the first is the default
DEFAULT = LANGUAGES[0]
LANG_COOKIE = "mzpay_lang"
DOMAIN = "pages"
HERE = Path(__file__).parent
CATALOGUES = HERE / "locale"
TEMPLATES = HERE / "templates"
# Mozambique keeps Central Africa Time all year (no daylight saving): what payers read times in.
MAPUTO = timezone(timedelta(hours=2), "CAT")
# Babel's locale for each language: Mozambican Portuguese; English with the day first (as the
# region writes dates), money with the ISO code.
BABEL_LOCALES = {"pt": "pt_MZ", "en": "en_GB"}
MONEY_PATTERNS = {"en": "\u00a4\u00a4\u00a0#,##0.00"}  # the locale's own pattern where absent
_RANGE = re.compile(r"\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]{1,5}))?\s*")
MAX_ACCEPT_LANGUAGE = 500  # longer headers are read up to here


def negotiate(asked: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The page's language: the switch's choice (`asked`), else the remembered one (`cookie`),
    else the best of Accept-Language that the pages speak, else Portuguese."""
    for chosen in (asked, cookie):
        if chosen in LANGUAGES:
            return str(chosen)
    preferred: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "")[:MAX_ACCEPT_LANGUAGE].split(",")):
        matched = _RANGE.fullmatch(part)
        if matched is None:
            continue
        try:
            weight = float(matched.group(2)) if matched.group(2) else 1.0
        except ValueError:
            continue
        if weight > 0:
            preferred.append((-weight, index, matched.group(1).split("-")[0].lower()))
    for _weight, _index, language in sorted(preferred):
        if language in LANGUAGES:
            return language
        if language == "*":
            return DEFAULT
    return DEFAULT


@functools.cache
def translations(language: str) -> Translations:
    """The catalogue of `language` (English: the message ids themselves)."""
    from mzpay.messages import catalogue

    return catalogue(CATALOGUES, language, DOMAIN)


@functools.cache
def environment(language: str) -> Environment:
    """The templates' environment in `language`: autoescaped, gettext (`_`, `{% trans %}`) installed."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    return env


def render(template: str, language: str, **context: Any) -> str:
    """`template` in `language`, with money() and when() for its readers."""
    return (
        environment(language)
        .get_template(template)
        .render(
            lang=language,
            money=functools.partial(money, language=language),
            when=functools.partial(when, language=language),
            day_and_time=functools.partial(day_and_time, language=language),
            percent=functools.partial(percent, language=language),
            **context,
        )
    )


def money(amount: str | Decimal, currency: str, language: str) -> str:
    """250,00 MTn (Portuguese) or MZN 250.00 (English: the ISO code, as Mozambican receipts write it)."""
    from babel.numbers import format_currency

    pattern = MONEY_PATTERNS.get(language)
    return str(format_currency(Decimal(amount), currency, format=pattern, locale=BABEL_LOCALES[language]))


def percent(fraction: str | Decimal, language: str) -> str:
    """A rate given as a fraction (0.16) as its readers write it: 16% (16,5% in Portuguese)."""
    from babel.numbers import format_percent

    return str(format_percent(Decimal(fraction), "#,##0.##%", locale=BABEL_LOCALES[language]))


def day_and_time(stamp: str, language: str) -> str:
    """An ISO 8601 UTC time on Maputo's clock with the year in four digits, as a fiscal document
    writes it in either language: 25/11/2026 10:30."""
    from babel.dates import format_datetime

    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return str(format_datetime(moment, "dd/MM/yyyy HH:mm", tzinfo=MAPUTO, locale=BABEL_LOCALES[language]))


def when(stamp: str, language: str) -> str:
    """An ISO 8601 UTC time as Maputo's clock shows it, in the reader's words."""
    from babel.dates import format_datetime

    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return str(format_datetime(moment, "short", tzinfo=MAPUTO, locale=BABEL_LOCALES[language]))
