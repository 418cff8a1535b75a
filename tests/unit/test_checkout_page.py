"""The hosted checkout's page layer in process: the language a request gets, the catalogues
(every message of the templates translated, placeholders kept), what the page offers and takes
from its form, and the payer's pages for a fault."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from botocore.exceptions import ClientError

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.charges import national_phone, phone_fault
from mzpay.domain.payments.checkout_offer import Offer, PayerChoice, expiry_problem, offers
from mzpay.http import checkout_page, page_locale
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from tests.unit.test_resolver import event, header

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"%\(\w+\)s")


@pytest.mark.parametrize(
    ("asked", "cookie", "accept", "chosen"),
    [
        (None, None, None, "pt"),
        (None, None, "", "pt"),
        (None, None, "en-GB,en;q=0.9", "en"),
        (None, None, "fr-FR, en;q=0.8, pt;q=0.5", "en"),
        (None, None, "en;q=0.4, pt-MZ;q=0.9", "pt"),
        (None, None, "de, fr;q=0.9", "pt"),
        (None, None, "en;q=0, fr", "pt"),
        (None, None, "*", "pt"),
        (None, None, "en;q=abc, garbage;;, en-US", "en"),
        (None, None, "xx," * 1000 + "en", "pt"),  # read up to its first 500 characters
        (None, "en", "pt", "en"),
        ("pt", "en", "en", "pt"),
        ("klingon", "en", None, "en"),
        ("klingon", "nope", None, "pt"),
    ],
)
def test_the_language_of_a_request(asked: str | None, cookie: str | None, accept: str | None, chosen: str) -> None:
    assert page_locale.negotiate(asked, cookie, accept) == chosen


def template_texts(pattern: str) -> set[str]:
    """The gettext texts of the Jinja2 templates `pattern` names (below the repository's root)."""
    return {
        message
        for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT),
            method_map=[(pattern, "jinja2")],
            options_map={pattern: {"extensions": "jinja2.ext.i18n", "trim_blocks": "True", "lstrip_blocks": "True"}},
        )
    }


def test_every_message_of_the_templates_is_translated_with_its_placeholders() -> None:
    found = template_texts("layers/core/python/mzpay/http/templates/**.html")
    assert len(found) > 80
    for language in page_locale.LANGUAGES[:1]:  # English is the message ids themselves
        with (page_locale.CATALOGUES / language / "LC_MESSAGES" / "pages.po").open("rb") as handle:
            catalogue = read_po(handle)
        translated = {message.id: message.string for message in catalogue if message.id}
        assert sorted(found - set(translated)) == [], "run make translations and translate the new messages"
        assert sorted(set(translated) - found) == [], "messages no template uses any more"
        fuzzy = sorted(message.id for message in catalogue if message.id and message.fuzzy)
        assert fuzzy == [], f"{language}: pybabel's guesses, never shown (gettext skips them): translate and unflag"
        for text, translation in translated.items():
            assert translation, f"{language}: {text!r} has no translation"
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(str(translation))), text


def test_money_and_time_as_their_readers_write_them() -> None:
    assert page_locale.money("1250.00", "MZN", "pt") == "1\xa0250,00\xa0MTn"
    assert page_locale.money("1250.00", "MZN", "en") == "MZN\xa01,250.00"
    assert page_locale.money(Decimal("20"), "USD", "en") == "USD\xa020.00"
    assert page_locale.when("2026-11-25T22:30:00Z", "pt") == "26/11/26, 00:30"  # Maputo is UTC+2
    assert page_locale.when("2026-11-25T22:30:00Z", "en") == "26/11/2026, 00:30"


def test_what_a_payer_types_for_a_wallet() -> None:
    assert [national_phone(text) for text in ("84 123 4567", "841234567", "+258 84 123 4567", "00258841234567")] == [
        "+258841234567"
    ] * 4
    assert national_phone("12") == "12" and national_phone("abc") == "abc"
    assert phone_fault("mpesa", "84 123 4567") is None
    assert phone_fault("mpesa", "  ") == "missing"
    assert phone_fault("mpesa", "86 123 4567") == "network"  # e-Mola's
    assert phone_fault("mpesa", "21 123 456") == "invalid"  # a landline
    assert phone_fault("emola", "+27 82 123 4567") == "invalid"  # South African


def test_what_the_page_offers() -> None:
    every = [
        Offer("mobile_wallet", "mpesa"),
        Offer("mobile_wallet", "emola"),
        Offer("mobile_wallet", "mkesh"),
        Offer("card"),
        Offer("reference"),
        Offer("ussd"),
        Offer("qr"),
        Offer("bank_transfer"),
    ]
    assert offers(Decimal("250.00"), "MZN", "test", None, lambda _: False) == every
    assert offers(Decimal("250.00"), "MZN", "live", None, {"mpesa", "card"}.__contains__) == [
        Offer("mobile_wallet", "mpesa"),
        Offer("card"),
    ]
    assert offers(Decimal("250.00"), "MZN", "test", ["emola"], lambda _: False) == [Offer("mobile_wallet", "emola")]
    assert offers(Decimal("5.00"), "USD", "test", None, lambda _: False) == [Offer("card")]
    assert offers(Decimal("5.00"), "EUR", "test", None, lambda _: False) == []
    assert offers(Decimal("5.00"), "MZN", "test", None, lambda _: False) == [  # under the card's 10.00
        offer for offer in every if offer.method != "card"
    ]


def test_what_the_form_sends() -> None:
    assert PayerChoice.from_form({"network": "mpesa", "phone_number": " 84 123 4567 "}) == PayerChoice(
        "mobile_wallet", "mpesa", "84 123 4567"
    )
    card = PayerChoice.from_form({"method": "card", "card_number": "4242 4242-4242 4242", "card_expiry": "08/29"})
    assert (card.key, card.card_number, card.card_expiry) == ("card", "4242424242424242", "08/29")
    assert PayerChoice.from_form({"method": "reference", "network": "mpesa"}) == PayerChoice("reference")
    assert PayerChoice.from_form({}).key == ""
    today = date(2026, 11, 25)
    assert [expiry_problem(text, today) for text in ("11/26", "12/2030", " 1 / 27 ")] == [None, None, None]
    assert [expiry_problem(text, today) for text in ("10/26", "13/27", "0/27", "1127", "", "ab/cd")] == [
        "past",
        "format",
        "format",
        "format",
        "format",
        "format",
    ]


def page_app() -> Any:
    app = create_resolver(Surface.GATEWAY)

    @app.get("/checkout/<payment_id>")
    @checkout_page.answers_pages(app)
    def checkout(payment_id: str) -> Any:
        if payment_id == "01JDA6Q0Z8X4M2N7P5R3T9V1W6":
            raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "GetItem")
        raise ServiceError(403, "csrf_missing", "The form needs its CSRF cookie and token; reload the page.")

    return lambda_handler(app)


def test_a_fault_is_a_payers_page_with_retry_after_never_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUBLIC_GATEWAY_URL", "https://pay.mzpay.example/")
    handler = page_app()
    fault = handler(event("GET", "/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W6", headers={"Accept-Language": "en"}), None)
    assert (fault["statusCode"], header(fault, "Content-Type")) == (503, "text/html; charset=utf-8")
    assert (header(fault, "Retry-After"), header(fault, "Content-Language")) == ("1", "en")
    assert 'data-status="problem" data-code="service_unavailable"' in fault["body"]
    assert "The service is busy" in fault["body"] and "ThrottlingException" not in fault["body"]

    stale = handler(event("GET", "/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W7"), None)
    assert (stale["statusCode"], header(stale, "Retry-After")) == (403, None)
    assert "Esta página esteve aberta tempo demais" in stale["body"]
    assert '<a class="button" href="https://pay.mzpay.example/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W7">' in stale["body"]


def test_the_page_is_locked_down() -> None:
    page = page_app()(event("GET", "/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W7"), None)
    policy = header(page, "Content-Security-Policy") or ""
    nonce = re.search(r"'nonce-([^']+)'", policy)
    assert nonce is not None and f'<style nonce="{nonce.group(1)}">' in page["body"]
    assert policy.startswith("default-src 'none'; style-src 'nonce-") and "frame-ancestors 'none'" in policy
    assert "<script" not in page["body"]
    assert (header(page, "X-Frame-Options"), header(page, "Cache-Control")) == ("DENY", "no-store")


def test_the_pages_cookies_belong_to_the_checkouts_of_the_stage() -> None:
    """On AWS the page lives under the stage's path: a cookie of /checkout would never come back."""
    on_aws = "https://abc123.execute-api.af-south-1.amazonaws.com/Prod/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W6"
    assert checkout_page.cookie_path(on_aws) == "/Prod/checkout"
    assert checkout_page.cookie_path("http://127.0.0.1:10500/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W6") == "/checkout"
    assert checkout_page.cookie_path("") == "/checkout"
