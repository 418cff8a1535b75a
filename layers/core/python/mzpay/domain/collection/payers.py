"""Who a collection request invoices (its `payer`): the rules of its fields beyond their shapes
and sizes (mzpay.http.collection_request_schemas). A business is billed by its legal name and NUIT;
an individual (a parent a school bills, a tenant) by its names, and a NUIT only when it has one,
checked when given. The NUIT check is a Mozambican payer's: a payer whose address names another
country gives its own country's VAT number, kept as given. The contact is what the delivery
method needs (a phone for sms, an e-mail for email; an invoice delivered to the ERP needs none)."""

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
    sms_problem,
)
from mzpay.domain.common.errors import FieldError

PAYER_TYPES = ("business", "individual")
DELIVERY_METHODS = ("email", "sms", "erp")


def is_mozambican(payer: dict[str, Any]) -> bool:
    """A payer is Mozambican unless its address names another country (`address.country`): its
    `vat_number` is then a NUIT, checked; a foreign payer's is its own country's VAT number, kept
    as given (bounded by the request model)."""
    return (payer.get("address") or {}).get("country") in (None, "", "MZ")


def payer_problems(payer: dict[str, Any], field: str = "payer") -> list[FieldError]:
    """The rules of a Payer (shape and sizes: the request model's): a business needs its legal name
    and NUIT; an individual only its names (a NUIT given is checked); the delivery its contact."""
    problems = []
    if payer.get("type") not in PAYER_TYPES:
        problems.append(FieldError(f"{field}.type", INVALID_FORMAT, "business or individual"))
    if payer.get("delivery_method") not in DELIVERY_METHODS:
        problems.append(FieldError(f"{field}.delivery_method", INVALID_FORMAT, "email, sms or erp"))
    needed = {"first_name": "required", "last_name": "required"}
    if payer.get("type") == "business":
        needed |= {"legal_name": "required for a business", "vat_number": "required for a business"}
    problems += [FieldError(f"{field}.{name}", REQUIRED, why) for name, why in needed.items() if not payer.get(name)]
    vat = payer.get("vat_number")
    if vat and is_mozambican(payer):
        problem = nuit_problem(vat)
        if problem:
            problems.append(FieldError(f"{field}.vat_number", problem[0], problem[1]))
    contact = payer.get("contact") or {}
    phone = contact.get("phone_number")
    if phone and (message := phone_problem(phone) or (payer.get("delivery_method") == "sms" and sms_problem(phone))):
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
