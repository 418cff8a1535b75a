"""The reference numbers of collection requests paid at a bank (docs/collection-requests.md,
"References"): what a payer keys in at an ATM or in a banking app for a `simo_erv` method (entity +
reference) or writes in an `interbank` transfer's description (the prefix + reference).

A reference number has 11 digits: a 9-digit body that names the request (or a standing series of
them) and 2 ISO 7064 MOD 97-10 check digits over the entity, the body and the amount, the
gateway's payment reference scheme (mzpay.domain.payments.references). A request that takes
instalments has a reference bound to no amount: its check digits are computed with the amount
0.00, which no request has. An interbank-only request has no SIMO entity: its check digits use
INTERBANK_ENTITY.

`candidates` reads free text (a statement line's description or reference field) for the
reference numbers it may carry; the caller keeps those that fit (`reference_fits`) a request the
store finds under them. Pure rules: no storage, no HTTP."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from decimal import Decimal

from mzpay.domain.collection.requests import OPEN_STATUSES, CollectionRequest
from mzpay.domain.payments.references import BODY_DIGITS, ENTITY_DIGITS, payment_reference, reference_valid

PREFIX = "MZP"  # what an interbank payer writes before the reference in the transfer's description
INTERBANK_ENTITY = "00000"  # the entity of the check digits of a request with no simo_erv method
REFERENCE_DIGITS = BODY_DIGITS + 2
NO_AMOUNT = Decimal(0)  # the amount of the check digits of a reference bound to no amount
MAX_TEXT = 1000  # the characters of a description read for references, at most
MAX_CANDIDATES = 20

_DIGIT_RUN = re.compile(r"\d+(?:[\s.\-]+\d+)*")  # digit groups joined by spaces, dots or dashes
_GROUP = re.compile(r"\d+")
_PREFIX_BEFORE = re.compile(PREFIX + r"[\s.\-]*\Z", re.IGNORECASE)


def _entity(entity: str | None) -> str:
    return entity or INTERBANK_ENTITY


def reference_number(entity: str | None, body: int, amount: Decimal | None) -> str:
    """The 11-digit reference of `body` (0 to 999999999) for `entity` (None: an interbank-only
    request) and `amount` (None: bound to no amount, a request paid in instalments)."""
    return payment_reference(_entity(entity), body, NO_AMOUNT if amount is None else amount)


def reference_fits(entity: str | None, reference_number: str, amount: Decimal | None) -> bool:
    """True when `reference_number` (11 digits) was made for `entity` (None: an interbank-only
    request) and `amount` (None: a reference bound to no amount, which fits no amount given)."""
    entity = _entity(entity)
    if len(entity) != ENTITY_DIGITS or not (entity.isascii() and entity.isdigit()):
        return False
    if not (reference_number.isascii() and reference_number.isdigit()):
        return False
    return reference_valid(entity, reference_number, NO_AMOUNT if amount is None else amount)


def pays(request: CollectionRequest, reference_number: str, amount: Decimal) -> bool:
    """True when a payment of `amount` under `reference_number` is one `request` takes by its
    reference: the request carries that reference, and an amount-bound reference is paid its
    exact amount (a reference bound to no amount takes any part; the instalment rules decide)."""
    if request.reference_number != reference_number:
        return False
    if request.reference_amount is None:
        return reference_fits(request.reference_entity, reference_number, None)
    return amount == request.reference_amount and reference_fits(request.reference_entity, reference_number, amount)


def oldest_open(requests: Sequence[CollectionRequest]) -> CollectionRequest | None:
    """Of the requests carrying one reference (requests_by_reference: oldest first), the one a
    payment under it goes to: the oldest still open (pending or partially paid); None when all
    are paid or cancelled. A standing reference is carried by many requests, one after another."""
    return next((request for request in requests if request.status in OPEN_STATUSES), None)


def body_of(reference_number: str) -> str:
    """The 9 digits that name the request (what a claim is held on)."""
    return reference_number[:BODY_DIGITS]


def derived_body(material: str, attempt: int) -> int:
    """A body (0 to 999999999) drawn from `material` (a request's id; a standing series' method,
    payer and amount): the same material and attempt give the same body, a collision moves to the
    next attempt."""
    digest = hashlib.sha256(f"{material}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10**BODY_DIGITS


def written(reference_number: str) -> str:
    """What an interbank payer writes in the transfer's description ("MZP12345678901")."""
    return PREFIX + reference_number


def _elevens(groups: list[str]) -> list[tuple[int, str]]:
    """The 11-digit numbers whole consecutive groups of one run make, with the index of their
    first group, fewest groups first."""
    found: list[tuple[int, int, str]] = []
    for start in range(len(groups)):
        joined = ""
        for end in range(start, len(groups)):
            joined += groups[end]
            if len(joined) >= REFERENCE_DIGITS:
                if len(joined) == REFERENCE_DIGITS:
                    found.append((end - start, start, joined))
                break
    return [(start, number) for _, start, number in sorted(found)]


def candidates(text: str) -> list[str]:
    """The 11-digit reference numbers `text` (free text: a transfer's description, a statement's
    reference field) may carry, most plausible first: the digits after the prefix (any case, with
    or without spaces, dots and dashes between), then numbers of 11 digits written whole, then 11
    digits written in groups ("123 456 789-01"). Longer or shorter numbers (a phone, a NIB, a
    date) give none unless the prefix marks them. The caller checks each with `reference_fits`
    and the store's requests_by_reference."""
    text = text[:MAX_TEXT]
    marked: list[str] = []
    whole: list[str] = []
    grouped: list[str] = []
    for run in _DIGIT_RUN.finditer(text):
        groups = _GROUP.findall(run.group())
        elevens = _elevens(groups)
        if _PREFIX_BEFORE.search(text[: run.start()]):
            digits = "".join(groups)
            first = [number for start, number in elevens if start == 0]
            marked += first or ([digits[:REFERENCE_DIGITS]] if len(digits) > REFERENCE_DIGITS else [])
        for start, number in elevens:
            (whole if len(groups[start]) == REFERENCE_DIGITS else grouped).append(number)
    return list(dict.fromkeys(marked + whole + grouped))[:MAX_CANDIDATES]
