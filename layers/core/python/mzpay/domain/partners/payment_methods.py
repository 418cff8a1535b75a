"""Customer payment methods (docs/partners.md, "Payment methods"): a business's customer keeps
methods (pm_...) of a partner: a mobile wallet, a bank account or a card, whose details are
checked against the partner's attributes (the same list that builds the client's form). A card is
kept as the acquirer's token with its last four digits, brand and expiry: a card number or CVV is
refused wherever it appears, never stored, logged or echoed. Status: active <-> inactive.
Pure rules: no storage, no HTTP."""

from __future__ import annotations

import re
from typing import Any

from mzpay.domain.common import nib
from mzpay.domain.common.card_data import CARD_DATA_WORDS, holds_card_number
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError
from mzpay.domain.common.errors import field_refusal as invalid
from mzpay.domain.partners import catalogue as partners

INVALID_FORMAT, NOT_FOUND, REQUIRED = "INVALID_FORMAT", "NOT_FOUND", "REQUIRED"
VERIFICATION_FAILED = "VERIFICATION_FAILED"
STATUSES = ("active", "inactive")
MODES = ("test", "live")
MAX_METHODS_PER_CUSTOMER = 50
RAW_CARD_FIELDS = frozenset({"card_number", "number", "pan", "cvv", "cvc", "cvv2", "security_code"})
RAW_CARD_MESSAGE = CARD_DATA_WORDS


class PaymentMethod(Entity):
    """A customer's payment method as stored (a card: token, last4, brand, expiry only)."""

    pm_id: str
    business_account_id: str  # the business whose customer it is
    customer_id: str
    type: str
    partner_id: str
    details: dict[str, str]
    mode: str = "live"  # test: its transactions run in the gateway's test mode (the simulator)
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        """PaymentMethod (spec): account_id is the customer's id; details masked."""
        return {
            "object": "payment_method",
            "id": self.pm_id,
            "account_id": self.customer_id,
            "type": self.type,
            "partner_id": self.partner_id,
            "details": masked(self.type, self.details),
            "mode": self.mode,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def masked(pm_type: str, details: dict[str, str]) -> dict[str, str]:
    """What reads show: a card's token cut to its last four characters; the rest as given."""
    if pm_type != "card":
        return dict(details)
    token = details.get("card_token", "")
    return {**details, "card_token": f"tok_****{token[-4:]}"}


def card_problems(details: dict[str, Any]) -> list[FieldError]:
    """A card number or CVV among `details` (each field named, the value never repeated): judged
    before anything is looked up, as the requests' card screen is."""
    return [
        FieldError(f"details.{name}", INVALID_FORMAT, RAW_CARD_MESSAGE)
        for name, value in details.items()
        if name in RAW_CARD_FIELDS or (isinstance(value, str) and holds_card_number(value))
    ]


def checked_details(partner_id: str, pm_type: str, details: dict[str, Any]) -> dict[str, str]:
    """`details` cleaned (strings stripped, empty optional fields dropped) when they fill the
    partner's form for `pm_type`: every required attribute present, each value within minsize and
    maxsize and matching the regex, no field the form lacks. A card number or CVV anywhere is
    refused without being repeated. 400 (validation_error, missing_field) naming each field."""
    if pm_type not in partners.PM_TYPES:
        raise invalid([FieldError("type", INVALID_FORMAT, f"one of {', '.join(partners.PM_TYPES)}")])
    form = partners.attributes(partner_id, pm_type)
    if form is None:
        raise invalid([FieldError("partner_id", NOT_FOUND, f"not a partner that takes {pm_type}")])
    problems = card_problems(details)
    known = {attribute["field_name"]: attribute for attribute in form}
    carded = {problem.field for problem in problems}
    for name in details:
        if f"details.{name}" not in carded and name not in known:
            problems.append(FieldError(f"details.{name}", INVALID_FORMAT, "not a field of this partner's form"))
    cleaned: dict[str, str] = {}
    for name, attribute in known.items():
        raw = details.get(name)
        field = f"details.{name}"
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if attribute["required"]:
                problems.append(FieldError(field, REQUIRED, f"{attribute['label']} is required"))
            continue
        if not isinstance(raw, str):
            problems.append(FieldError(field, INVALID_FORMAT, "a string"))
            continue
        value = raw.strip()
        if holds_card_number(value):
            continue  # reported above, never repeated
        if not attribute["minsize"] <= len(value) <= attribute["maxsize"]:
            size = f"{attribute['minsize']} to {attribute['maxsize']} characters"
            problems.append(FieldError(field, INVALID_FORMAT, size))
        elif not re.fullmatch(attribute["regex"], value):
            problems.append(FieldError(field, INVALID_FORMAT, f"does not match {attribute['regex']}"))
        else:
            cleaned[name] = value
    if pm_type == "bank_account" and not problems:
        problems += bank_account_problems(cleaned)
    if problems:
        raise invalid(problems)
    return cleaned


def bank_account_problems(details: dict[str, str]) -> list[FieldError]:
    """A Mozambican bank account (the spec's account_number, nib, holder_name, bank_name, the form
    having checked each one's shape): its NIB's MOD 97-10 check digits hold, an account_number
    given is the one the NIB carries (its digits 9 to 19, leading zeros aside), and the holder is
    named (the spec's holder_name, or account_holder_name)."""
    problems = []
    number = details["nib"]
    if not nib.is_valid(number):
        problems.append(FieldError("details.nib", VERIFICATION_FAILED, "a NIB's MOD 97-10 check digits must hold"))
    elif "account_number" in details and details["account_number"].lstrip("0") != number[8:19].lstrip("0"):
        why = "not the account the NIB carries (its digits 9 to 19)"
        problems.append(FieldError("details.account_number", VERIFICATION_FAILED, why))
    if not (details.get("holder_name") or details.get("account_holder_name")):
        problems.append(FieldError("details.holder_name", REQUIRED, "the account holder's name is required"))
    return problems


def check_status(status: str) -> None:
    if status not in STATUSES:
        raise invalid([FieldError("status", INVALID_FORMAT, "active or inactive")])
