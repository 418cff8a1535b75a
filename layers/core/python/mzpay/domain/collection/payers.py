"""The payer of a collection request (docs/collection-requests.md): the rules a Payer passes (its
shape and sizes are the request model's). Pure rules."""

from __future__ import annotations

from typing import Any

from mzpay.domain.collection.business import (
    INVALID_FORMAT,
    NOT_FOUND,
    REQUIRED,
    is_country,
    looks_like_email,
    nuit_problem,
    phone_problem,
)
from mzpay.domain.common.errors import FieldError

PAYER_TYPES = ("business", "individual")
DELIVERY_METHODS = ("email", "sms", "erp")


def payer_problems(payer: dict[str, Any], field: str = "payer") -> list[FieldError]:
    """The rules of a Payer (its shape and sizes are the request model's)."""
    problems = []
    if payer.get("type") not in PAYER_TYPES:
        problems.append(FieldError(f"{field}.type", INVALID_FORMAT, "business or individual"))
    if payer.get("delivery_method") not in DELIVERY_METHODS:
        problems.append(FieldError(f"{field}.delivery_method", INVALID_FORMAT, "email, sms or erp"))
    for name in ("first_name", "last_name", "legal_name", "vat_number"):
        if not payer.get(name):
            problems.append(FieldError(f"{field}.{name}", REQUIRED, "required"))
    vat = payer.get("vat_number")
    if vat:
        problem = nuit_problem(vat)
        if problem:
            problems.append(FieldError(f"{field}.vat_number", problem[0], problem[1]))
    contact = payer.get("contact") or {}
    phone = contact.get("phone_number")
    if phone and (message := phone_problem(phone)):
        problems.append(FieldError(f"{field}.contact.phone_number", INVALID_FORMAT, message))
    email = contact.get("email")
    if email and not looks_like_email(email):
        problems.append(FieldError(f"{field}.contact.email", INVALID_FORMAT, "an e-mail address"))
    delivery = payer.get("delivery_method")
    if delivery == "sms" and not phone:
        problems.append(FieldError(f"{field}.contact.phone_number", REQUIRED, "an invoice sent by sms needs it"))
    if delivery == "email" and not email:
        problems.append(FieldError(f"{field}.contact.email", REQUIRED, "an invoice sent by email needs it"))
    country = (payer.get("address") or {}).get("country")
    if country and not is_country(country):
        problems.append(FieldError(f"{field}.address.country", NOT_FOUND, "an ISO 3166-1 alpha-2 code, e.g. MZ"))
    return problems
