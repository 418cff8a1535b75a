"""No card number anywhere (docs/conventions.md, "Card data"): every request on every API (the
gateway with its hosted pages, the collection surface, the management API with the operator
console, the token endpoint) is screened before any route runs, so before the audit trail, the
idempotency record, any store or any log line sees it (the resolver's `lambda_handler` calls
`screen` right after the body screen, mzpay.http.body).

Screened: every string (and JSON integer) of a JSON body at any depth and every member name;
every field of a form (the console's, the hosted checkout's, the token endpoint's) and the text
parts and file names of a multipart body; any other text body as a whole; every query parameter
(names and values) and every path parameter. A file's bytes (a PDF, an image) are not text and
are not read. Card data is what mzpay.domain.common.card_data says: a card number, or a name that asks
for card data (cvv, cvc, pan, card_number...).

Refused with 400 and the PCI code of the API, naming every field at fault (never its value):
- gateway and management: `gateway.raw_card_data_not_accepted`, a problem document;
- collection: `validation_error`, metadata.errors[] with INVALID_FORMAT per field (the code the
  surface already answers for a card number in a payment method's details: the field's content
  breaks a rule of the service, its type and shape being fine);
- the token endpoint: OAuth's `invalid_request`.

`OWN_CARD_FIELDS` lists, in this one place, the spec's own card fields, whose card data the
route's own rule answers (as the spec says) instead of this screen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import islice
from typing import Any
from urllib.parse import parse_qs

from mzpay.domain.common.card_data import (
    CARD_DATA_WORDS,
    Fraction,
    Integer,
    card_data_in,
    card_data_in_fields,
    holds_card_number,
)
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.http.body import BINARY_MEDIA_TYPES, content_type, raw_body
from mzpay.http.errors import Surface

RAW_CARD_DATA = "gateway.raw_card_data_not_accepted"
MAX_FIELDS_NAMED = 20  # a refusal names at most this many fields


@dataclass(frozen=True)
class OwnCardField:
    """A field the spec defines to carry card data: its route's own rule answers it."""

    surface: Surface
    method: str
    resource: str  # the route as API Gateway names it (the template's Path)
    field: str  # dot path of a JSON body, or a form field's name
    rule: str  # what answers instead (docs/conventions.md repeats it)


OWN_CARD_FIELDS: tuple[OwnCardField, ...] = (
    OwnCardField(
        Surface.GATEWAY,
        "POST",
        "/charges",
        "source.card",
        "mzpay.domain.payments.cards.Card: a documented test card in test mode stands for its token; any other "
        "number, any number in live mode and any security code answer raw_card_data_not_accepted",
    ),
    OwnCardField(
        Surface.GATEWAY,
        "POST",
        "/checkout/{payment_id}/pay",
        "card_number",
        "the hosted checkout's card form: the charge's card rule (test cards in test mode only)",
    ),
    OwnCardField(
        Surface.COLLECTION,
        "POST",
        "/v1/customers/{customer_id}/payment_methods",
        "details",
        "mzpay.domain.partners.payment_methods.checked_details: a card is kept as the acquirer's token; a card "
        "number or security code in any detail is validation_error (INVALID_FORMAT), never repeated",
    ),
    OwnCardField(
        Surface.COLLECTION,
        "POST",
        "/v1/partners/get-logo",
        "card_number",
        "mzpay.domain.partners.catalogue.card_logo: a BIN (6 to 8 digits); a whole card number is "
        "validation_error (INVALID_FORMAT), never repeated",
    ),
)


def _own_fields(surface: Surface, event: dict[str, Any]) -> frozenset[str]:
    method = str(event.get("httpMethod") or "").upper()
    resource = str(event.get("resource") or "")
    return frozenset(
        own.field
        for own in OWN_CARD_FIELDS
        if own.surface is surface and own.method == method and own.resource == resource
    )


def _query(event: dict[str, Any]) -> dict[str, list[str]]:
    multi = event.get("multiValueQueryStringParameters")
    if isinstance(multi, dict) and multi:
        return {str(k): [str(v) for v in values or []] for k, values in multi.items()}
    single = event.get("queryStringParameters") or {}
    return {str(k): [str(v)] for k, v in single.items()}


def _json(text: str) -> Any:
    return json.loads(text, parse_int=Integer, parse_float=Fraction, parse_constant=Fraction)


def _body_fields(event: dict[str, Any], own: frozenset[str]) -> list[str]:
    """The body's fields that hold card data (dot paths), or ["body"] for a text body that does."""
    if not event.get("body"):
        return []
    media = content_type(event).split(";", 1)[0].strip().lower()
    if media in BINARY_MEDIA_TYPES:
        return []
    data = raw_body(event)
    if media.startswith("multipart/"):
        return _multipart_fields(data, content_type(event))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []  # the body screen refuses it
    if media == "application/x-www-form-urlencoded":
        return list(card_data_in_fields(parse_qs(text, keep_blank_values=True), own))
    if media == "application/json" or media.endswith("+json") or (not media and text.lstrip()[:1] in ("{", "[")):
        try:
            document = _json(text)
        except (ValueError, RecursionError):
            document = None  # not JSON after all: screened as text below
        else:
            owned = frozenset(tuple(field.split(".")) for field in own)
            return [".".join(str(part) for part in path) or "body" for path in card_data_in(document, owned)]
    return ["body"] if holds_card_number(text) else []


def _multipart_fields(data: bytes, media: str) -> list[str]:
    from mzpay.domain.common.files import form_parts

    try:
        form = form_parts(data, media)
    except (ServiceError, ValueError):  # UnicodeError too: a Content-Type that is not Latin-1
        return []  # not a readable form: its route refuses it before reading any field
    named = {name: [value] for name, value in form.fields.items()}
    found = list(card_data_in_fields(named))
    found += [name for name, filename in form.filenames.items() if holds_card_number(filename) and name not in found]
    return found


def card_data_fields(event: dict[str, Any], surface: Surface) -> list[str]:
    """Every field of the request `event` that holds card data (query, path, body), in order."""
    own = _own_fields(surface, event)
    found = list(card_data_in_fields(_query(event)))
    path = event.get("pathParameters") or {}
    found += [str(name) for name, value in path.items() if holds_card_number(str(value))]
    found += _body_fields(event, own)
    return list(dict.fromkeys(found))


def refusal(surface: Surface, fields: list[str]) -> ServiceError:
    """The API's PCI refusal naming `fields` (at most MAX_FIELDS_NAMED of them)."""
    named = list(islice(fields, MAX_FIELDS_NAMED))
    message = (
        "Card data is never accepted here: remove the card number or security code from "
        f"{', '.join(named)} (send a card only as the acquirer's token, where a route takes one)."
    )
    if surface is Surface.COLLECTION:
        fields_at_fault = [FieldError(field, "INVALID_FORMAT", CARD_DATA_WORDS) for field in named]
        return ServiceError(400, "validation_error", message, errors=fields_at_fault)
    if surface is Surface.OAUTH:
        return ServiceError(400, "invalid_request", message)
    errors = [FieldError(field, RAW_CARD_DATA, CARD_DATA_WORDS) for field in named]
    return ServiceError(400, RAW_CARD_DATA, message, errors=errors)


def screen(event: dict[str, Any], surface: Surface) -> ServiceError | None:
    """The PCI refusal of the request `event` on `surface`, or None when it carries no card data."""
    fields = card_data_fields(event, surface)
    return refusal(surface, fields) if fields else None
