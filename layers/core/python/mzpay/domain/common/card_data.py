"""Card data in what a request carries (docs/conventions.md, "Card data"): the one rule that says
whether a text holds a card number, whether a field's name asks for card data, and where in a
parsed request either is. Pure: no HTTP (mzpay.http.card_screen applies it to every request).

A card number is a run of 13 to 19 digits, written together or in groups separated by single
spaces or dashes, that passes Luhn, and stands apart from the text around it: a run glued to a
letter or digit (inside an id, a hex secret, a hash) is part of another token, and so is a run
after "+" (a phone number in international format). Within a run of groups, any groups that are
next to each other count ("4242 4242 4242 4242 12 26" holds a card number). No card number starts
with 0 (ISO/IEC 7812 gives card issuers 1 to 9: 00258..., a NIB's bank code). What has the shape
of something else is not a card number: a UUID, and a run that is a valid NIB (21 digits, MOD
97-10: a Mozambican bank account, often written in groups of four).

Card data is also asked for by name: a field called cvv, cvc, pan, card_number (in any case,
with or without separators) is refused whatever it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mzpay.domain.common import nib

MIN_DIGITS, MAX_DIGITS = 13, 19
# Groups of digits separated by one space or dash: each maximal run of them.
_RUN = re.compile(r"[0-9]+(?:[ -][0-9]+)*")  # ASCII digits: \d would take any script's
_GROUP = re.compile(r"[0-9]+")
_UUID = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}(?![0-9A-Za-z])")
_GLUED_BEFORE = re.compile(r"[0-9A-Za-z+]")
_GLUED_AFTER = re.compile(r"[0-9A-Za-z]")
# Field names that ask for card data (compared lower-case, without separators: cardNumber,
# card-number and CARD_NUMBER are one name). Not "number": bills and invoices have numbers.
CARD_DATA_NAMES = frozenset(
    {
        "pan",
        "cardnumber",
        "cardno",
        "cardnum",
        "creditcardnumber",
        "primaryaccountnumber",
        "cvv",
        "cvv2",
        "cvc",
        "cvc2",
        "cav2",
        "cvn",
        "securitycode",
        "cardsecuritycode",
        "track1",
        "track2",
        "trackdata",
    }
)
Path = tuple[str | int, ...]
# What a refusal says of each field at fault (the value itself is never repeated).
CARD_DATA_WORDS = "a card number or security code is never accepted: send the acquirer's card token"


def luhn_valid(digits: str) -> bool:
    """The Luhn check of a string of digits."""
    total = 0
    for index, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


_DOUBLED = (0, 2, 4, 6, 8, 1, 3, 5, 7, 9)  # a digit's Luhn value when doubled


def _run_holds_card_number(groups: list[str], open_start: bool, open_end: bool) -> bool:
    """Whether neighbouring groups of a run make 13 to 19 digits passing Luhn, not starting with 0,
    whose ends are not glued to other text (the run's first group counts only when the run's start
    is not glued, likewise its last). Prefix sums make each candidate's Luhn check one subtraction,
    so a long run costs linear time."""
    digits = "".join(groups)
    # odd[i] / even[i]: the Luhn sum of digits[:i] with the digits at odd / even positions doubled.
    odd, even = [0], [0]
    for position, char in enumerate(digits):
        value = ord(char) - 48
        doubled = _DOUBLED[value]
        odd.append(odd[-1] + (doubled if position % 2 else value))
        even.append(even[-1] + (value if position % 2 else doubled))
    starts, ends, offset = [], [], 0
    for group in groups:
        starts.append(offset)
        offset += len(group)
        ends.append(offset)
    last = len(groups) if open_end else len(groups) - 1  # groups that may end a candidate: [.., last)
    first_end = 0  # the first group whose end is at least MIN_DIGITS after `begin`: only moves on
    for index in range(0 if open_start else 1, last):
        begin = starts[index]
        if digits[begin] == "0":
            continue
        while first_end < last and ends[first_end] - begin < MIN_DIGITS:
            first_end += 1
        ending = first_end
        while ending < last and ends[ending] - begin <= MAX_DIGITS:
            stop = ends[ending]
            # doubled: every second digit left of the check digit (stop - 1), so stop's parity
            sums = even if stop % 2 == 0 else odd
            if (sums[stop] - sums[begin]) % 10 == 0:
                return True
            ending += 1
    return False


def holds_card_number(text: str) -> bool:
    """True when `text` holds a card number (see the module's docstring): it must never be stored."""
    if len(text) < MIN_DIGITS:
        return False
    text = _UUID.sub(" ", text)
    for run in _RUN.finditer(text):
        groups = _GROUP.findall(run.group())
        if sum(map(len, groups)) < MIN_DIGITS:
            continue
        start, end = run.span()
        open_start = start == 0 or not _GLUED_BEFORE.match(text, start - 1)
        open_end = end == len(text) or not _GLUED_AFTER.match(text, end)
        if open_start and open_end and nib.is_valid("".join(groups)):
            continue  # a bank account number (NIB), however it is grouped
        # A group of more than 19 digits is in no card number: it splits the run in parts, whose
        # ends next to it are separated from it (so not glued).
        part: list[str] = []
        part_open_start = open_start
        for group in groups:
            if len(group) <= MAX_DIGITS:
                part.append(group)
                continue
            if part and _run_holds_card_number(part, part_open_start, True):
                return True
            part, part_open_start = [], True
        last_open_end = open_end if len(groups[-1]) <= MAX_DIGITS else True
        if part and _run_holds_card_number(part, part_open_start, last_open_end):
            return True
    return False


def is_card_data_name(name: str) -> bool:
    """True when a field called `name` asks for card data (cvv, cvc, pan, card_number...)."""
    return re.sub(r"[^a-z0-9]", "", name.lower()) in CARD_DATA_NAMES


_NAMED = object()  # stands for a member whose name is at fault


class Integer(str):
    """A JSON integer kept as its digits (a card number sent as a number is still one)."""


class Fraction(str):
    """A JSON number with a fraction or exponent: an amount, never a card number."""


def card_data_in(document: Any, own: frozenset[Path] = frozenset(), path: Path = ()) -> Iterator[Path]:
    """Where a parsed JSON `document` (integers as `Integer`, fractions as `Fraction`) holds card
    data: a string or integer holding a card number, or a member whose name asks for card data or
    holds a card number. `own`: the paths of fields whose card data a route's own rule answers
    (a string there is not screened; an object there has its member names and string members left
    to that rule, but objects inside it are screened)."""
    # Depth first, in the document's order; a member whose name is at fault is reported once,
    # without looking into its value.
    stack: list[tuple[Path, Any, bool]] = [(path, document, False)]
    while stack:
        where, value, owned = stack.pop()
        if value is _NAMED:
            yield where
        elif isinstance(value, Fraction) or (owned and not isinstance(value, Mapping | list)):
            continue
        elif isinstance(value, str):
            if holds_card_number(value):
                yield where
        elif isinstance(value, Mapping):
            members: list[tuple[Path, Any, bool]] = []
            for name, item in value.items():
                at = (*where, str(name))
                own_field = where in own or at in own
                named = not own_field and (is_card_data_name(str(name)) or holds_card_number(str(name)))
                members.append((at, _NAMED if named else item, own_field))
            stack.extend(reversed(members))
        elif isinstance(value, list):
            stack.extend(reversed([((*where, index), item, False) for index, item in enumerate(value)]))


def card_data_in_fields(fields: Mapping[str, list[str]], own: frozenset[str] = frozenset()) -> Iterator[str]:
    """The names of the form or query fields (name -> values) that hold card data or ask for it
    by name; `own`: the names whose values a route's own rule answers."""
    for name, values in fields.items():
        if name in own:
            continue
        if is_card_data_name(name) or holds_card_number(name) or any(holds_card_number(v) for v in values):
            yield name
