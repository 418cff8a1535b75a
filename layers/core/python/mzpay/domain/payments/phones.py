"""Mozambican mobile numbers: which network's a number is, and numbers as payers type them.
phonenumbers (region MZ) holds the numbering plan; it is imported on first use (cold start)."""

from __future__ import annotations

from mzpay.domain.payments.methods import NETWORK_NAMES, NETWORK_PREFIXES


def national_phone(text: str) -> str:
    """A number as a Mozambican payer types it (84 123 4567, 841234567, +258 84 123 4567) in
    E.164; `text` unchanged when it is no valid Mozambican number (the charge's rules say why).
    The API takes E.164 only: this is for the hosted page, where people type numbers."""
    import phonenumbers

    try:
        parsed = phonenumbers.parse(text, "MZ")
    except phonenumbers.NumberParseException:
        return text
    if parsed.country_code != 258 or not phonenumbers.is_valid_number(parsed):
        return text
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def phone_fault(network: str, text: str) -> str | None:
    """What a payer's typed number lacks for `network`: missing, invalid (no Mozambican mobile
    number), network (another network's number), or None when it will do."""
    if not text.strip():
        return "missing"
    number = national_phone(text)
    if phone_network_error(network, number) is None:
        return None
    others = [prefix for name, prefixes in NETWORK_PREFIXES.items() if name != network for prefix in prefixes]
    return "network" if number.startswith(tuple(f"+258{prefix}" for prefix in others)) else "invalid"


def phone_network_error(network: str, phone: str) -> str | None:
    """Why `phone` is not a number of `network` (E.164, Mozambican mobile, right prefix), or None."""
    import phonenumbers  # deferred: only mobile-wallet charges need its metadata

    try:
        parsed = phonenumbers.parse(phone, None)
    except phonenumbers.NumberParseException:
        return "phone_number must be in international E.164 format, e.g. +258841234567"
    if not phone.startswith("+") or phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164) != phone:
        return "phone_number must be in international E.164 format, e.g. +258841234567"
    if parsed.country_code != 258 or not phonenumbers.is_valid_number(parsed):
        return "phone_number must be a valid Mozambican mobile number"
    prefixes = NETWORK_PREFIXES[network]
    if not str(parsed.national_number).startswith(prefixes):
        return f"{NETWORK_NAMES[network]} numbers start with +258 {' or '.join(prefixes)}"
    return None
