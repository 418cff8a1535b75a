"""SMS segments: GSM-7 (3GPP TS 23.038's default alphabet and its extension table, whose
characters cost two septets) or, as soon as one character is outside it, UCS-2 (UTF-16 code
units). One segment holds 160 GSM-7 septets or 70 UCS-2 units; a concatenated message loses room
to its header: 153 and 67 per segment. Portuguese accents cost: `á ã â ç ê í ó õ ô ú` are not in
GSM-7, so one of them turns the whole text into UCS-2."""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENSION = frozenset("\f^{}\\[~]|€")
SINGLE = {"gsm7": 160, "ucs2": 70}
PART = {"gsm7": 153, "ucs2": 67}
MAX_SEGMENTS = 2  # what a message to a payer may cost (docs/notifications.md)


@dataclass(frozen=True)
class SmsSize:
    encoding: str  # gsm7 | ucs2
    units: int  # septets (GSM-7) or UTF-16 code units (UCS-2)
    segments: int


def encoding(text: str) -> str:
    return "gsm7" if all(char in GSM7_BASIC or char in GSM7_EXTENSION for char in text) else "ucs2"


def size(text: str) -> SmsSize:
    """How `text` travels: its encoding, its length in that encoding, and its segments."""
    kind = encoding(text)
    if kind == "gsm7":
        units = sum(2 if char in GSM7_EXTENSION else 1 for char in text)
    else:
        units = len(text.encode("utf-16-le")) // 2
    segments = 1 if units <= SINGLE[kind] else math.ceil(units / PART[kind])
    return SmsSize(kind, units, segments)


def fits(text: str, segments: int = MAX_SEGMENTS) -> bool:
    return size(text).segments <= segments


def to_gsm7(text: str) -> str:
    """`text` in GSM-7: each character outside it by its letter without the accent (`ç` -> `c`,
    `ã` -> `a`), or `?` when it has none. For a merchant's name that would cost UCS-2."""
    kept = []
    for char in text:
        if char in GSM7_BASIC or char in GSM7_EXTENSION:
            kept.append(char)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        kept.append(base if base and all(c in GSM7_BASIC for c in base) else "?")
    return "".join(kept)
