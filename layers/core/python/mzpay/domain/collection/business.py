"""Business accounts of the collection surface (docs/onboarding.md): the onboarding details a
Mozambican business gives, the rules they pass, and the account's states.

States: pending (onboarding), pending_review (submitted), active (approved), rejected (reason in
`reason`, field problems in `errors`), suspended (reason in `reason`). A business edits its
details while pending or rejected and submits them with finish; reviewers approve, reject,
suspend and reactivate. Every move is a conditional write on the status and version read.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from mzpay.domain.common import nib
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError


class AccountStatus:
    PENDING = "pending"
    PENDING_REVIEW = "pending_review"
    ACTIVE = "active"
    REJECTED = "rejected"
    SUSPENDED = "suspended"


# (status, action) -> the status it leads to. Anything else: 400 invalid_request naming the status.
TRANSITIONS: dict[tuple[str, str], str] = {
    (AccountStatus.PENDING, "finish"): AccountStatus.PENDING_REVIEW,
    (AccountStatus.REJECTED, "finish"): AccountStatus.PENDING_REVIEW,  # a corrected resubmission
    (AccountStatus.PENDING_REVIEW, "approve"): AccountStatus.ACTIVE,
    (AccountStatus.PENDING_REVIEW, "reject"): AccountStatus.REJECTED,
    (AccountStatus.ACTIVE, "suspend"): AccountStatus.SUSPENDED,
    (AccountStatus.SUSPENDED, "reactivate"): AccountStatus.ACTIVE,
}
EDITABLE = frozenset({AccountStatus.PENDING, AccountStatus.REJECTED})  # details may change


def next_status(current: str, action: str) -> str:
    target = TRANSITIONS.get((current, action))
    if target is None:
        raise ServiceError(
            400,
            "invalid_request",
            f"Cannot {action} an account that is {current}.",
            account_status=current,
            action=action,
        )
    return target


# ---------------------------------------------------------------- details and their rules
# ValidationError codes (spec, "Collection surface resources").
INVALID_FORMAT = "INVALID_FORMAT"
NOT_FOUND = "NOT_FOUND"
VERIFICATION_FAILED = "VERIFICATION_FAILED"
REQUIRED = "REQUIRED"  # a required field is absent or empty (answered as missing_field)

MAX_TEXT = 200  # every free-text detail
SECTIONS = ("bank_details", "person_of_contact", "business_details", "tax_details")
REQUIRED_SECTIONS = ("bank_details", "person_of_contact", "business_details")  # finish needs these
FIELDS: dict[str, tuple[tuple[str, bool], ...]] = {  # section -> (field, required)
    "bank_details": (
        ("nuib", True),
        ("nib", True),
        ("account_number", True),
        ("bank_name", True),
        ("account_holder_name", True),
    ),
    "person_of_contact": (("first_name", True), ("last_name", True), ("phone_number", False), ("email", False)),
    "business_details": (
        ("legal_name", True),
        ("short_name", False),
        ("country", True),
        ("state_province", True),
        ("city", False),
        ("line", False),
        ("registration_number", True),
        ("vat_number", True),
    ),
    "tax_details": (("tax_id", True), ("vat_number", True)),
}

# ISO 3166-1 alpha-2: phonenumbers' regions, less its three that are not ISO 3166-1 codes (AC, TA,
# XK), plus the seven ISO territories without a numbering plan.
_NOT_ISO = frozenset({"AC", "TA", "XK"})
_NO_NUMBERING_PLAN = frozenset({"AQ", "BV", "GS", "HM", "PN", "TF", "UM"})


@functools.cache
def _countries() -> frozenset[str]:
    import phonenumbers  # deferred: only onboarding details need its region table

    return (frozenset(phonenumbers.SUPPORTED_REGIONS) - _NOT_ISO) | _NO_NUMBERING_PLAN


def is_country(code: str) -> bool:
    return code in _countries()


def phone_problem(text: str) -> str | None:
    import phonenumbers

    if not text.startswith("+"):
        return "an E.164 number: + and the country code, e.g. +258841234567"
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException:
        return "an E.164 number: + and the country code, e.g. +258841234567"
    if not phonenumbers.is_valid_number(number):
        return "not a valid phone number"
    return None


_E164 = re.compile(r"\+[1-9][0-9]{1,14}")


def e164_problem(text: str) -> str | None:
    """`phone_problem`, spelled strictly: + and digits only (no spaces, dashes, brackets or an
    extension), as a number is a key where it is looked up (the payer's list by phone)."""
    if not _E164.fullmatch(text):
        return "an E.164 number: + and the country code, e.g. +258841234567"
    return phone_problem(text)


def sms_problem(text: str) -> str | None:
    """What keeps an SMS from reaching a valid E.164 number: a fixed line (a landline) takes none."""
    import phonenumbers

    if phonenumbers.number_type(phonenumbers.parse(text, None)) == phonenumbers.PhoneNumberType.FIXED_LINE:
        return "a mobile number: an invoice sent by sms cannot reach a fixed line"
    return None


def nuit_problem(text: str) -> tuple[str, str] | None:
    from stdnum.exceptions import InvalidChecksum, ValidationError
    from stdnum.mz import nuit

    try:
        nuit.validate(text)
    except InvalidChecksum:
        return VERIFICATION_FAILED, "the NUIT's check digit does not hold"
    except ValidationError:
        return INVALID_FORMAT, "a NUIT has 9 digits"
    return None


def _field_problem(section: str, name: str, value: str) -> tuple[str, str] | None:
    """(code, message) when `value` of section.name breaks its rule."""
    if len(value) > MAX_TEXT:
        return INVALID_FORMAT, f"at most {MAX_TEXT} characters"
    if section == "bank_details" and name == "nib" and not nib.is_valid(value):
        return VERIFICATION_FAILED, "a NIB has 21 digits whose MOD 97-10 check digits hold"
    if section == "bank_details" and name in ("nuib", "account_number") and not value.replace(" ", "").isdigit():
        return INVALID_FORMAT, "digits only"
    if section == "person_of_contact" and name == "phone_number":
        problem = phone_problem(value)
        return (INVALID_FORMAT, problem) if problem else None
    if section == "person_of_contact" and name == "email" and not looks_like_email(value):
        return INVALID_FORMAT, "an e-mail address, e.g. finance@example.co.mz"
    if section == "business_details" and name == "country" and not is_country(value):
        return NOT_FOUND, "an ISO 3166-1 alpha-2 country code, e.g. MZ"
    if section == "tax_details" and name == "tax_id":
        return nuit_problem(value)
    return None


# An address SES can send to (RFC 5321's dot-atom, ASCII): a local part of letters, digits and
# !#$%&'*+/=?^_`{|}~- between single dots, at a domain of letter-digit-hyphen labels ending in a
# letters-only top-level label. Nothing else passes: no spaces or control characters, no quotes,
# no second @, no HTML (docs/notifications.md, "Invalid addresses").
_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
)


def looks_like_email(text: str) -> bool:
    """An e-mail address a message can be sent to.

    >>> [looks_like_email(t) for t in ("ana@example.co.mz", "ana@@example.co.mz", "<b>@x.mz", "ana@x")]
    [True, False, False, False]
    """
    local = text.rpartition("@")[0]
    return len(text) <= 254 and len(local) <= 64 and _EMAIL.fullmatch(text) is not None


def check_details(body: dict[str, Any], sections: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """The details of `body` cleaned (strings stripped, the NIB normalized, empty optional fields
    dropped) when every section of `sections` is present in full and every field passes its
    rule; else 400 missing_field (only absences) or validation_error, with one ValidationError
    per field. Sections other than SECTIONS, and fields a section does not have, are refused."""
    problems: list[FieldError] = []
    cleaned: dict[str, dict[str, str]] = {}
    for section in body:
        if section not in SECTIONS:
            problems.append(FieldError(section, INVALID_FORMAT, "not a section of the onboarding details"))
    for section in SECTIONS:
        given = body.get(section)
        if given is None:
            if section in sections:
                problems.append(FieldError(section, REQUIRED, "this section is required"))
            continue
        if not isinstance(given, dict):
            problems.append(FieldError(section, INVALID_FORMAT, "an object"))
            continue
        known = dict(FIELDS[section])
        for name in given:
            if name not in known:
                problems.append(FieldError(f"{section}.{name}", INVALID_FORMAT, "not a field of this section"))
        values: dict[str, str] = {}
        for name, required in FIELDS[section]:
            raw = given.get(name)
            path = f"{section}.{name}"
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                if required:
                    problems.append(FieldError(path, REQUIRED, "required"))
                continue
            if not isinstance(raw, str):
                problems.append(FieldError(path, INVALID_FORMAT, "a string"))
                continue
            value = raw.strip()
            if section == "business_details" and name == "country":
                value = value.upper()
            problem = _field_problem(section, name, value)
            if problem:
                problems.append(FieldError(path, problem[0], problem[1]))
                continue
            values[name] = nib.normalize(value) if (section, name) == ("bank_details", "nib") else value
        cleaned[section] = values
    if problems:
        only_missing = all(p.code == REQUIRED for p in problems)
        code = "missing_field" if only_missing else "validation_error"
        names = ", ".join(p.field for p in problems)
        raise ServiceError(400, code, f"The onboarding details have problems: {names}.", errors=problems)
    return cleaned


def missing_for_finish(details: dict[str, dict[str, str]]) -> list[FieldError]:
    """What finish still needs: every required field of the required sections."""
    missing = []
    for section in REQUIRED_SECTIONS:
        given = details.get(section) or {}
        for name, required in FIELDS[section]:
            if required and not given.get(name):
                missing.append(FieldError(f"{section}.{name}", REQUIRED, "required before finishing onboarding"))
    return missing


# ---------------------------------------------------------------- the entity
class BusinessAccount(Entity):
    """The business account a collection identity acts for (its token's account_id)."""

    account_id: str
    name: str | None = None
    reason: str = ""
    details: dict[str, dict[str, str]] = {}
    errors: list[dict[str, str]] = []
    logo: dict[str, str] | None = None
    created_at: str
    updated_at: str
    submitted_at: str | None = None
    decided_at: str | None = None
    # the gateway account it collects through: its own id once approved, or the one an operator
    # linked (docs/onboarding.md, "From approval to collecting"); None before either
    gateway_account_id: str | None = None
    # the language of its messages when the recipient's is unknown (docs/notifications.md); None: pt
    notification_language: str | None = None

    def view(self) -> dict[str, Any]:
        """Account (spec): object, id, name, status, reason, details, errors, logo."""
        return {
            "object": "account",
            "id": self.account_id,
            "name": self.name or (self.details.get("business_details") or {}).get("legal_name"),
            "status": self.status,
            "reason": self.reason,
            "details": {section: self.details.get(section) for section in SECTIONS},
            "errors": self.errors,
            "logo": self.logo,
        }

    def onboarding(self) -> dict[str, Any]:
        """GET /v1/account/onboarding/details."""
        return {"object": "onboarding", **{section: self.details.get(section) for section in SECTIONS}}
