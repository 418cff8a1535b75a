"""Partners (docs/partners.md): the providers a business's customers pay through (mobile money,
banks, card schemes), each with the payment-method types it takes and the attributes that build
a client's form for them, kept in data (data/partners.json), not code; and the card schemes a
BIN (the first 6 to 8 digits of a card) belongs to. A card number is never taken: a BIN lookup
refuses more than 8 digits, and nothing of it is logged or stored."""

from __future__ import annotations

import base64
import functools
import json
from pathlib import Path
from typing import Any

from mzpay.domain.common.errors import FieldError, ServiceError, found

DATA = Path(__file__).parents[1] / "data" / "partners.json"
PM_TYPES = ("mobile_wallet", "bank_account", "card")
BIN_MIN, BIN_MAX = 6, 8


@functools.cache
def _data() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def view(partner: dict[str, Any]) -> dict[str, Any]:
    """Partner (spec): name, partner_id, pm_types[] {type, attributes[]}."""
    return {"partner_id": partner["partner_id"], "name": partner["name"], "pm_types": partner["pm_types"]}


def partners(pm_type: str | None = None) -> list[dict[str, Any]]:
    """Every partner, or those taking `pm_type` (400 for a type that does not exist)."""
    if pm_type is not None and pm_type not in PM_TYPES:
        error = FieldError("type", "INVALID_FORMAT", f"one of {', '.join(PM_TYPES)}")
        raise ServiceError(400, "validation_error", "The request has invalid fields: type.", errors=[error])
    return [view(p) for p in _data()["partners"] if pm_type is None or any(t["type"] == pm_type for t in p["pm_types"])]


def partner(partner_id: str) -> dict[str, Any]:
    return view(found(next((p for p in _data()["partners"] if p["partner_id"] == partner_id), None), "partner"))


def attributes(partner_id: str, pm_type: str) -> list[dict[str, Any]] | None:
    """The attributes of `partner_id`'s `pm_type`, or None when it does not take it."""
    found = next((p for p in _data()["partners"] if p["partner_id"] == partner_id), None)
    kinds = {t["type"]: t["attributes"] for t in (found or {}).get("pm_types", [])}
    return kinds.get(pm_type)


def _in_range(number: str, low: str, high: str) -> bool:
    width = len(low)
    return len(number) >= width and low <= number[:width] <= high


def card_logo(card_number: str) -> dict[str, Any]:
    """The logo (base64 SVG) of the scheme of a BIN: 6 to 8 digits; more is refused (never a
    whole card number); an unknown BIN is 404 not_found."""
    digits = card_number.replace(" ", "")
    if not (digits.isascii() and digits.isdigit()) or not BIN_MIN <= len(digits) <= BIN_MAX:
        error = FieldError(
            "card_number", "INVALID_FORMAT", f"the card's first {BIN_MIN} to {BIN_MAX} digits (its BIN), never more"
        )
        raise ServiceError(400, "validation_error", "The request has invalid fields: card_number.", errors=[error])
    for scheme in _data()["card_schemes"]:
        if any(_in_range(digits, low, high) for low, high in scheme["ranges"]):
            logo = base64.b64encode(scheme["logo"].encode()).decode()
            return {"object": "card_logo", "scheme": scheme["scheme"], "logo": logo, "card_number": digits}
    raise ServiceError(404, "not_found", "No card scheme has this BIN.")
