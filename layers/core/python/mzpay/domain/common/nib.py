"""The Mozambican NIB (Número de Identificação Bancária): the 21-digit account number bank payouts
go to. 4 digits of bank, 4 of branch, 11 of account and 2 ISO 7064 MOD 97-10 check digits over
the whole number. People write it grouped ("0003 0108 0016 3671 0237 1", dots or dashes too);
those separators are ignored.

The IBAN of a NIB is always "MZ59" + NIB: the NIB's own check digits make the whole number 1
modulo 97, so the IBAN check digits of every valid NIB come out 59. `to_iban` needs no IBAN
library (schwifty is not a dependency; python-stdnum's IBAN registry does not list MZ).
"""

from __future__ import annotations

import re

LENGTH = 21
BODY_LENGTH = LENGTH - 2
IBAN_PREFIX = "MZ59"
_SEPARATORS = re.compile(r"[\s.\-]")


def normalize(text: str) -> str:
    """`text` without spaces, dots and dashes ("0003 0108-0016.3671 0237 1" -> "000301080016367102371")."""
    return _SEPARATORS.sub("", text)


def is_valid(nib: str) -> bool:
    """True when `nib`, once normalized, is 21 ASCII digits whose MOD 97-10 check digits hold."""
    number = normalize(nib)
    if len(number) != LENGTH or not (number.isascii() and number.isdigit()):
        return False
    from stdnum.iso7064 import mod_97_10  # deferred: only bank payouts and lookups need it

    return bool(mod_97_10.is_valid(number))


def check_digits(first19: str) -> str:
    """The two check digits that make `first19` (bank, branch, account: 19 digits) a valid NIB."""
    body = normalize(first19)
    if len(body) != BODY_LENGTH or not (body.isascii() and body.isdigit()):
        raise ValueError(f"a NIB without its check digits has {BODY_LENGTH} digits")
    from stdnum.iso7064 import mod_97_10

    return str(mod_97_10.calc_check_digits(body))


def to_iban(nib: str) -> str:
    """The IBAN of a valid NIB ("MZ59" + the 21 digits); ValueError for anything else."""
    if not is_valid(nib):
        raise ValueError("not a valid NIB")
    return IBAN_PREFIX + normalize(nib)
