"""No card number anywhere: the rule (mzpay.domain.common.card_data) and the screen every request of
every API passes before any route, audit record or idempotency record (mzpay.http.card_screen,
called by the resolver's lambda_handler)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from devstack.template import template_text
from mzpay.domain.common.card_data import card_data_in, holds_card_number, is_card_data_name, luhn_valid
from mzpay.domain.operators import audit
from mzpay.domain.payments.cards import TEST_CARDS
from mzpay.http import card_screen
from mzpay.http.audit import audit_requests
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from tests.events import rest_event
from tests.expected import RAW_CARD_DATA as RAW
from tests.expected import RAW_CARD_DATA_WORDS as WORDS
from tests.expected import card_data_problem
from tests.unit.things_api import RAN, add_thing_routes

ROOT = Path(__file__).resolve().parents[2]
PAN = "4539148803436467"  # Luhn-valid, not a documented test card


def luhn_number(length: int, prefix: str = "4") -> str:
    """A Luhn-valid number of `length` digits starting with `prefix`."""
    body = (prefix + "1234567890" * 2)[: length - 1]
    check = next(d for d in "0123456789" if luhn_valid(body + d))
    return body + check


def spaced(digits: str, sep: str = " ") -> str:
    return sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))


# ---------------------------------------------------------------- the rule
@pytest.mark.parametrize("length", range(13, 20))
def test_every_length_from_13_to_19_is_a_card_number_together_spaced_and_dashed(length: int) -> None:
    number = luhn_number(length)
    assert luhn_valid(number)
    for written in (number, spaced(number), spaced(number, "-"), f"my card is {spaced(number)}, thanks"):
        assert holds_card_number(written), written
    broken = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert not holds_card_number(broken)  # the same digits failing Luhn pass
    assert not holds_card_number(spaced(broken))


def test_outside_13_to_19_digits_is_no_card_number() -> None:
    assert not holds_card_number(luhn_number(12))
    assert not holds_card_number(luhn_number(20))
    assert not holds_card_number(spaced(luhn_number(20)))


@pytest.mark.parametrize(
    "text",
    [
        f"refund because {PAN} was charged twice",
        f"{PAN[:4]} {PAN[4:10]} {PAN[10:]}",  # Amex-like grouping 4-6-x
        f"Ana Machava {spaced(PAN, '-')}",
        f"card:{PAN}.",
        f"{PAN} 12 26 123",  # number, expiry and code as typed on one line
        f"2026 {spaced(PAN)}",  # a number after another group
        f"order-{PAN}",
        f"({PAN})",
        "3782 822463 10005",  # 15 digits
        f"1234567890123456789012 {PAN}",  # beside a group too long to be in one
        f"{spaced(PAN)} 1234567890123456789012",
        *TEST_CARDS,
    ],
)
def test_card_numbers_are_found_inside_text(text: str) -> None:
    assert holds_card_number(text)


@pytest.mark.parametrize(
    "text",
    [
        f"{PAN[:-1]}{(int(PAN[-1]) + 1) % 10}",  # fails Luhn
        "+258840000000",  # a phone number
        "+5511912345678 or +49 1512 3456 7890",  # phone numbers in international format
        "0003 0108 0016 3671 0237 1",  # a NIB in groups of four
        "000301080016367102371",
        "0001000000000000000003",  # starts with 0: no card issuer's
        "12345678-1234-1234-1234-123456789012",  # a UUID, digits only
        "550e8400-e29b-41d4-a716-446655440000",
        f"tok{PAN}x",  # glued to letters: part of a token
        f"a1b2{PAN}ff",  # inside a hex secret
        f"x{PAN} 1234567890123456789012",
        "01JABCDEF0123456789XYZ0000",
        "order 12345",
        "2026-11-27T10:00:00Z",
        "".join(chr(0x0660 + int(d)) for d in PAN),  # Arabic-Indic digits: only ASCII digits are read
    ],
)
def test_what_is_not_a_card_number_passes(text: str) -> None:
    assert not holds_card_number(text)


def test_names_that_ask_for_card_data() -> None:
    for name in ("cvv", "CVC", "cvv2", "pan", "card_number", "cardNumber", "Card-Number", "security_code", "track2"):
        assert is_card_data_name(name), name
    for name in ("number", "note", "reference", "account_number", "panel", "company", "nib"):
        assert not is_card_data_name(name), name


def test_card_data_is_found_at_any_depth_with_its_path() -> None:
    document = {
        "reason": f"card {spaced(PAN)}",
        "lines": [{"reference": "ok"}, {"beneficiary": {"name": PAN}}],
        "metadata": {"cvv": "123", "order": "A-1", PAN: "key holds it"},
        "amount": card_screen.Integer(PAN),  # a number sent as a JSON integer
        "value": card_screen.Fraction(f"{PAN}.5"),  # an amount is never one
    }
    assert list(card_data_in(document)) == [
        ("reason",),
        ("lines", 1, "beneficiary", "name"),
        ("metadata", "cvv"),
        ("metadata", PAN),
        ("amount",),
    ]


def test_a_routes_own_card_field_is_left_to_its_rule_but_not_what_it_nests() -> None:
    document = {
        "source": {"card": {"number": PAN, "cvc": "123", "holder": {"note": PAN}}},
        "card_number": PAN,
        "note": PAN,
    }
    own = frozenset({("source", "card"), ("card_number",)})
    assert list(card_data_in(document, own)) == [("source", "card", "holder", "note"), ("note",)]


# ---------------------------------------------------------------- the screen on every API
AUDITED: list[Any] = []


def build(surface: Surface) -> Any:
    """An API of `surface` whose route would run, with the audit trail's middleware that would
    record the request (both are what the screen must precede)."""
    app = create_resolver(surface)
    audit_requests(app, lambda *record: AUDITED.append(record), "management")

    add_thing_routes(app)

    return lambda_handler(app)


def event(
    body: str | None,
    content_type: str = "application/json",
    *,
    method: str = "POST",
    path: str = "/v1/things",
    query: dict[str, str] | None = None,
    path_parameters: dict[str, str] | None = None,
    base64_encoded: bool = False,
) -> dict[str, Any]:
    return rest_event(
        method,
        path,
        headers={"Content-Type": content_type},
        body=body,
        resource="/v1/things/{thing_id}" if path_parameters else path,
        query=query,
        path_parameters=path_parameters,
        context={"requestId": "rid-pan", "stage": "prod", "identity": {"sourceIp": "198.51.100.7"}},
        base64_encoded=base64_encoded,
    )


@pytest.fixture(autouse=True)
def _clean() -> None:
    RAN.clear()
    AUDITED.clear()
    audit.end()


def refusals() -> list[tuple[str, str, Any, int, str | None]]:
    """What the audit trail was given: (action, path, body, status, code) of each record."""
    return [(request.action, request.path, request.body, status, code) for _, request, status, code in AUDITED]


def answer(surface: Surface, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = build(surface)(request, None)
    headers = response.get("multiValueHeaders") or {}
    assert headers.get("X-Request-ID"), response
    assert PAN not in response["body"] and spaced(PAN) not in response["body"]
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize("surface", [Surface.GATEWAY, Surface.MANAGEMENT])
def test_a_card_number_in_free_text_is_the_gateway_pci_problem_before_audit_or_route(surface: Surface) -> None:
    body = json.dumps({"name": f"Ana {spaced(PAN)}", "metadata": {"cvv": "123", "note": "fine"}})
    assert answer(surface, event(body)) == (400, card_data_problem(["name", "metadata.cvv"]))
    assert RAN == []  # the route never saw it; the trail keeps the refusal, never the body
    assert refusals() == [("create_thing", "/v1/things", None, 400, RAW)]


def test_the_collection_surface_answers_validation_error_naming_each_field() -> None:
    body = json.dumps({"name": "ok", "metadata": {"note": spaced(PAN, "-")}})
    status, document = answer(Surface.COLLECTION, event(body))
    message = (
        "Card data is never accepted here: remove the card number or security code from metadata.note "
        "(send a card only as the acquirer's token, where a route takes one)."
    )
    assert (status, document) == (
        400,
        {
            "code": "validation_error",
            "message": message,
            "request_id": document["request_id"],
            "metadata": {"errors": [{"field": "metadata.note", "code": "INVALID_FORMAT", "message": WORDS}]},
        },
    )
    assert document["request_id"].startswith("req_")
    assert RAN == []
    assert refusals() == [("create_thing", "/v1/things", None, 400, "validation_error")]


def test_the_token_endpoint_answers_oauth_invalid_request() -> None:
    request = event(f"grant_type=client_credentials&client_secret={PAN}", "application/x-www-form-urlencoded")
    request["path"] = request["resource"] = "/v1/form"
    status, document = answer(Surface.OAUTH, request)
    assert status == 400
    assert document == {
        "error": "invalid_request",
        "error_description": "Card data is never accepted here: remove the card number or security code from "
        "client_secret (send a card only as the acquirer's token, where a route takes one).",
    }
    assert RAN == []


def test_forms_multipart_text_query_and_path_are_screened() -> None:
    form = event(f"csrf_token=abc&reason=card+{PAN}&cvv=1", "application/x-www-form-urlencoded", path="/v1/form")
    assert answer(Surface.MANAGEMENT, form) == (400, card_data_problem(["reason", "cvv"]))
    boundary = "XyZ"
    multipart = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="reference"\r\n\r\n{spaced(PAN)}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
        f"Content-Type: application/pdf\r\n\r\n%PDF-1 {PAN}\r\n--{boundary}--\r\n"
    ).encode()
    upload = event(
        base64.b64encode(multipart).decode(),
        f"multipart/form-data; boundary={boundary}",
        path="/v1/form",
        base64_encoded=True,
    )
    assert answer(Surface.GATEWAY, upload) == (400, card_data_problem(["reference"]))  # a file's bytes are not read
    assert answer(Surface.GATEWAY, event(f"note {PAN}", "text/plain")) == (400, card_data_problem(["body"]))
    search = event(None, method="GET", path="/v1/things/x", path_parameters={"thing_id": "x"}, query={"q": PAN})
    assert answer(Surface.GATEWAY, search) == (400, card_data_problem(["q"]))
    by_path = event(None, method="GET", path=f"/v1/things/{PAN}", path_parameters={"thing_id": PAN})
    assert answer(Surface.GATEWAY, by_path) == (400, card_data_problem(["thing_id"]))
    assert RAN == []
    # the posts' refusals, never their bodies; reads are not in the trail
    assert refusals() == [("form", "/v1/form", None, 400, RAW)] * 2 + [("create_thing", "/v1/things", None, 400, RAW)]


def test_a_request_without_card_data_runs_and_is_audited_as_before() -> None:
    body = json.dumps({"name": "Loja 4242 Machava", "metadata": {"phone": "+258840000000", "nib": "0003 0108"}})
    status, document = answer(Surface.MANAGEMENT, event(body))
    assert (status, document) == (200, {"name": "Loja 4242 Machava"})
    assert RAN == ["Loja 4242 Machava"] and len(AUDITED) == 1


def test_the_specs_own_card_fields_are_left_to_their_routes_rules() -> None:
    own = {(o.surface, o.method, o.resource, o.field) for o in card_screen.OWN_CARD_FIELDS}
    assert own == {
        (Surface.GATEWAY, "POST", "/charges", "source.card"),
        (Surface.GATEWAY, "POST", "/checkout/{payment_id}/pay", "card_number"),
        (Surface.COLLECTION, "POST", "/v1/customers/{customer_id}/payment_methods", "details"),
        (Surface.COLLECTION, "POST", "/v1/partners/get-logo", "card_number"),
    }
    template = template_text(ROOT / "template.yaml")  # with its nested templates
    for field in card_screen.OWN_CARD_FIELDS:  # a renamed route would lose its exemption silently
        assert f"Path: {field.resource}\n" in template, field.resource

    def fields(surface: Surface, resource: str, body: Any, media: str = "application/json") -> list[str]:
        request = event(body if isinstance(body, str) else json.dumps(body), media, path=resource)
        request["resource"] = resource
        return card_screen.card_data_fields(request, surface)

    charge = {"source": {"type": "card", "card": {"number": PAN, "cvc": "1"}}, "metadata": {"n": PAN}}
    assert fields(Surface.GATEWAY, "/charges", charge) == ["metadata.n"]
    assert fields(Surface.COLLECTION, "/charges", charge) == ["source.card.number", "source.card.cvc", "metadata.n"]
    pay = f"csrf_token=x&method=card&card_number={PAN}&card_expiry=12%2F30"
    form = "application/x-www-form-urlencoded"
    assert fields(Surface.GATEWAY, "/checkout/{payment_id}/pay", pay, form) == []
    assert fields(Surface.GATEWAY, "/checkout/{payment_id}/pay", pay + f"&phone_number={PAN}", form) == ["phone_number"]
    method = {"partner_id": "visa", "type": "card", "details": {"card_number": PAN, "cvv": "123"}}
    assert fields(Surface.COLLECTION, "/v1/customers/{customer_id}/payment_methods", method) == []
    assert fields(Surface.COLLECTION, "/v1/partners/get-logo", {"card_number": PAN}) == []
    assert fields(Surface.COLLECTION, "/v1/partners/get-logo", {"card_number": PAN, "cvv": "1"}) == ["cvv"]


def test_a_multipart_body_no_form_parser_can_read_is_left_to_its_route() -> None:
    unreadable = event(
        base64.b64encode(f"--b\r\n\r\n{PAN}".encode()).decode(),
        "multipart/form-data; boundary=\u20ac",  # not Latin-1: no header parser takes it
        path="/v1/form",
        base64_encoded=True,
    )
    assert card_screen.card_data_fields(unreadable, Surface.GATEWAY) == []
