"""Payment references: what Mozambican payers key in at an ATM or in a banking app. An entity
(5 digits) plus an 11-digit reference: 9 digits that name the payment and 2 ISO 7064 MOD 97-10
check digits computed over entity, those 9 digits and the amount, so a reference is valid for
that one amount only."""

from __future__ import annotations

from decimal import Decimal

ENTITY_DIGITS = 5
BODY_DIGITS = 9
AMOUNT_DIGITS = 10  # the amount in minor units, zero-padded


def _amount_digits(amount: Decimal, minor_units: int = 2) -> str:
    return str(int(amount.scaleb(minor_units))).zfill(AMOUNT_DIGITS)


def payment_reference(entity: str, seed: int, amount: Decimal) -> str:
    """The reference for `amount`; `seed` picks the 9-digit body (the payment's own number)."""
    if len(entity) != ENTITY_DIGITS or not entity.isdigit():
        raise ValueError("an entity has 5 digits")
    from stdnum.iso7064 import mod_97_10  # deferred: only reference-like charges need it

    body = str(seed % 10**BODY_DIGITS).zfill(BODY_DIGITS)
    return body + mod_97_10.calc_check_digits(entity + body + _amount_digits(amount))


def reference_valid(entity: str, reference: str, amount: Decimal) -> bool:
    """True when `reference` was made for `entity` and exactly `amount`."""
    from stdnum.iso7064 import mod_97_10

    if len(reference) != BODY_DIGITS + 2 or not reference.isdigit():
        return False
    return mod_97_10.is_valid(entity + reference[:BODY_DIGITS] + _amount_digits(amount) + reference[BODY_DIGITS:])
