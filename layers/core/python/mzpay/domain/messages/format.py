"""Amounts, dates and names as a payer in Mozambique reads them, and the payer's language."""

from __future__ import annotations

import unicodedata
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from mzpay.domain.accounts.limits import MAPUTO

LANGUAGES = ("pt", "en")  # the first is the default of every business
DEFAULT_LANGUAGE = LANGUAGES[0]
CURRENCY_SYMBOLS = {"MZN": "MT"}


def language(*preferred: Any) -> str:
    """The first of `preferred` that a message is written in (the payer's, then the business's),
    else Portuguese. `pt-MZ` counts as `pt`."""
    for choice in preferred:
        if isinstance(choice, str) and choice.split("-")[0].split("_")[0].lower() in LANGUAGES:
            return choice.split("-")[0].split("_")[0].lower()
    return DEFAULT_LANGUAGE


def money(value: Decimal | str | float, currency: str, lang: str) -> str:
    """`1 250,00 MT` (Portuguese, Mozambique's way) or `MZN 1,250.00` (English). Plain spaces: an
    SMS with a no-break space would cost UCS-2."""
    amount = Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    grouped = f"{amount:,.2f}"  # 1,250.00
    if lang == "pt":
        whole, cents = grouped.split(".")
        return f"{whole.replace(',', ' ')},{cents} {CURRENCY_SYMBOLS.get(currency, currency)}"
    return f"{currency} {grouped}"


def day(iso_date: str | None, lang: str) -> str | None:
    """A due date `2026-12-31` (or the date of an ISO time) as `31/12/2026`, as both languages write
    it in Mozambique; None stays None."""
    if not iso_date:
        return None
    year, month, dom = iso_date[:10].split("-")
    return f"{dom}/{month}/{year}"


def plain(text: Any, limit: int | None = None) -> str:
    """A merchant's or payer's text made safe for an SMS, a subject line or a plain-text body:
    control characters (line breaks, escapes, bidi overrides) become spaces, runs of spaces one,
    and the result is cut at `limit` characters (with "...", which costs no UCS-2)."""
    cleaned = "".join(
        " " if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char for char in str(text or "")
    )
    cleaned = " ".join(cleaned.split())
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: max(limit - 3, 0)].rstrip() + "..."
    return cleaned


def maputo_day(moment: str | None) -> str | None:
    """The day (`2026-12-31`) in Maputo of an ISO time (`2026-12-31T23:30:00Z` is already
    `2027-01-01` there); a bare date stays itself, None stays None."""
    if not moment:
        return None
    if len(moment) <= 10:
        return moment
    return datetime.fromisoformat(moment.replace("Z", "+00:00")).astimezone(MAPUTO).date().isoformat()


def today_in_maputo(now: datetime) -> date:
    """The calendar day in Maputo at the aware `now`."""
    return now.astimezone(MAPUTO).date()
