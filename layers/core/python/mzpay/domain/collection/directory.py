"""The payer directory (docs/customers.md): a business's customers as it finds, changes and
removes them. Search keys: a phone (E.164) and a NUIT match exactly; a name matches by prefix of
the whole name, folded (case and accents ignored, spaces collapsed: "ana mach" finds "Ána
Machava"). A removed customer keeps its id and dates only; the collection requests that named it
keep their amounts and show the payer as removed (REMOVED_PAYER)."""

from __future__ import annotations

import unicodedata
from typing import Any

from mzpay.domain.collection.business import INVALID_FORMAT, is_country, looks_like_email, nuit_problem, phone_problem
from mzpay.domain.collection.kyc import Customer
from mzpay.domain.common.errors import FieldError, ServiceError

REMOVED = "removed"
REMOVED_NAME = "(removed)"
MAX_NAME_KEY = 200  # a folded name is at most the name's length


def folded(text: str) -> str:
    """`text` as names are searched: accents dropped, case folded, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def phone_key(phone: str) -> str:
    """A valid phone as the directory keys it: E.164, however it was spaced."""
    import phonenumbers

    return str(phonenumbers.format_number(phonenumbers.parse(phone, None), phonenumbers.PhoneNumberFormat.E164))


def nuit_key(nuit: str) -> str:
    """A valid NUIT as the directory keys it: its nine digits."""
    from stdnum.mz import nuit as stdnum_nuit

    return str(stdnum_nuit.compact(nuit))


def removed_payer(payer: dict[str, Any]) -> dict[str, Any]:
    """A collection request's payer once its customer is removed: its kind and delivery kept
    (what the record was), every personal field gone, `removed: true`."""
    return {
        "type": payer.get("type"),
        "delivery_method": payer.get("delivery_method"),
        "first_name": REMOVED_NAME,
        "last_name": REMOVED_NAME,
        "removed": True,
    }


def payer_of(customer: Customer) -> dict[str, Any]:
    """A collection request's payer taken from the directory: an individual named as the
    customer is (its first word the first name, the rest the last name), its NUIT, address and
    contact; delivered by e-mail when it has one, else by sms when it has a phone, else to the
    ERP."""
    first, _, rest = customer.name.strip().partition(" ")
    contact = {name: value for name, value in customer.contact().items() if value}
    delivery = "email" if customer.email else "sms" if customer.phone_number else "erp"
    payer: dict[str, Any] = {
        "type": "individual",
        "first_name": first,
        "last_name": rest.strip() or first,
        "delivery_method": delivery,
    }
    if customer.nuit:
        payer["vat_number"] = customer.nuit
    if contact:
        payer["contact"] = contact
    if customer.address:
        payer["address"] = customer.address
    if customer.language:
        payer["language"] = customer.language
    return payer


def contact_problems(fields: dict[str, Any]) -> list[FieldError]:
    """The rules of a customer's contact, NUIT and address beyond their shapes and sizes."""
    problems = []
    email = fields.get("email")
    if email and not looks_like_email(email):
        problems.append(FieldError("email", INVALID_FORMAT, "an e-mail address, e.g. ana@example.co.mz"))
    phone = fields.get("phone_number")
    if phone and (message := phone_problem(phone)):
        problems.append(FieldError("phone_number", INVALID_FORMAT, message))
    nuit = fields.get("nuit")
    if nuit and (problem := nuit_problem(nuit)):
        problems.append(FieldError("nuit", problem[0], problem[1]))
    country = (fields.get("address") or {}).get("country")
    if country and not is_country(country):
        problems.append(FieldError("address.country", "NOT_FOUND", "an ISO 3166-1 alpha-2 code, e.g. MZ"))
    return problems


def invalid(problems: list[FieldError]) -> ServiceError:
    """400 naming every field: missing_field when each is missing, validation_error otherwise."""
    fields = ", ".join(p.field for p in problems)
    kind = "missing_field" if all(p.code == "REQUIRED" for p in problems) else "validation_error"
    return ServiceError(400, kind, f"The request has problems: {fields}.", errors=problems)


def search_of(phone_number: str | None, nuit: str | None, name: str | None) -> tuple[str, str] | None:
    """The one search a list asks for, as (key, folded value); None: the whole directory. 400
    validation_error for more than one, a malformed phone or NUIT, or a name with no letters."""
    given = {k: v for k, v in (("phone_number", phone_number), ("nuit", nuit), ("name", name)) if v is not None}
    if len(given) > 1:
        names = ", ".join(given)
        raise invalid([FieldError(k, INVALID_FORMAT, f"one search at a time: {names}") for k in given])
    if not given:
        return None
    ((key, value),) = given.items()
    if key == "phone_number" and (message := phone_problem(value)):
        raise invalid([FieldError(key, INVALID_FORMAT, message)])
    if key == "nuit" and (problem := nuit_problem(value)):
        raise invalid([FieldError(key, problem[0], problem[1])])
    if key == "name":
        value = folded(value)
        if not value:
            raise invalid([FieldError(key, INVALID_FORMAT, "a name or its beginning")])
        return key, value
    return key, phone_key(value) if key == "phone_number" else nuit_key(value)


def view(customer: Customer, kyc: dict[str, Any] | None) -> dict[str, Any]:
    """GET /v1/customers/{id} and the list's items: a removed customer has only its id, status
    and dates."""
    if customer.status == REMOVED:
        return {
            "object": "customer",
            "id": customer.customer_id,
            "status": REMOVED,
            "removed": True,
            "created_at": customer.created_at,
            "updated_at": customer.updated_at,
        }
    answer = {
        "object": "customer",
        "id": customer.customer_id,
        "status": customer.status,
        "name": customer.name,
        "email": customer.email,
        "phone_number": customer.phone_number,
        "nuit": customer.nuit,
        "address": customer.address,
        "language": customer.language,
        "kyc_id": customer.kyc_id,
        "created_at": customer.created_at,
        "updated_at": customer.updated_at,
    }
    if kyc is not None:
        answer["kyc"] = kyc
    return answer
